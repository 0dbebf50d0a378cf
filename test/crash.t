#!/usr/bin/perl
# test/crash.t: the process that runs CUDA dies, and no session does.
#
#   prove test/crash.t      (test/run.sh runs it in its throw-away cluster)
#
# The GPU service (a background worker) forks the CUDA process, which the
# postmaster does not know of.  Here it is killed with SIGKILL three times
# while four sessions run queries planned for the GPU (gpuagg.device =
# cuda: on the GPU where there is one, else on the CPU device).  After each
# kill: the service starts a new CUDA process within seconds, the service
# itself is the same process, every session's next query answers as
# natively from the same backend (no session was lost), and the server log
# (GPUAGG_SERVER_LOG, when set) names the death and shows no crash-restart
# of the server.
#
# Needs a server (psql's PGHOST, PGPORT, ...) with gpuagg preloaded and
# database gpuagg_tap with the extension, and the right to signal the
# server's processes (root or the server's user).
use strict;
use warnings;
use IPC::Open2 ();
use Test::More;

my $db = $ENV{GPUAGG_TAP_DB} // 'gpuagg_tap';

# A psql session that stays connected: query() sends a statement and
# returns what it printed (stdout and stderr, unaligned, tuples only).
package Session {
	sub new {
		my ($class) = @_;
		my ($out, $in);
		my $pid = IPC::Open2::open2($out, $in,
			'sh', '-c', "exec psql -XAtq -d '$db' 2>&1");
		$in->autoflush(1);
		return bless { pid => $pid, in => $in, out => $out }, $class;
	}

	sub query {
		my ($self, $sql) = @_;
		my ($in, $out) = @$self{qw(in out)};
		my @lines;
		local $SIG{PIPE} = 'IGNORE';
		$sql .= ';' unless $sql =~ /;\s*$/ || $sql =~ /^\\/;
		print $in "$sql\n\\echo __done__\n" or return undef;
		while (defined(my $line = <$out>)) {
			chomp $line;
			return join("\n", @lines) if $line eq '__done__';
			push @lines, $line;
		}
		return undef;			# psql ended: its connection was lost
	}
}

my $admin = Session->new;
my $service = $admin->query('SELECT pid, cuda_pid, state FROM gpuagg.service()');
my ($service_pid, $cuda_pid, $state) = split /\|/, ($service // '');
if (!$cuda_pid) {
	plan skip_all => "no CUDA process to kill (gpuagg.service(): " . ($service // 'no answer') . ')';
}
if (!kill(0, $cuda_pid)) {
	plan skip_all => "may not signal the server's processes: $!";
}
plan tests => 4 + 3 * 13 + 3;

my $log_file = $ENV{GPUAGG_SERVER_LOG};
my $log_start = defined $log_file && -r $log_file ? -s $log_file : undef;

is($admin->query(q{
	SET client_min_messages = warning;
	DROP TABLE IF EXISTS crash_t;
	CREATE TABLE crash_t AS SELECT i % 97 AS k, i::int8 AS v, i / 7.0 AS f FROM generate_series(1, 200000) i;
	ANALYZE crash_t;
	SELECT count(*) FROM crash_t}), '200000', 'table crash_t made');

# the groups as one line of text: offloaded in the sessions, natively here
my $query = q{SELECT string_agg(format('%s:%s:%s', k, c, s), ',' ORDER BY k)
	FROM (SELECT k, count(*) AS c, sum(v) AS s FROM crash_t GROUP BY k) g};
my $native = $admin->query("SET gpuagg.enabled = off; $query");
$admin->query('RESET gpuagg.enabled');
my @sessions = map { Session->new } 1 .. 4;
my @backends;
for my $s (@sessions) {
	$s->query(q{SET gpuagg.device = cuda; SET gpuagg.force_offload = on;
		SET client_min_messages = error});
	push @backends, $s->query('SELECT pg_backend_pid()');
}
is(scalar(grep { ($_->query($query) // '') eq $native } @sessions), 4,
	'four sessions answer as natively before any kill');
like($sessions[0]->query("EXPLAIN (COSTS OFF) $query") // '', qr/Custom Scan \(GpuAgg\)/,
	'their query is a GpuAgg');
like($native // '', qr/^0:\d+:\d+,1:/, 'the native answer');

my @killed;
for my $round (1 .. 3) {
	my ($spid, $cpid, $resets) = split /\|/,
		($admin->query('SELECT pid, cuda_pid, context_resets FROM gpuagg.service()') // '');
	ok($cpid && kill('KILL', $cpid), "round $round: SIGKILL to the CUDA process $cpid");
	push @killed, $cpid;

	# a new CUDA process, ready (or without a GPU, idle) within 30 s
	my $now;
	for (1 .. 300) {
		$now = $admin->query(q{SELECT pid, cuda_pid, state, context_resets FROM gpuagg.service()});
		my (undef, $c, $st) = split /\|/, ($now // '');
		last if $c && $c != $cpid && ($st eq 'ready' || $st eq 'no_gpu');
		select(undef, undef, undef, 0.1);
	}
	my ($spid2, $cpid2, $state2, $resets2) = split /\|/, ($now // '');
	ok($cpid2 && $cpid2 != $cpid, "round $round: a new CUDA process ($cpid2)");
	like($state2 // '', qr/^(ready|no_gpu)$/, "round $round: the service is $state2 again");
	is($spid2, $spid, "round $round: the service is the same process");
	is($resets2, $resets + 1, "round $round: one more start of the CUDA process counted");
	ok(!kill(0, $cpid), "round $round: the killed process is reaped");
	for my $i (0 .. 3) {
		is($sessions[$i]->query($query), $native,
			"round $round: session " . ($i + 1) . ' answers as natively');
	}
	is(join(',', map { $_->query('SELECT pg_backend_pid()') // 'lost' } @sessions),
		join(',', @backends), "round $round: every session is the same backend");
	is($admin->query('SELECT count(*) FROM pg_stat_activity WHERE backend_type = \'gpuagg service\''),
		'1', "round $round: one service in pg_stat_activity");
	ok(defined $admin->query('SELECT 1'), "round $round: the checking session is alive");
}

SKIP: {
	skip 'no server log (GPUAGG_SERVER_LOG)', 3 unless defined $log_start;
	open(my $fh, '<', $log_file) or die "$log_file: $!";
	seek($fh, $log_start, 0);
	local $/;
	my $log = <$fh>;
	is(scalar(grep { $log =~ /the CUDA process \(PID $_\) was terminated by signal 9/ } @killed), 3,
		'the log names each killed CUDA process');
	# the whole log, the tests before this one included (test/run.sh's
	# cluster is new): the dying queue test, the service's restarts
	seek($fh, 0, 0);
	my $all = <$fh>;
	unlike($all, qr/terminating any other active server processes/,
		'no crash-restart of the server since it started');
	unlike($all, qr/PANIC/, 'no PANIC since the server started');
}

$_->query('\q') for @sessions;
$admin->query('DROP TABLE crash_t');

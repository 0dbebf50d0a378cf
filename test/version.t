#!/usr/bin/perl
# test/version.t: the version numbers of gpuagg agree with each other.
#
#   prove test/version.t
#
# gpuagg.control's default_version is the version of the extension ('0.5');
# META.json gives the same version in semver form ("0.1.0", where a patch
# level of 0 is dropped from the control version). If a server can be reached
# (psql uses PGHOST, PGPORT, ...), it also checks that the loaded library
# reports the same version, in database gpuagg_tap, which test/run.sh creates.
# Without a server that check is skipped; with GPUAGG_REQUIRE_SERVER=1 it
# fails instead.
use strict;
use warnings;
use FindBin ();
use File::Spec ();
use JSON::PP ();

my $root = File::Spec->catdir($FindBin::Bin, File::Spec->updir);
my $tests = 0;

sub ok {
	my ($pass, $name, @diag) = @_;
	$tests++;
	print(($pass ? 'ok' : 'not ok'), " $tests - $name\n");
	if (!$pass) {
		print STDERR "#   $_\n" for @diag;
	}
	return $pass;
}

sub skip {
	my ($name, $why) = @_;
	$tests++;
	print "ok $tests - $name # skip $why\n";
}

sub slurp {
	my ($file) = @_;
	open(my $fh, '<', $file) or return undef;
	local $/;
	my $text = <$fh>;
	close($fh);
	return $text;
}

sub show { defined $_[0] ? "'$_[0]'" : 'undef' }

print "1..8\n";

# gpuagg.control: default_version = '0.5'
my $control_text = slurp("$root/gpuagg.control");
my ($control_version) = ($control_text // '') =~ /^\s*default_version\s*=\s*'([^']*)'/m;

# 1. META.json is valid JSON
my $meta_text = slurp("$root/META.json");
my $meta = eval { JSON::PP->new->utf8->decode($meta_text // die "cannot read META.json: $!\n") };
my $meta_error = $@;
ok(ref $meta eq 'HASH', 'META.json is a valid JSON object', $meta_error ? "$meta_error" : ());
$meta = {} unless ref $meta eq 'HASH';

# 2. meta-spec 1.0.0
my $spec = ref $meta->{'meta-spec'} eq 'HASH' ? $meta->{'meta-spec'}{version} : undef;
ok(defined $spec && $spec eq '1.0.0', 'META.json meta-spec.version is 1.0.0',
	'got ' . show($spec));

# 3. control '0.1' <=> META.json "0.1.0"
my $meta_version = $meta->{version};
my $expected_control;
if (defined $meta_version && $meta_version =~ /^(\d+)\.(\d+)\.(\d+)$/) {
	$expected_control = $3 eq '0' ? "$1.$2" : "$1.$2.$3";
}
ok(defined $control_version && defined $expected_control
		&& $control_version eq $expected_control,
	'gpuagg.control default_version matches META.json version',
	'gpuagg.control default_version: ' . show($control_version),
	'META.json version: ' . show($meta_version)
	  . (defined $expected_control ? " (so the control file should say '$expected_control')"
		  : ' (not a semver MAJOR.MINOR.PATCH)'));

# 4. provides.gpuagg.version
my $provides = ref $meta->{provides} eq 'HASH' && ref $meta->{provides}{gpuagg} eq 'HASH'
  ? $meta->{provides}{gpuagg} : {};
ok(defined $provides->{version} && defined $meta_version
		&& $provides->{version} eq $meta_version,
	'META.json provides.gpuagg.version equals META.json version',
	'provides.gpuagg.version: ' . show($provides->{version}),
	'version: ' . show($meta_version));

# 5. provides.gpuagg.file exists
my $file = $provides->{file};
ok(defined $file && -f "$root/$file", 'META.json provides.gpuagg.file exists',
	'provides.gpuagg.file: ' . show($file));

# 6. provides.gpuagg.docfile exists
my $docfile = $provides->{docfile};
ok(defined $docfile && -f "$root/$docfile", 'META.json provides.gpuagg.docfile exists',
	'provides.gpuagg.docfile: ' . show($docfile));

# 7. the install script for the control version
my $script = 'gpuagg--' . ($control_version // '?') . '.sql';
ok(defined $control_version && -f "$root/$script", "install script $script exists");

# 8. the loaded library's version
my @psql = ('psql', '-X', '-A', '-t', '-q');
my $reachable = system("@psql -c 'SELECT 1' >/dev/null 2>&1") == 0;
my $have_db = $reachable
  && `@psql -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'gpuagg_tap'" 2>/dev/null` =~ /1/;
my $name = 'gpuagg.library_version() equals the control version';
if ($have_db) {
	my $got = `@psql -d gpuagg_tap -c 'SELECT gpuagg.library_version()' 2>&1`;
	my $rc = $? >> 8;
	chomp($got);
	ok($rc == 0 && defined $control_version && $got eq $control_version, $name,
		"library_version() in database gpuagg_tap: '$got'" . ($rc ? " (psql exit status $rc)" : ''),
		'control version: ' . show($control_version));
} else {
	my $why = $reachable ? 'database gpuagg_tap does not exist (test/run.sh creates it)'
	  : 'no PostgreSQL server reachable with psql';
	if ($ENV{GPUAGG_REQUIRE_SERVER}) {
		ok(0, $name, "$why, and GPUAGG_REQUIRE_SERVER is set");
	} else {
		skip($name, $why);
	}
}

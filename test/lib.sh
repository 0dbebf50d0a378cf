# test/lib.sh -- shell helpers shared by test/run.sh and demo.sh (sourced).

# A port for the throw-away cluster. pg_virtualenv -t keeps its cluster
# apart from /etc/postgresql, so it cannot see the ports of the system's
# clusters (a "15 main" on 5432 that is restarting looks free); pick one that
# no cluster is configured for, no socket file claims and nothing listens on.
free_port() {
	local port used
	used=" $(pg_lsclusters -h 2>/dev/null | awk '{ printf "%s ", $3 }')"
	for ((port = 5433 + $$ % 100; port < 6000; port++)); do
		case "$used" in *" $port "*) continue ;; esac
		[ -e "/var/run/postgresql/.s.PGSQL.$port" ] && continue
		[ -e "/tmp/.s.PGSQL.$port" ] && continue
		(: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
		echo "$port"
		return 0
	done
	echo "no free port for the test cluster" >&2
	return 1
}

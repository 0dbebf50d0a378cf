#!/usr/bin/env bash
# test/install-deps.sh: install what gpuagg needs to build and to run its
# tests on Debian 12 (bookworm), then check that the PostgreSQL build tools
# and the server are the same version.
#
#   sudo bash test/install-deps.sh                 # install (as root), then check
#   bash test/install-deps.sh --verify-only        # only the version check
#
# You can run it again: when every package is already installed, it skips
# apt; otherwise it installs only the missing ones and upgrades nothing that
# was installed (the server headers come at the installed server's version). Uses only Debian's own package archive. PG_CONFIG picks a different
# pg_config (default /usr/lib/postgresql/15/bin/pg_config).
#
# Note: installing postgresql-15 on Debian creates and starts a cluster
# "15 main" on port 5432. The tests do not use it (they use pg_virtualenv),
# and this script does not touch it.
set -euo pipefail

PG_MAJOR=15
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}

PACKAGES=(
	"postgresql-$PG_MAJOR"
	"postgresql-server-dev-$PG_MAJOR"
	"postgresql-$PG_MAJOR-pgtap"
	libtap-parser-sourcehandler-pgtap-perl	# pg_prove
	postgresql-common						# pg_virtualenv
	make
	gcc
	perl
)

die() {
	echo "install-deps: ERROR: $*" >&2
	exit 1
}

verify_only=0
case "${1:-}" in
	--verify-only) verify_only=1 ;;
	"") ;;
	*) die "unknown argument '$1' (usage: $0 [--verify-only])" ;;
esac

# ---- packages ---------------------------------------------------------------
if [ "$verify_only" = 0 ]; then
	command -v dpkg >/dev/null 2>&1 ||
		die "dpkg not found: this script installs packages on Debian only (set GPUAGG_SKIP_DEPS=1 elsewhere)"

	missing=()
	for pkg in "${PACKAGES[@]}"; do
		# "dpkg -s" also succeeds for removed packages that left config files.
		if ! dpkg -s "$pkg" 2>/dev/null | grep -qx 'Status: install ok installed'; then
			missing+=("$pkg")
		fi
	done

	if [ "${#missing[@]}" -eq 0 ]; then
		echo "install-deps: all ${#PACKAGES[@]} packages are already installed; skipping apt"
	else
		[ "$(id -u)" = 0 ] ||
			die "packages missing (${missing[*]}); run as root: sudo bash $0"
		echo "install-deps: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update
		# Only what is missing: naming an installed package would upgrade it.
		# The server headers must be the installed server's version.
		server_version=$(dpkg-query -W -f='${Version}' "postgresql-$PG_MAJOR" 2>/dev/null || true)
		want=()
		for pkg in "${missing[@]}"; do
			if [ "$pkg" = "postgresql-server-dev-$PG_MAJOR" ] && [ -n "$server_version" ] &&
				dpkg -s "postgresql-$PG_MAJOR" 2>/dev/null | grep -qx 'Status: install ok installed'; then
				want+=("$pkg=$server_version")
			else
				want+=("$pkg")
			fi
		done
		apt-get install -y --no-install-recommends "${want[@]}" ||
			die "apt-get could not install ${want[*]} (an installed postgresql-$PG_MAJOR $server_version needs the server headers of that version; 'apt-get install postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR' would upgrade both)"
	fi
fi

# ---- version check ----------------------------------------------------------
# The extension is compiled against the headers that pg_config points to and
# is loaded by the installed server; the two must be the same minor release.
[ -x "$PG_CONFIG" ] || die "pg_config not found at $PG_CONFIG"
bindir=$("$PG_CONFIG" --bindir)
postgres_bin="$bindir/postgres"
[ -x "$postgres_bin" ] || die "PostgreSQL server not found at $postgres_bin"

# "PostgreSQL 15.20 (Debian ...)" and "postgres (PostgreSQL) 15.20 (Debian ...)"
first_version() { grep -oE '[0-9]+(\.[0-9]+)+' | head -n 1; }

pg_config_line=$("$PG_CONFIG" --version)
postgres_line=$("$postgres_bin" --version)
pg_config_version=$(printf '%s\n' "$pg_config_line" | first_version)
postgres_version=$(printf '%s\n' "$postgres_line" | first_version)

# pg_config comes from the client package; the headers come from
# postgresql-server-dev, so check them too.
header="$("$PG_CONFIG" --includedir-server)/pg_config.h"
if [ -f "$header" ]; then
	header_line=$(sed -n 's/^#define PG_VERSION "\(.*\)"$/\1/p' "$header")
	header_version=$(printf '%s\n' "$header_line" | first_version)
else
	header_line="(missing)"
	header_version="(missing)"
fi

echo "install-deps: pg_config ($PG_CONFIG): $pg_config_line"
echo "install-deps: server ($postgres_bin): $postgres_line"
echo "install-deps: server headers ($header): PG_VERSION $header_line"

[ -n "$pg_config_version" ] || die "cannot read a version from '$pg_config_line'"
case "$pg_config_version" in
	"$PG_MAJOR".*) ;;
	*) die "pg_config is PostgreSQL $pg_config_version, expected $PG_MAJOR.x" ;;
esac
if [ "$pg_config_version" != "$postgres_version" ]; then
	die "pg_config is $pg_config_version but the server is $postgres_version; upgrade both (apt-get install postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-client-$PG_MAJOR)"
fi
if [ "$header_version" != "$postgres_version" ]; then
	die "server headers are $header_version but the server is $postgres_version; upgrade both (apt-get install postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR)"
fi
echo "install-deps: OK, PostgreSQL $postgres_version everywhere"

#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server for the service's store tests and prints its URL.
# Installs the Debian `postgresql` package if no server binaries are found. The server
# runs from DIR (default target/ci-pg) on PORT (default 55432); stop it with
#   pg_ctl -D DIR stop   (as the user that started it).
set -euo pipefail
dir=$(realpath -m "${1:-target/ci-pg}")
port=${2:-55432}

pg_bin() {
    local ctl
    ctl=$(command -v pg_ctl 2>/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -1 || true)
    [ -n "$ctl" ] && dirname "$(readlink -f "$ctl")"
}
bin=$(pg_bin || true)
if [ ! -x "$bin/pg_ctl" ]; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin=$(pg_bin)
fi

# PostgreSQL refuses to run as root: use the package's `postgres` user then.
as=()
if [ "$(id -u)" = 0 ]; then
    as=(runuser -u postgres --)
fi
rm -rf "$dir"
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
"${as[@]}" "$bin/initdb" -D "$dir/data" -U frugal -A trust >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
"${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U frugal frugal
echo "postgres://frugal@127.0.0.1:$port/frugal"

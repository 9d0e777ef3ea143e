#!/usr/bin/env bash
# A throw-away PostgreSQL server for the service's store tests.
#   scripts/ci-postgres.sh start [DIR] [PORT]   prints the server's URL
#   scripts/ci-postgres.sh stop [DIR]
# DIR defaults to target/ci-pg, PORT to 55432. Installs the Debian `postgresql` package
# if no server binaries are found.
set -euo pipefail
cmd=${1:?start or stop}
dir=$(realpath -m "${2:-target/ci-pg}")
port=${3:-55432}

pg_bin() {
    local ctl
    ctl=$(command -v pg_ctl 2>/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | tail -1 || true)
    [ -n "$ctl" ] && dirname "$(readlink -f "$ctl")"
}
# PostgreSQL refuses to run as root: use the package's `postgres` user then.
as=()
[ "$(id -u)" = 0 ] && as=(runuser -u postgres --)

case $cmd in
stop)
    "${as[@]}" "$(pg_bin)/pg_ctl" -D "$dir/data" stop -m fast >/dev/null
    ;;
start)
    bin=$(pg_bin || true)
    if [ ! -x "$bin/pg_ctl" ]; then
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
        bin=$(pg_bin)
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    "${as[@]}" "$bin/initdb" -D "$dir/data" -U frugal -A trust >/dev/null
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
    "${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U frugal frugal
    echo "postgres://frugal@127.0.0.1:$port/frugal"
    ;;
*)
    echo "usage: $0 start|stop [DIR] [PORT]" >&2
    exit 2
    ;;
esac

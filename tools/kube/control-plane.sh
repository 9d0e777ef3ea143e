#!/usr/bin/env bash
# Starts and stops a real Kubernetes control plane on 127.0.0.1: etcd and kube-apiserver
# (built by build.sh), with a service-account key pair and an administrator token
# generated for this run.
#
#   tools/kube/control-plane.sh start DIR BIN [PORT]   # PORT: the API server's (default 16443)
#   tools/kube/control-plane.sh stop DIR
#   tools/kube/control-plane.sh stop-api DIR           # the API server only (an outage)
#   tools/kube/control-plane.sh start-api DIR          # it again, on the same etcd
#
# `start` writes DIR/server (https://127.0.0.1:PORT), DIR/token (a bearer token of the
# group system:masters), DIR/ca.crt (the API server's serving certificate, self-signed by
# kube-apiserver into DIR/certs for 127.0.0.1) and DIR/kubeconfig; it waits until /readyz
# answers ok (at most 120 s). etcd listens on PORT+1 (clients) and PORT+2 (peers).
# Logs: DIR/*.log.
set -euo pipefail
cmd=${1:?start, stop, stop-api or start-api}
dir=${2:?state folder}

stop_pid() {
    if [ -f "$dir/$1.pid" ]; then
        local pid
        pid=$(cat "$dir/$1.pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        rm -f "$dir/$1.pid"
    fi
}

start_api() {
    # shellcheck disable=SC1091
    . "$dir/settings"
    "$bin/kube-apiserver" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
        --secure-port "$port" --cert-dir "$dir/certs" \
        --etcd-servers "http://127.0.0.1:$((port + 1))" \
        --token-auth-file "$dir/tokens.csv" --authorization-mode RBAC \
        --service-account-issuer "https://127.0.0.1:$port" \
        --service-account-key-file "$dir/sa.pub" \
        --service-account-signing-key-file "$dir/sa.key" \
        --service-cluster-ip-range 10.96.0.0/24 \
        --disable-admission-plugins ServiceAccount \
        --endpoint-reconciler-type none \
        >>"$dir/kube-apiserver.log" 2>&1 &
    echo $! >"$dir/kube-apiserver.pid"
    local token
    token=$(cat "$dir/token")
    for _ in $(seq 240); do
        if [ "$(curl -sk -H "Authorization: Bearer $token" "https://127.0.0.1:$port/readyz" 2>/dev/null)" = ok ]; then
            return 0
        fi
        if ! kill -0 "$(cat "$dir/kube-apiserver.pid")" 2>/dev/null; then
            break
        fi
        sleep 0.5
    done
    echo "kube-apiserver not ready; last lines of its log:" >&2
    tail -20 "$dir/kube-apiserver.log" >&2
    return 1
}

case "$cmd" in
start)
    bin=$(cd "${3:?folder with kube-apiserver and etcd}" && pwd)
    port=${4:-16443}
    mkdir -p "$dir/certs" "$dir/etcd"
    dir=$(cd "$dir" && pwd)
    printf 'bin=%q\nport=%q\n' "$bin" "$port" >"$dir/settings"
    openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null
    openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null
    token=$(openssl rand -hex 24)
    echo "$token,frugal-admin,frugal-admin,system:masters" >"$dir/tokens.csv"
    printf %s "$token" >"$dir/token"  # no newline: clients send the file as it is
    chmod 600 "$dir/token" "$dir/tokens.csv" "$dir/sa.key"
    "$bin/etcd" --name frugal --data-dir "$dir/etcd" \
        --listen-client-urls "http://127.0.0.1:$((port + 1))" \
        --advertise-client-urls "http://127.0.0.1:$((port + 1))" \
        --listen-peer-urls "http://127.0.0.1:$((port + 2))" \
        --initial-advertise-peer-urls "http://127.0.0.1:$((port + 2))" \
        --initial-cluster "frugal=http://127.0.0.1:$((port + 2))" \
        --unsafe-no-fsync >"$dir/etcd.log" 2>&1 &
    echo $! >"$dir/etcd.pid"
    if ! start_api; then
        "$0" stop "$dir"
        exit 1
    fi
    echo "https://127.0.0.1:$port" >"$dir/server"
    cp "$dir/certs/apiserver.crt" "$dir/ca.crt"
    cat >"$dir/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: frugal
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority: $dir/ca.crt
users:
- name: frugal-admin
  user:
    token: $token
contexts:
- name: frugal
  context: {cluster: frugal, user: frugal-admin}
current-context: frugal
YAML
    ;;
stop)
    stop_pid kube-apiserver
    stop_pid etcd
    ;;
stop-api)
    stop_pid kube-apiserver
    ;;
start-api)
    dir=$(cd "$dir" && pwd)
    start_api
    ;;
*)
    echo "usage: $0 start DIR BIN [PORT] | stop DIR | stop-api DIR | start-api DIR" >&2
    exit 2
    ;;
esac

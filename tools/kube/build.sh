#!/usr/bin/env bash
# Builds a real Kubernetes control plane from its Go modules at the versions pinned in this
# folder's go.mod/go.sum: kube-apiserver (k8s.io/kubernetes) and etcd
# (go.etcd.io/etcd/server/v3), into OUT (default: ./bin). Nothing is downloaded but
# modules from the Go module proxy; no binary is committed.
#
#   tools/kube/build.sh [OUT]
#
# k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/apiserver, …) at
# ./staging with `replace` directives, which a dependent module does not inherit: go.mod
# replaces each with its published v0.x version instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/bin}" && cd "${1:-$here/bin}" && pwd)
cd "$here"
export CGO_ENABLED=0
# The version kube-apiserver reports (/version), as the upstream release build stamps it.
ver=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
minor=$(echo "$ver" | cut -d. -f2)
pkg=k8s.io/component-base/version
go build -trimpath -ldflags "-X $pkg.gitVersion=$ver -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" \
    -o "$out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3
"$out/kube-apiserver" --version
"$out/etcd" --version | sed -n 1p  # not head: etcd would die of SIGPIPE under pipefail

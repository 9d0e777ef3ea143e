//! frugal-kube's integration tests, one module per behaviour, against a real
//! kube-apiserver with etcd, built from their Go modules by `tools/kube/build.sh` into
//! `$FRUGAL_KUBE_BIN` (`.ci/run`'s `kube` stage does both). Every test here is ignored by
//! default and fails, rather than passes, without the parts it needs.

mod api_server;
mod common;
mod spark_on_kube;

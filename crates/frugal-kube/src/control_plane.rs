//! A real Kubernetes control plane (kube-apiserver and etcd, built from their Go modules
//! by `tools/kube/build.sh`) on 127.0.0.1, for tests and local runs: started by
//! `tools/kube/control-plane.sh`, stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The environment variable naming the folder with `kube-apiserver` and `etcd`.
pub const BIN_ENV: &str = "FRUGAL_KUBE_BIN";

/// A running control plane; stopped on drop.
pub struct ControlPlane {
    dir: PathBuf,
    script: PathBuf,
    port: u16,
}

impl ControlPlane {
    /// Starts one in `dir` (created) with the binaries in `$FRUGAL_KUBE_BIN`, the API
    /// server on `port` (etcd on the next two ports).
    ///
    /// # Errors
    /// If `FRUGAL_KUBE_BIN` is unset or lacks a binary, or the server is not ready in
    /// 120 s (the error carries the end of its log).
    pub fn start(dir: &Path, port: u16) -> Result<ControlPlane> {
        let bin = std::env::var_os(BIN_ENV).with_context(|| {
            format!(
                "{BIN_ENV} is not set: build kube-apiserver and etcd with tools/kube/build.sh DIR and set {BIN_ENV}=DIR"
            )
        })?;
        let bin = PathBuf::from(bin);
        for b in ["kube-apiserver", "etcd"] {
            if !bin.join(b).is_file() {
                bail!(
                    "{BIN_ENV}={} has no {b}: run tools/kube/build.sh there",
                    bin.display()
                );
            }
        }
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/kube/control-plane.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg("start")
            .arg(dir)
            .arg(&bin)
            .arg(port.to_string())
            .output()
            .with_context(|| format!("running {}", script.display()))?;
        if !out.status.success() {
            bail!(
                "the control plane did not start: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(ControlPlane {
            dir: dir.to_path_buf(),
            script,
            port,
        })
    }

    /// The API server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The kubeconfig file (an administrator's token, the server's certificate).
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }

    /// A client for it.
    ///
    /// # Errors
    /// If the kubeconfig cannot be read or used.
    pub async fn client(&self) -> Result<kube::Client> {
        client_from(&self.kubeconfig()).await
    }

    /// Stops the API server only (etcd keeps the state), as an outage would.
    ///
    /// # Errors
    /// If the script fails.
    pub fn stop_api_server(&self) -> Result<()> {
        self.script_cmd("stop-api")
    }

    /// Starts the API server again on the same etcd and waits until it is ready.
    ///
    /// # Errors
    /// If it does not become ready (the error carries the end of its log).
    pub fn start_api_server(&self) -> Result<()> {
        self.script_cmd("start-api")
    }

    fn script_cmd(&self, cmd: &str) -> Result<()> {
        let out = Command::new("bash")
            .arg(&self.script)
            .arg(cmd)
            .arg(&self.dir)
            .output()
            .with_context(|| format!("running {}", self.script.display()))?;
        if !out.status.success() {
            bail!(
                "control-plane.sh {cmd}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(())
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.script)
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// A client from the kubeconfig file at `path`.
///
/// # Errors
/// If the file cannot be read or its cluster, user or certificate cannot be used.
pub async fn client_from(path: &Path) -> Result<kube::Client> {
    let kc = kube::config::Kubeconfig::read_from(path)
        .with_context(|| format!("reading the kubeconfig {}", path.display()))?;
    let cfg = kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
        .await
        .with_context(|| format!("using the kubeconfig {}", path.display()))?;
    kube::Client::try_from(cfg).context("building the Kubernetes client")
}

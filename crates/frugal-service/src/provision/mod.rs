//! Provisioners power the hosts of VMs on and off. Powering a VM on means: the machine
//! exists, has its address, and runs a node agent (`frugal agent`) that heartbeats to the
//! service; powering it off means the agent, its workers and the machine are gone.
//!
//! Three implementations: [`Loopback`] (every VM a loopback address of this machine, its
//! agent a local process), [`Netns`] (every VM a Linux network namespace with its own
//! address on a bridge — real TCP between hosts) and, with the `ec2` feature, [`ec2::Ec2`]
//! (every VM an EC2 instance, on demand or spot). How other clouds (OpenStack,
//! Kubernetes) plug in is in `docs/book/src/service/deployment.md`.
//!
//! Power changes are *level-triggered*: each VM has a worker thread that makes the host
//! match the newest requested state, so an off followed at once by an on (a VM freed and
//! reused at one instant) costs nothing and the two can never run out of order.

pub mod ec2;
mod loopback;
mod netns;
pub mod testbed;

use frugal_core::spec::ConfigFile;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex};

use frugal_core::cluster::VmId;

use crate::agent::{AgentSpec, Runtime};
use crate::process::{alive, read_pid, spawn_group, stop_group, stop_pid_file};

pub use loopback::Loopback;
pub use netns::{Netns, check_prefix, on_subnet};
pub use testbed::Testbed;

/// Errors of a provisioner.
#[derive(Debug, thiserror::Error)]
pub enum ProvisionError {
    /// A command or file operation failed.
    #[error("provisioner: {0}")]
    Failed(String),
}

/// Turns the hosts of VMs on and off. Implementations may block (they run on the VM's
/// own power thread, see [`PowerQueue`]).
pub trait Provisioner: Send + Sync {
    /// Name for logs (`loopback`, `netns`).
    fn name(&self) -> &'static str;
    /// The control node's address: the Spark master and the drivers bind to it and the
    /// agents reach the service on it.
    fn control_address(&self) -> Ipv4Addr;
    /// The address of VM `vm`'s host.
    fn address(&self, vm: VmId) -> Ipv4Addr;
    /// Makes VM `vm`'s host exist and run its agent (nothing if it already does).
    ///
    /// # Errors
    /// [`ProvisionError`] with the failing command's message.
    fn power_on(&self, vm: VmId) -> Result<(), ProvisionError>;
    /// Stops VM `vm`'s agent and everything on its host, and removes the host.
    ///
    /// # Errors
    /// [`ProvisionError`] with the failing command's message.
    fn power_off(&self, vm: VmId) -> Result<(), ProvisionError>;
    /// Removes what the provisioner set up for all VMs (a bridge, say) once they are
    /// off.
    fn teardown(&self) {}
    /// Makes the provider's machines match the service's VMs, `on` telling which VMs the
    /// service has on: what a cloud runs and the service does not expect is adopted or
    /// removed (see [`ec2`] for the rule). Called at start, once the service has restored
    /// its state, and every [`RECONCILE_INTERVAL_S`]. Nothing to do for local hosts.
    ///
    /// # Errors
    /// [`ProvisionError`] with the provider's reason (retried at the next call).
    fn reconcile(&self, _on: &dyn Fn(VmId) -> bool) -> Result<(), ProvisionError> {
        Ok(())
    }
}

/// Seconds between two reconciliations of the provider's machines with the service's VMs.
pub const RECONCILE_INTERVAL_S: u64 = 60;

/// Spot launches refused for capacity or price since the start (each placed elsewhere by
/// the policy): `frugal_spot_fallbacks_total`.
pub static SPOT_FALLBACKS: AtomicU64 = AtomicU64::new(0);

/// How to start a node agent on a host (what every provisioner here needs).
#[derive(Clone, Debug)]
pub struct AgentLaunch {
    /// The `frugal` executable.
    pub frugal: PathBuf,
    /// File holding the agent token (passed by path: not visible in `ps`).
    pub token_file: PathBuf,
    /// The service URL as the hosts reach it.
    pub service_url: String,
    /// What the agents run as reservation workers.
    pub runtime: Runtime,
    /// `vm<k>/` in it holds VM `k`'s agent's PID file, log and workers.
    pub hosts_dir: PathBuf,
    /// Tag making the host ids of this cluster unique on the machine (see
    /// [`AgentLaunch::host_id`]).
    pub cluster_tag: String,
}

impl AgentLaunch {
    /// The TCP port of [`AgentLaunch::service_url`] (80 if it names none).
    pub fn service_port(&self) -> u16 {
        self.service_url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(80)
    }

    /// The settings of VM `vm`'s agent at `address` (its workers each capped at
    /// `worker_core_share` of a physical core per core, on testbeds).
    pub fn spec(&self, vm: VmId, address: Ipv4Addr, worker_core_share: Option<f64>) -> AgentSpec {
        AgentSpec {
            service: Some(self.service_url.clone()),
            token_file: Some(self.token_file.clone()),
            host_id: Some(self.host_id(vm)),
            vm: vec![format!("{vm}={address}")],
            work_dir: Some(self.host_dir(vm)),
            worker_core_share,
            ..AgentSpec::default()
        }
        .running(&self.runtime)
    }

    /// Starts VM `vm`'s agent (through `wrapper`, e.g. `ip netns exec <ns>`, if it is not
    /// empty) unless its PID file names a live process: its settings are written to
    /// `vm<k>/agent.toml` and it runs `frugal agent --config` on that file.
    fn start(
        &self,
        wrapper: &[&str],
        worker_core_share: Option<f64>,
        vm: VmId,
        address: Ipv4Addr,
    ) -> Result<(), ProvisionError> {
        let dir = self.host_dir(vm);
        let pid_file = dir.join("agent.pid");
        if read_pid(&pid_file).is_some_and(alive) {
            return Ok(());
        }
        let failed = |e: std::io::Error| ProvisionError::Failed(format!("{}: {e}", dir.display()));
        std::fs::create_dir_all(&dir).map_err(failed)?;
        let config = dir.join("agent.toml");
        let spec = self.spec(vm, address, worker_core_share);
        std::fs::write(&config, spec.to_toml()).map_err(failed)?;
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(&self.frugal);
                c
            }
            None => Command::new(&self.frugal),
        };
        cmd.arg("agent").arg("--config").arg(&config);
        spawn_group(&mut cmd, &dir.join("agent.log"), &pid_file, None).map_err(failed)?;
        Ok(())
    }

    /// Stops VM `vm`'s agent (which stops its workers) and then, by their marker, any
    /// workers an agent killed outright left behind.
    fn stop(&self, vm: VmId) {
        stop_pid_file(&self.host_dir(vm).join("agent.pid"), 5000);
        for pid in crate::agent::worker::running(&self.host_id(vm)).into_values() {
            stop_group(pid, 1000);
        }
    }

    /// VM `vm`'s directory.
    fn host_dir(&self, vm: VmId) -> PathBuf {
        self.hosts_dir.join(format!("vm{vm}"))
    }

    /// The host id of VM `vm` (one VM per host here): `<cluster tag>-vm<k>`. The hosts
    /// of every cluster on this machine share one process table, and an agent finds
    /// (and a power-off kills) its workers by a marker holding the host id, so two
    /// clusters' ids must differ.
    pub fn host_id(&self, vm: VmId) -> String {
        format!("{}-vm{vm}", self.cluster_tag)
    }
}

/// Runs `ip` with `args`; an error carries its stderr.
pub(crate) fn ip(args: &[&str]) -> Result<(), ProvisionError> {
    run("ip", args)
}

/// Runs `program` with `args`; an error names the command line and carries its stderr.
pub(crate) fn run(program: &str, args: &[&str]) -> Result<(), ProvisionError> {
    let line = format!("{program} {}", args.join(" "));
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| ProvisionError::Failed(format!("{line}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ProvisionError::Failed(format!(
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// One power thread per VM, each making its host match the newest requested state.
pub struct PowerQueue {
    slots: Vec<Arc<(Mutex<Option<bool>>, Condvar)>>,
}

/// What a power queue does with a power-on that failed: called with the VM and why.
pub type OnFailure = Arc<dyn Fn(VmId, String) + Send + Sync>;

impl PowerQueue {
    /// Starts the threads for `vms` VMs over `p`. A failed power-on is logged and handed
    /// to `failed` (the service handles the VM as lost at once, rather than after the boot
    /// timeout); a failed power-off is logged (a cloud's reconciliation removes what is
    /// left).
    pub fn new(p: Arc<dyn Provisioner>, vms: usize, failed: OnFailure) -> PowerQueue {
        let slots: Vec<_> = (0..vms)
            .map(|_| Arc::new((Mutex::new(None::<bool>), Condvar::new())))
            .collect();
        for (vm, slot) in slots.iter().enumerate() {
            let (slot, p, failed) = (Arc::clone(slot), Arc::clone(&p), Arc::clone(&failed));
            let vm = vm as VmId;
            std::thread::spawn(move || {
                let mut on = None;
                loop {
                    let want = {
                        let (m, cv) = &*slot;
                        let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
                        while g.is_none() || *g == on {
                            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                        }
                        g.expect("set")
                    };
                    let done = if want {
                        p.power_on(vm)
                    } else {
                        p.power_off(vm)
                    };
                    match done {
                        Ok(()) => tracing::info!(
                            vm,
                            on = want,
                            provisioner = p.name(),
                            "VM power changed"
                        ),
                        Err(e) => {
                            tracing::error!(vm, on = want, error = %e, "VM power change failed");
                            if want {
                                failed(vm, e.to_string());
                            }
                        }
                    }
                    on = Some(want);
                }
            });
        }
        PowerQueue { slots }
    }

    /// Asks for VM `vm` on (`true`) or off; returns at once.
    pub fn set(&self, vm: VmId, on: bool) {
        if let Some(slot) = self.slots.get(vm as usize) {
            let (m, cv) = &**slot;
            *m.lock().unwrap_or_else(|e| e.into_inner()) = Some(on);
            cv.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_port_comes_from_the_url() {
        let launch = |url: &str| AgentLaunch {
            frugal: PathBuf::from("frugal"),
            token_file: PathBuf::from("t"),
            service_url: url.into(),
            runtime: Runtime::Emulated,
            hosts_dir: PathBuf::from("h"),
            cluster_tag: "c".into(),
        };
        assert_eq!(launch("http://10.78.41.1:18000").service_port(), 18000);
        assert_eq!(launch("http://10.0.0.1:8080/").service_port(), 8080);
        assert_eq!(launch("http://example").service_port(), 80);
    }
}

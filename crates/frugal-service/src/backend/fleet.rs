//! The hosts of a backend's VMs, as one piece both backends share: a [`Provisioner`]
//! powers each VM's host on and off (through a [`PowerQueue`]), the host's node agent
//! heartbeats, and the [`Hosts`] registry answers each heartbeat with the host's orders
//! and turns silence into [`BackendEvent::VmLost`] (checked every
//! [`CHECK_INTERVAL_MS`]). The Spark backend's workers are Spark standalone workers;
//! the emulated backend's are placeholders ([`Runtime::Emulated`]), so its runs go
//! through the same protocol and the same failure handling.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use frugal_core::cluster::VmId;

use super::hosts::{HostTimeouts, Hosts};
use super::{BackendEvent, Launch};
use crate::agent::Runtime;
use crate::agent::protocol::{Heartbeat, Orders, WorkerOrder};
use crate::provision::ec2::Ec2Settings;
use crate::provision::{
    AgentLaunch, Loopback, Netns, PowerQueue, ProvisionError, Provisioner, RECONCILE_INTERVAL_S,
    Testbed, on_subnet,
};

/// Milliseconds between two checks for silent hosts.
pub const CHECK_INTERVAL_MS: u64 = 500;

/// How the VMs' hosts are provisioned.
#[derive(Clone, Debug, PartialEq)]
pub enum ProvisionerKind {
    /// VM `k` is `127.0.0.{k+2}` on this machine.
    Loopback,
    /// VM `k` is network namespace `<prefix>-vm{k}` at `a.b.c.{k+2}` on a bridge whose
    /// address `a.b.c.1` is the control node's (root needed).
    Netns {
        /// Names' prefix (1–8 letters or digits).
        prefix: String,
        /// The /24 subnet `a.b.c.0`.
        subnet: Ipv4Addr,
        /// Two sites, rate-limited links and per-VM cgroups (`--testbed`).
        testbed: Option<Testbed>,
    },
    /// VM `k` is an EC2 instance whose user data starts its agent (the `ec2` feature).
    Ec2 {
        /// Where, what and how to launch.
        settings: Box<Ec2Settings>,
        /// The agents' token, written into the user data.
        agent_token: String,
        /// The control node's address (the Spark master and drivers bind to it).
        control: Ipv4Addr,
    },
}

impl ProvisionerKind {
    /// The control node's address: the master, the drivers, and where agents call the
    /// service (`127.0.0.1`, or `.1` of the netns subnet).
    pub fn control_address(&self) -> Ipv4Addr {
        match self {
            ProvisionerKind::Loopback => Ipv4Addr::LOCALHOST,
            ProvisionerKind::Netns { subnet, .. } => on_subnet(*subnet, 1),
            ProvisionerKind::Ec2 { control, .. } => *control,
        }
    }
}

/// The hosts: provisioner, agents and their timeouts.
#[derive(Clone, Debug)]
pub struct HostsConfig {
    /// The provisioner.
    pub provisioner: ProvisionerKind,
    /// The `frugal` executable the provisioner starts agents with.
    pub frugal: PathBuf,
    /// File with the agent token, read by the agents it starts.
    pub agent_token_file: PathBuf,
    /// Port of the service's API, which agents reach on the control address.
    pub service_port: u16,
    /// Directory whose `vm<k>/` holds VM `k`'s agent's PID file, log and workers (the
    /// hosts here share this machine's disk).
    pub hosts_dir: PathBuf,
    /// When hosts and workers count as lost.
    pub timeouts: HostTimeouts,
}

impl HostsConfig {
    /// What makes this cluster's host ids unique on the machine: the namespace prefix,
    /// or for loopback hosts the service's port (no two services on one machine share
    /// it, and a restarted service keeps it, so it finds its hosts again).
    fn cluster_tag(&self) -> String {
        match &self.provisioner {
            ProvisionerKind::Loopback => format!("lo{}", self.service_port),
            ProvisionerKind::Netns { prefix, .. } => prefix.clone(),
            ProvisionerKind::Ec2 { settings, .. } => settings.cluster.clone(),
        }
    }
}

/// A backend's VMs and their hosts.
pub struct HostFleet {
    hosts: Hosts,
    provisioner: Arc<dyn Provisioner>,
    power: PowerQueue,
    vms: usize,
    events: UnboundedSender<BackendEvent>,
}

impl HostFleet {
    /// Sets up the provisioner for `vms` VMs whose agents run `runtime` workers, and
    /// starts checking for lost hosts (until the fleet is dropped); events go to
    /// `events`.
    ///
    /// # Errors
    /// [`ProvisionError`] for more than 253 VMs (one /24) or a provisioner that cannot
    /// be set up.
    pub fn start(
        cfg: &HostsConfig,
        runtime: Runtime,
        vms: usize,
        events: UnboundedSender<BackendEvent>,
    ) -> Result<Arc<HostFleet>, ProvisionError> {
        if vms > 253 {
            return Err(ProvisionError::Failed(format!(
                "{vms} VMs: at most 253 addresses fit in one /24 (…2 to …254)"
            )));
        }
        let launch = AgentLaunch {
            frugal: cfg.frugal.clone(),
            token_file: cfg.agent_token_file.clone(),
            service_url: format!(
                "http://{}:{}",
                cfg.provisioner.control_address(),
                cfg.service_port
            ),
            runtime,
            hosts_dir: cfg.hosts_dir.clone(),
            cluster_tag: cfg.cluster_tag(),
        };
        let provisioner: Arc<dyn Provisioner> = match &cfg.provisioner {
            ProvisionerKind::Loopback => Arc::new(Loopback::new(launch)),
            ProvisionerKind::Netns {
                prefix,
                subnet,
                testbed,
            } => Arc::new(Netns::new(prefix, *subnet, Some(launch), testbed.clone())?),
            ProvisionerKind::Ec2 {
                settings,
                agent_token,
                ..
            } => ec2(settings, agent_token, launch.runtime, vms)?,
        };
        let lost = events.clone();
        let failed = Arc::new(move |vm: VmId, why: String| {
            let _ = lost.send(BackendEvent::PowerOnFailed {
                vm,
                reason: format!("power-on failed: {why}"),
            });
        });
        let fleet = Arc::new(HostFleet {
            hosts: Hosts::new(cfg.timeouts),
            power: PowerQueue::new(Arc::clone(&provisioner), vms, failed),
            provisioner,
            vms,
            events,
        });
        let weak = Arc::downgrade(&fleet);
        std::thread::spawn(move || check_hosts(&weak));
        Ok(fleet)
    }

    /// The control node's address.
    pub fn control_address(&self) -> Ipv4Addr {
        self.provisioner.control_address()
    }

    /// The VM whose workers bind to `ip` (for the executors the drivers report): as its
    /// agent reports it in its heartbeats (the only source on a cloud, where addresses are
    /// known once instances run), else as the provisioner assigns it.
    pub fn vm_at(&self, ip: Ipv4Addr) -> Option<VmId> {
        self.hosts
            .vm_at(ip)
            .or_else(|| (0..self.vms as VmId).find(|&vm| self.provisioner.address(vm) == ip))
    }

    /// Provisions the VM's host (it then has the boot timeout to heartbeat).
    pub fn power_on(&self, vm: VmId) {
        self.hosts.vm_on(vm);
        self.power.set(vm, true);
    }

    /// Drops the VM's orders and removes its host (agent, workers, machine).
    pub fn power_off(&self, vm: VmId) {
        self.hosts.vm_off(vm);
        self.power.set(vm, false);
    }

    /// Orders `job`'s reservation workers, one per VM of its placement, each sized to
    /// the executors it takes there and registering with `master_url` (empty for
    /// placeholders).
    pub fn order(&self, job: &Launch, master_url: &str) {
        let s = &job.submission;
        let orders = job
            .placement
            .executors_per_vm
            .iter()
            .map(|&(vm, n)| WorkerOrder {
                name: String::new(),
                vm,
                resource: s.id.clone(),
                executors: n,
                cores: n * s.executor_cores,
                memory_mib: u64::from(n) * job.executor_mib(),
                master_url: master_url.to_string(),
            })
            .collect();
        self.hosts.order(&s.id, job.idx, orders);
    }

    /// Job `job` was re-attached after a restart: its VMs are expected up and its
    /// running workers are adopted.
    pub fn reattach(&self, job: &Launch) {
        let vms = job.placement.executors_per_vm.iter().map(|p| p.0);
        self.hosts.reattach(&job.submission.id, job.idx, vms);
    }

    /// Job `id` ended or was stopped: its workers are no longer ordered.
    pub fn forget(&self, id: &str) {
        self.hosts.forget(id);
    }

    /// Every running job has been offered for re-attachment: heartbeats get orders, and
    /// the provisioner reconciles the provider's machines with the VMs now and every
    /// [`RECONCILE_INTERVAL_S`] (until the fleet is dropped).
    pub fn restored(self: &Arc<Self>) {
        self.hosts.restored();
        let weak = Arc::downgrade(self);
        std::thread::spawn(move || reconcile(&weak));
    }

    /// Executors per VM of job `id`'s workers that their agents have reported running
    /// (`None` while one is an adopted worker of unknown size).
    pub fn observed(&self, id: &str) -> Option<Vec<(VmId, u32)>> {
        self.hosts.observed(id)
    }

    /// Answers a heartbeat, sending the events it reveals; `None` if it names a VM
    /// outside the cluster.
    pub fn heartbeat(&self, hb: &Heartbeat) -> Option<Orders> {
        if hb.vms.iter().any(|v| v.id as usize >= self.vms) {
            return None;
        }
        let (orders, events) = self.hosts.heartbeat(hb);
        for ev in events {
            let _ = self.events.send(ev);
        }
        Some(orders)
    }

    /// Powers every host off (in parallel) and removes what the provisioner set up.
    pub fn shutdown(&self) {
        let p = &self.provisioner;
        std::thread::scope(|s| {
            for vm in 0..self.vms as VmId {
                s.spawn(move || p.power_off(vm));
            }
        });
        p.teardown();
    }
}

/// The provisioner built with the `ec2` feature, or an error naming it.
#[cfg(feature = "ec2")]
fn ec2(
    settings: &Ec2Settings,
    agent_token: &str,
    runtime: Runtime,
    vms: usize,
) -> Result<Arc<dyn Provisioner>, ProvisionError> {
    if settings.vms.len() != vms {
        return Err(ProvisionError::Failed(format!(
            "ec2: {} VM settings for {vms} VMs",
            settings.vms.len()
        )));
    }
    Ok(Arc::new(crate::provision::ec2::Ec2::connect(
        settings.clone(),
        agent_token.to_string(),
        runtime,
    )?))
}

#[cfg(not(feature = "ec2"))]
fn ec2(
    _: &Ec2Settings,
    _: &str,
    _: Runtime,
    _: usize,
) -> Result<Arc<dyn Provisioner>, ProvisionError> {
    Err(ProvisionError::Failed(
        "this frugal was built without EC2 support: build it with `--features ec2`".into(),
    ))
}

/// Reconciles the provider's machines with the VMs at once and then every
/// [`RECONCILE_INTERVAL_S`], until the fleet is dropped.
fn reconcile(fleet: &Weak<HostFleet>) {
    loop {
        {
            let Some(fleet) = fleet.upgrade() else {
                return;
            };
            let on = |vm: VmId| fleet.hosts.is_on(vm);
            if let Err(e) = fleet.provisioner.reconcile(&on) {
                tracing::error!(error = %e, "reconciling the VMs' machines failed; retrying later");
            }
        }
        std::thread::sleep(Duration::from_secs(RECONCILE_INTERVAL_S));
    }
}

/// Every [`CHECK_INTERVAL_MS`] until the fleet is dropped: reports the VMs found lost.
fn check_hosts(fleet: &Weak<HostFleet>) {
    loop {
        std::thread::sleep(Duration::from_millis(CHECK_INTERVAL_MS));
        let Some(fleet) = fleet.upgrade() else {
            return;
        };
        for (vm, reason) in fleet.hosts.check() {
            tracing::warn!(vm, reason = %reason, "VM lost");
            let _ = fleet.events.send(BackendEvent::VmLost { vm, reason });
        }
    }
}

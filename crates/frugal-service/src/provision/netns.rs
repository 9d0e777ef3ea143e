//! The network-namespace provisioner: every VM is a Linux network namespace — its own
//! interfaces, routes and address — joined to the control node by a bridge, so Spark's
//! processes on different "hosts" talk real TCP over real links, as on separate
//! machines. Needs root (CAP_NET_ADMIN) and iproute2.
//!
//! Layout for prefix `P` and subnet `a.b.c.0/24`: the bridge `Pbr` with the control
//! address `a.b.c.1` in the service's own namespace; VM `k` is namespace `P-vm{k}`,
//! whose `eth0` (address `a.b.c.{k+2}`) is the peer of `Pv{k}` on the bridge. Power on
//! creates the namespace and link and starts the agent inside; power off stops the
//! agent, kills whatever still runs in the namespace and deletes it (the link goes
//! with it). Taking `Pv{k}` down is a network partition of VM `k`.
//!
//! With a [`Testbed`], the cloud site's VMs sit on a second bridge joined to the first by
//! a rate-limited link, every VM's link is rate-limited, and each VM's processes run in
//! cgroups sized to its instance type ([`super::testbed`]).

use std::net::Ipv4Addr;
use std::process::Command;

use frugal_core::cluster::VmId;

use frugal_core::cluster::Site;

use super::testbed::{Testbed, remove_cgroups};
use super::{AgentLaunch, ProvisionError, Provisioner, ip};

/// Host `last` (1 = the control node, `k + 2` = VM `k`) of the /24 `subnet`.
pub fn on_subnet(subnet: Ipv4Addr, last: u8) -> Ipv4Addr {
    let [a, b, c, _] = subnet.octets();
    Ipv4Addr::new(a, b, c, last)
}

/// Longest prefix: interface names must fit Linux's 15 bytes (`Pv253`).
pub const MAX_PREFIX: usize = 8;

/// Checks a prefix of namespace, link and bridge names: 1–[`MAX_PREFIX`] ASCII letters
/// or digits.
///
/// # Errors
/// A message naming the prefix and the rule.
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.is_empty()
        || prefix.len() > MAX_PREFIX
        || !prefix.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(format!(
            "{prefix:?}: use 1–{MAX_PREFIX} ASCII letters or digits"
        ));
    }
    Ok(())
}

/// VMs as network namespaces on a bridge (at most 253).
pub struct Netns {
    prefix: String,
    subnet: Ipv4Addr,
    /// The node agent each host runs (none: the hosts run what their user starts in
    /// them, as the Kubernetes face's kubelet does).
    agents: Option<AgentLaunch>,
    testbed: Option<Testbed>,
}

impl Netns {
    /// Sets up the bridge (if missing) for namespaces named after `prefix` on the /24
    /// `subnet` (its last octet is ignored), and with `testbed` the cloud site's bridge
    /// and the link between the sites; with `testbed` this process (the service) moves
    /// into the testbed's control-plane groups ([`Testbed::enter_control_plane`]).
    ///
    /// # Errors
    /// [`ProvisionError`] for a bad prefix or testbed, or if the bridges cannot be made
    /// (not root?).
    pub fn new(
        prefix: &str,
        subnet: Ipv4Addr,
        agents: Option<AgentLaunch>,
        testbed: Option<Testbed>,
    ) -> Result<Netns, ProvisionError> {
        check_prefix(prefix).map_err(|e| ProvisionError::Failed(format!("--netns-prefix {e}")))?;
        if let Some(t) = &testbed {
            t.check()?;
            t.enter_control_plane(prefix)?;
        }
        let n = Netns {
            prefix: prefix.to_string(),
            subnet,
            agents,
            testbed,
        };
        let br = n.bridge();
        if !exists(&["link", "show", &br]) {
            ip(&["link", "add", &br, "type", "bridge"]).map_err(|e| {
                ProvisionError::Failed(format!("{e} (the netns provisioner needs root)"))
            })?;
            ip(&[
                "addr",
                "add",
                &format!("{}/24", n.control_address()),
                "dev",
                &br,
            ])?;
        }
        ip(&["link", "set", &br, "up"])?;
        if let Some(t) = &n.testbed {
            t.link_sites(prefix, &br, n.service_port())?;
        }
        Ok(n)
    }

    /// The service's port that rate limits leave alone (0 without agents).
    fn service_port(&self) -> u16 {
        self.agents.as_ref().map_or(0, AgentLaunch::service_port)
    }

    /// The command prefix that runs a program on VM `vm`'s host.
    pub fn wrapper(&self, vm: VmId) -> Vec<String> {
        ["ip", "netns", "exec", &self.namespace(vm)]
            .map(String::from)
            .to_vec()
    }

    fn bridge(&self) -> String {
        format!("{}br", self.prefix)
    }

    /// The bridge of VM `vm`'s site: the cloud site's own with a testbed.
    fn bridge_of(&self, vm: VmId) -> String {
        match &self.testbed {
            Some(t) if t.site(vm) == Site::Cloud => format!("{}cb", self.prefix),
            _ => self.bridge(),
        }
    }

    /// The namespace of VM `vm`.
    pub fn namespace(&self, vm: VmId) -> String {
        format!("{}-vm{vm}", self.prefix)
    }

    /// The bridge side of VM `vm`'s link (down = VM `vm` partitioned).
    pub fn link(&self, vm: VmId) -> String {
        format!("{}v{vm}", self.prefix)
    }
}

/// Sends SIGKILL to every process in network namespace `ns`.
pub(crate) fn kill_in_namespace(ns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .for_each(crate::process::kill_listed);
    }
}

/// True if `ip args` succeeds (the object exists).
fn exists(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Provisioner for Netns {
    fn name(&self) -> &'static str {
        "netns"
    }

    fn control_address(&self) -> Ipv4Addr {
        on_subnet(self.subnet, 1)
    }

    /// `a.b.c.{vm+2}`.
    fn address(&self, vm: VmId) -> Ipv4Addr {
        on_subnet(self.subnet, u8::try_from(vm + 2).unwrap_or(u8::MAX))
    }

    fn power_on(&self, vm: VmId) -> Result<(), ProvisionError> {
        let (ns, link) = (self.namespace(vm), self.link(vm));
        if !exists(&["netns", "exec", &ns, "true"]) {
            ip(&["netns", "add", &ns])?;
        }
        if !exists(&["link", "show", &link]) {
            ip(&[
                "link", "add", &link, "type", "veth", "peer", "name", "eth0", "netns", &ns,
            ])?;
            ip(&["link", "set", &link, "master", &self.bridge_of(vm), "up"])?;
            let cidr = format!("{}/24", self.address(vm));
            ip(&["-n", &ns, "addr", "add", &cidr, "dev", "eth0"])?;
            ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
            if let Some(t) = &self.testbed {
                let port = self.service_port();
                Testbed::shape(None, &link, t.in_site_mbit, port)?;
                Testbed::shape(Some(&ns), "eth0", t.in_site_mbit, port)?;
            }
        }
        let Some(agents) = &self.agents else {
            return Ok(());
        };
        let (wrapper, agent) = match &self.testbed {
            Some(t) => t.enter(&self.prefix, vm, &ns)?,
            None => (self.wrapper(vm), None),
        };
        let wrapper: Vec<&str> = wrapper.iter().map(String::as_str).collect();
        agents.start(&wrapper, agent, vm, self.address(vm))
    }

    fn power_off(&self, vm: VmId) -> Result<(), ProvisionError> {
        let ns = self.namespace(vm);
        if let Some(agents) = &self.agents {
            agents.stop(vm);
        }
        kill_in_namespace(&ns);
        if exists(&["netns", "exec", &ns, "true"]) {
            ip(&["netns", "del", &ns])?;
        }
        if exists(&["link", "show", &self.link(vm)]) {
            ip(&["link", "del", &self.link(vm)])?;
        }
        if self.testbed.is_some() {
            remove_cgroups(&self.prefix, vm);
        }
        Ok(())
    }

    fn teardown(&self) {
        if self.testbed.is_some() {
            super::testbed::purge(&self.prefix);
        } else {
            let _ = ip(&["link", "del", &self.bridge()]);
        }
    }
}

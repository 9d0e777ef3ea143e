//! The single-machine provisioner: VM `k` is the loopback address `127.0.0.{k+2}` of
//! this machine and its agent a local process; `127.0.0.1` is the control node's. No
//! privileges needed.

use std::net::Ipv4Addr;

use frugal_core::cluster::VmId;

use super::{AgentLaunch, ProvisionError, Provisioner};

/// VMs as loopback addresses of this machine (at most 253).
pub struct Loopback {
    agents: AgentLaunch,
}

impl Loopback {
    /// A provisioner starting agents with `agents`.
    pub fn new(agents: AgentLaunch) -> Loopback {
        Loopback { agents }
    }
}

impl Provisioner for Loopback {
    fn name(&self) -> &'static str {
        "loopback"
    }

    fn control_address(&self) -> Ipv4Addr {
        Ipv4Addr::LOCALHOST
    }

    /// `127.0.0.{vm+2}`.
    fn address(&self, vm: VmId) -> Ipv4Addr {
        Ipv4Addr::new(127, 0, 0, u8::try_from(vm + 2).unwrap_or(u8::MAX))
    }

    fn power_on(&self, vm: VmId) -> Result<(), ProvisionError> {
        self.agents.start(&[], None, vm, self.address(vm))
    }

    fn power_off(&self, vm: VmId) -> Result<(), ProvisionError> {
        self.agents.stop(vm);
        Ok(())
    }
}

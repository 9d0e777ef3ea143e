//! A placement: which VMs host the executors of one job.

use serde::{Deserialize, Serialize};

use crate::cluster::{Cluster, Site, VmId};

/// Executors per VM for one job (all executors of a job are identical, so a count per
/// VM describes the placement fully). Entries have distinct VM ids and counts > 0.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// `(vm, executors)` pairs in the order the policy chose the VMs.
    pub executors_per_vm: Vec<(VmId, u32)>,
}

impl Placement {
    /// Empty placement with room for `n` VMs.
    pub fn with_capacity(n: usize) -> Self {
        Placement {
            executors_per_vm: Vec::with_capacity(n),
        }
    }

    /// Adds `n` executors on `vm` (merging with an existing entry for that VM).
    #[inline]
    pub fn add(&mut self, vm: VmId, n: u32) {
        if n == 0 {
            return;
        }
        if let Some(e) = self.executors_per_vm.iter_mut().find(|e| e.0 == vm) {
            e.1 += n;
        } else {
            self.executors_per_vm.push((vm, n));
        }
    }

    /// Executors placed on `vm`.
    #[inline]
    pub fn on(&self, vm: VmId) -> u32 {
        self.executors_per_vm
            .iter()
            .find(|e| e.0 == vm)
            .map_or(0, |e| e.1)
    }

    /// Total executors placed.
    pub fn executors(&self) -> u32 {
        self.executors_per_vm.iter().map(|e| e.1).sum()
    }

    /// Number of distinct VMs used.
    pub fn vm_count(&self) -> usize {
        self.executors_per_vm.len()
    }

    /// True if some executor runs on a VM of `site`.
    pub fn uses_site(&self, cluster: &Cluster, site: Site) -> bool {
        self.executors_per_vm
            .iter()
            .any(|&(id, _)| cluster.vm(id).site == site)
    }
}

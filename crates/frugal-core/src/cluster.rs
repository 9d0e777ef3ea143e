//! Instance types, VMs, sites and the live state of a cluster.

use serde::{Deserialize, Serialize};

use crate::placement::Placement;
use crate::resources::{CPU, MEMORY, Resources};

/// Index of a VM in [`Cluster::vms`].
pub type VmId = u32;

/// Where a VM runs: on premise or rented from a public cloud (paper 000 §4.2–4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Site {
    /// On-premise ("local") VM, usually cheaper (paper 000: P^L < P^C).
    Local,
    /// Public-cloud VM billed pay-per-use.
    Cloud,
}

impl Site {
    /// `"local"` or `"cloud"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Site::Local => "local",
            Site::Cloud => "cloud",
        }
    }
}

/// A VM flavour: name and capacity (e.g. `m1.large`: 4 cores, 16 GiB).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceType {
    /// Provider name, e.g. `m1.xlarge`.
    pub name: String,
    /// Capacity of one VM of this type.
    pub capacity: Resources,
}

/// Power state of a VM. A VM is billed while it is not [`PowerState::Off`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum PowerState {
    /// Turned off: not billed, but may be turned on by a placement.
    Off,
    /// Turned on and billed, ready at `ready_at` (seconds of simulated or wall time).
    Booting {
        /// When the VM can run executors (seconds).
        ready_at: f64,
    },
    /// Turned on, billed and ready.
    On,
}

/// One VM of the cluster, with its live resource availability.
#[derive(Clone, Debug, PartialEq)]
pub struct Vm {
    /// Index in [`Cluster::vms`].
    pub id: VmId,
    /// Index in [`Cluster::instance_types`].
    pub instance_type: usize,
    /// Site of the VM.
    pub site: Site,
    /// Price in dollars per second of on-time.
    pub price_per_second: f64,
    /// Full capacity.
    pub capacity: Resources,
    /// Resource availability ω (paper 004 Table 2): capacity minus reserved executors.
    pub free: Resources,
    /// Power state.
    pub power: PowerState,
    /// Executors currently hosted.
    pub executors: u32,
    /// Estimated time (seconds) at which the last hosted executor ends; the VM's
    /// remaining active time is `busy_until − now` (paper 000 Eq. 4, 17: t_j, T_vm).
    pub busy_until: f64,
    /// When the VM was last turned off (seconds; −∞ if never). A VM turned off at the
    /// current instant has not gone down yet: turning it back on at that same instant
    /// costs no boot latency (see [`Vm::ready_if_reserved`]).
    pub off_since: f64,
}

impl Vm {
    /// True if the VM is billed (booting or on).
    #[inline]
    pub fn is_active(&self) -> bool {
        !matches!(self.power, PowerState::Off)
    }

    /// Remaining active time T_vm in seconds at `now` (0 for an idle or off VM).
    #[inline]
    pub fn remaining_active_time(&self, now: f64) -> f64 {
        if self.executors == 0 {
            0.0
        } else {
            (self.busy_until - now).max(0.0)
        }
    }

    /// When the VM could run executors if a placement used it at `now` (seconds): now if
    /// it is on, or if it is off but was turned off at this very instant (it never went
    /// down); its boot completion if booting; `now + boot_latency_s` if off.
    #[inline]
    pub fn ready_if_reserved(&self, now: f64, boot_latency_s: f64) -> f64 {
        match self.power {
            PowerState::On => now,
            PowerState::Booting { ready_at } => ready_at.max(now),
            PowerState::Off if self.off_since == now => now,
            PowerState::Off => now + boot_latency_s,
        }
    }

    /// Dominant share of used capacity, in [0, 1]: max over dimensions of used/capacity.
    pub fn dominant_utilisation(&self) -> f64 {
        let mut u: f64 = 0.0;
        for d in 0..self.capacity.0.len() {
            let cap = self.capacity.0[d];
            if cap > 0 {
                u = u.max(f64::from(cap - self.free.0[d]) / f64::from(cap));
            }
        }
        u
    }
}

/// The cluster: instance types, VMs and the totals of paper 004 Eq. 6–7.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// Instance types, referenced by [`Vm::instance_type`].
    pub instance_types: Vec<InstanceType>,
    /// All VMs; `vms[i].id == i`.
    pub vms: Vec<Vm>,
    /// CPU_total and MEM_total (paper 004 Eq. 6–7): the summed capacity of all VMs.
    pub total_capacity: Resources,
    /// VM ids sorted by price per second, then id: "the cheapest VM" (paper 000 Alg. 1).
    pub by_price: Vec<VmId>,
    /// VM ids sorted by unified capacity (RUT-free: cores, then memory), then price,
    /// then id: "the smallest VM" (paper 004 Alg. 3).
    pub by_size: Vec<VmId>,
    /// True if at least one VM is on premise.
    pub has_local_site: bool,
    /// VM counts by (capacity, site), in order of first appearance: what questions
    /// about the whole cluster's capacity need ([`Cluster::capacity_slots`]), in
    /// O(classes) instead of O(VMs).
    capacity_classes: Vec<(Resources, Site, u64)>,
    /// Resources reserved by executors over all VMs, kept by [`Cluster::reserve`] and
    /// [`Cluster::release`] (so [`Cluster::used`] is O(1)).
    used: Resources,
}

/// A VM group when building a cluster: `count` VMs of one type at one site and price.
#[derive(Clone, Debug, PartialEq)]
pub struct VmGroup {
    /// Index in the instance-type list.
    pub instance_type: usize,
    /// Site of every VM in the group.
    pub site: Site,
    /// Number of VMs.
    pub count: u32,
    /// Price per second of on-time, in dollars.
    pub price_per_second: f64,
}

impl Cluster {
    /// Builds an all-off cluster from instance types and VM groups, in group order.
    ///
    /// Panics never; a group that names a missing instance type is the caller's bug and is
    /// rejected earlier by [`crate::config::ClusterConfig::build`].
    pub fn new(instance_types: Vec<InstanceType>, groups: &[VmGroup]) -> Self {
        let mut vms = Vec::new();
        for g in groups {
            let capacity = instance_types[g.instance_type].capacity;
            for _ in 0..g.count {
                vms.push(Vm {
                    id: vms.len() as VmId,
                    instance_type: g.instance_type,
                    site: g.site,
                    price_per_second: g.price_per_second,
                    capacity,
                    free: capacity,
                    power: PowerState::Off,
                    executors: 0,
                    busy_until: 0.0,
                    off_since: f64::NEG_INFINITY,
                });
            }
        }
        let total_capacity = vms.iter().fold(Resources::ZERO, |a, v| a.plus(&v.capacity));
        let mut by_price: Vec<VmId> = (0..vms.len() as VmId).collect();
        by_price.sort_by(|&a, &b| {
            let (va, vb) = (&vms[a as usize], &vms[b as usize]);
            va.price_per_second
                .total_cmp(&vb.price_per_second)
                .then(a.cmp(&b))
        });
        let mut by_size: Vec<VmId> = (0..vms.len() as VmId).collect();
        by_size.sort_by(|&a, &b| {
            let (va, vb) = (&vms[a as usize], &vms[b as usize]);
            (va.capacity.0[CPU], va.capacity.0[MEMORY])
                .cmp(&(vb.capacity.0[CPU], vb.capacity.0[MEMORY]))
                .then(va.price_per_second.total_cmp(&vb.price_per_second))
                .then(a.cmp(&b))
        });
        let has_local_site = vms.iter().any(|v| v.site == Site::Local);
        let mut capacity_classes: Vec<(Resources, Site, u64)> = Vec::new();
        for v in &vms {
            match capacity_classes
                .iter_mut()
                .find(|(c, s, _)| *c == v.capacity && *s == v.site)
            {
                Some(class) => class.2 += 1,
                None => capacity_classes.push((v.capacity, v.site, 1)),
            }
        }
        Cluster {
            capacity_classes,
            instance_types,
            vms,
            total_capacity,
            by_price,
            by_size,
            has_local_site,
            used: Resources::ZERO,
        }
    }

    /// Number of VMs.
    pub fn len(&self) -> usize {
        self.vms.len()
    }

    /// True if the cluster has no VM.
    pub fn is_empty(&self) -> bool {
        self.vms.is_empty()
    }

    /// The VM with id `id`.
    #[inline]
    pub fn vm(&self, id: VmId) -> &Vm {
        &self.vms[id as usize]
    }

    /// Total executor slots for `demand` over the VMs for which `filter` holds, counting
    /// current free resources (off VMs are fully free).
    pub fn slots(&self, demand: &Resources, filter: impl Fn(&Vm) -> bool) -> u64 {
        self.vms
            .iter()
            .filter(|v| filter(v))
            .map(|v| u64::from(v.free.copies_of(demand)))
            .sum()
    }

    /// Executor slots for `demand` over the VMs whose site passes `site`, counting each
    /// VM's full capacity — what [`Cluster::slots`] gives on this cluster with every VM
    /// free — in O(distinct capacity and site pairs). Used to decide whether a job could
    /// ever be placed without scanning every VM at each arrival.
    pub fn capacity_slots(&self, demand: &Resources, site: impl Fn(Site) -> bool) -> u64 {
        self.capacity_classes
            .iter()
            .filter(|(_, s, _)| site(*s))
            .map(|(c, _, n)| n * u64::from(c.copies_of(demand)))
            .sum()
    }

    /// True if the VMs have free room for at least `executors` executors of size
    /// `demand` in all (off VMs are fully free); stops counting once they do.
    pub fn has_slots(&self, demand: &Resources, executors: u32) -> bool {
        let mut left = executors;
        for v in &self.vms {
            left = left.saturating_sub(v.free.copies_of(demand));
            if left == 0 {
                return true;
            }
        }
        left == 0
    }

    /// Resources reserved by executors over all VMs (O(1)).
    pub fn used(&self) -> Resources {
        self.used
    }

    /// A copy with every VM off and empty: the cluster as it was built.
    pub fn emptied(&self) -> Cluster {
        let mut c = self.clone();
        for v in &mut c.vms {
            v.free = v.capacity;
            v.power = PowerState::Off;
            v.executors = 0;
            v.busy_until = 0.0;
            v.off_since = f64::NEG_INFINITY;
        }
        c.used = Resources::ZERO;
        c
    }

    /// Reserves `placement` (executors of size `demand`), turning off VMs on.
    ///
    /// Returns the time (seconds) at which every VM of the placement is ready: `now`, or
    /// the latest boot completion when a VM had to be turned on with `boot_latency_s > 0`
    /// ([`Vm::ready_if_reserved`]: a VM turned off at `now` comes back at once). Pushes the
    /// ids of VMs turned on to `powered_on`.
    ///
    /// # Errors
    /// [`ClusterError::OverCapacity`] if a VM cannot hold its share; the cluster is left
    /// unchanged in that case.
    pub fn reserve(
        &mut self,
        placement: &Placement,
        demand: &Resources,
        now: f64,
        boot_latency_s: f64,
        powered_on: &mut Vec<VmId>,
    ) -> Result<f64, ClusterError> {
        for &(id, n) in &placement.executors_per_vm {
            let vm = self
                .vms
                .get(id as usize)
                .ok_or(ClusterError::NoSuchVm(id))?;
            if vm.free.minus(&demand.times(n)).is_none() {
                return Err(ClusterError::OverCapacity {
                    vm: id,
                    executors: n,
                });
            }
        }
        let mut ready = now;
        for &(id, n) in &placement.executors_per_vm {
            let vm = &mut self.vms[id as usize];
            vm.free = vm.free.minus(&demand.times(n)).expect("checked above");
            vm.executors += n;
            self.used = self.used.plus(&demand.times(n));
            let ready_at = vm.ready_if_reserved(now, boot_latency_s);
            ready = ready.max(ready_at);
            if !vm.is_active() {
                powered_on.push(id);
                vm.power = if ready_at > now {
                    PowerState::Booting { ready_at }
                } else {
                    PowerState::On
                };
            }
        }
        Ok(ready)
    }

    /// Records that the executors of `placement` run until `until` (seconds).
    pub fn extend_busy(&mut self, placement: &Placement, until: f64) {
        for &(id, _) in &placement.executors_per_vm {
            let vm = &mut self.vms[id as usize];
            vm.busy_until = vm.busy_until.max(until);
        }
    }

    /// Frees the executors of `placement`. Returns nothing; VMs that became idle have
    /// `executors == 0` and are for the caller to turn off (after its keep-alive time).
    pub fn release(&mut self, placement: &Placement, demand: &Resources) {
        for &(id, n) in &placement.executors_per_vm {
            let vm = &mut self.vms[id as usize];
            vm.free = vm.free.plus(&demand.times(n));
            debug_assert!(vm.capacity.fits(&vm.free));
            vm.executors -= n;
            self.used = self
                .used
                .minus(&demand.times(n))
                .expect("released executors were reserved");
        }
    }

    /// Marks a booting VM as ready.
    pub fn mark_ready(&mut self, id: VmId) {
        let vm = &mut self.vms[id as usize];
        if let PowerState::Booting { .. } = vm.power {
            vm.power = PowerState::On;
        }
    }

    /// Turns an idle VM off at `now` (seconds). Returns false (and does nothing) if it
    /// hosts executors or is already off.
    pub fn power_off(&mut self, id: VmId, now: f64) -> bool {
        let vm = &mut self.vms[id as usize];
        if vm.executors > 0 || !vm.is_active() {
            return false;
        }
        vm.power = PowerState::Off;
        vm.off_since = now;
        true
    }
}

/// Errors of cluster state changes.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ClusterError {
    /// The placement names a VM id the cluster does not have.
    #[error("placement names VM {0}, which does not exist")]
    NoSuchVm(VmId),
    /// The placement puts more executors on a VM than it has room for.
    #[error("placement of {executors} executor(s) exceeds the free capacity of VM {vm}")]
    OverCapacity {
        /// VM id.
        vm: VmId,
        /// Executors the placement asked for on it.
        executors: u32,
    },
}

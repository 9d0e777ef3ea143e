//! Instance types, VMs, sites and the live state of a cluster.

use serde::{Deserialize, Serialize};

use crate::index::{PlacementIndex, VmClass, VmClasses, VmKey};
use crate::placement::Placement;
use crate::resources::Resources;

/// Clusters of at least this many VMs get a placement index by default
/// ([`Cluster::use_index`]). Below it, reading the VMs in a row costs less than keeping
/// the index up to date: a whole simulation of 10,000 jobs on the 180-VM large-scale
/// cluster (`frugal bench --sections simulation`) takes about 1.5 times as long with it.
/// From the 2-fold copy of that cluster (360 VMs) on, the index is faster, and its lead
/// grows with the VM count (`frugal simulate --cluster large-hybrid --cluster-scale k
/// --synthetic --load high --jobs 2000 --job-copies k`, eight policies, one core: 0.12 s
/// against 0.13 s at 360 VMs, 0.18 against 0.25 at 540, 0.48 against 1.33 at 1,440).
pub const INDEX_MIN_VMS: usize = 256;

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

impl PowerState {
    /// A VM turned on at `now` that can run executors at `ready_at`: booting until then,
    /// or on at once.
    fn turned_on(now: f64, ready_at: f64) -> PowerState {
        if ready_at > now {
            PowerState::Booting { ready_at }
        } else {
            PowerState::On
        }
    }
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

    /// When a booting VM can run executors (seconds); `None` if it is off or on.
    #[inline]
    pub fn booting_until(&self) -> Option<f64> {
        match self.power {
            PowerState::Booting { ready_at } => Some(ready_at),
            PowerState::Off | PowerState::On => None,
        }
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
    /// All VMs; `vms[i].id == i`. Read-only for callers: change a VM's state through
    /// [`Cluster::reserve`], [`Cluster::extend_busy`], [`Cluster::release`],
    /// [`Cluster::mark_ready`] and [`Cluster::power_off`], which keep the placement index
    /// in step ([`Cluster::index_is_consistent`]).
    pub vms: Vec<Vm>,
    /// CPU_total and MEM_total (paper 004 Eq. 6–7): the summed capacity of all VMs.
    pub total_capacity: Resources,
    /// True if at least one VM is on premise.
    pub has_local_site: bool,
    /// The classes of interchangeable VMs and the turn-on orders ([`crate::index`]).
    classes: VmClasses,
    /// The placement index over the VMs' live state, kept in step with `vms` by every
    /// state-changing method; `None` where the policies scan the VMs instead
    /// ([`Cluster::use_index`]).
    index: Option<PlacementIndex>,
    /// Whether the index keeps busy subgroups ([`Cluster::keep_busy_groups`]).
    busy_groups: bool,
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
        let has_local_site = vms.iter().any(|v| v.site == Site::Local);
        let classes = VmClasses::new(&vms);
        let index =
            (vms.len() >= INDEX_MIN_VMS).then(|| PlacementIndex::with_busy(&vms, &classes, true));
        Cluster {
            classes,
            index,
            busy_groups: true,
            instance_types,
            vms,
            total_capacity,
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

    /// Total executor slots for `demand` over the VMs whose site passes `site`, counting
    /// current free resources (off VMs are fully free). O(classes + active groups) with
    /// the placement index, O(m) without.
    pub fn slots(&self, demand: &Resources, site: impl Fn(Site) -> bool) -> u64 {
        let Some(index) = &self.index else {
            let vms = self.vms.iter().filter(|v| site(v.site));
            return vms.map(|v| u64::from(v.free.copies_of(demand))).sum();
        };
        let classes = self.classes.all();
        let off: u64 = index
            .off()
            .map(|(c, ids)| (&classes[c as usize], ids))
            .filter(|(c, _)| site(c.site))
            .map(|(c, ids)| ids.len() as u64 * u64::from(c.capacity.copies_of(demand)))
            .sum();
        let active: u64 = index
            .active()
            .filter(|(c, _, _)| site(classes[*c as usize].site))
            .map(|(_, free, g)| g.ids.len() as u64 * u64::from(free.copies_of(demand)))
            .sum();
        off + active
    }

    /// Executor slots for `demand` over the VMs whose site passes `site`, counting each
    /// VM's full capacity — what [`Cluster::slots`] gives on this cluster with every VM
    /// free — in O(classes). Used to decide whether a job could ever be placed.
    pub fn capacity_slots(&self, demand: &Resources, site: impl Fn(Site) -> bool) -> u64 {
        self.classes
            .all()
            .iter()
            .filter(|c| site(c.site))
            .map(|c| c.count * u64::from(c.capacity.copies_of(demand)))
            .sum()
    }

    /// True if the VMs have free room for at least `executors` executors of size
    /// `demand` in all (off VMs are fully free); stops counting once they do.
    pub fn has_slots(&self, demand: &Resources, executors: u32) -> bool {
        let mut left = u64::from(executors);
        let mut count = |free: Resources, n: usize| {
            left = left.saturating_sub(n as u64 * u64::from(free.copies_of(demand)));
            left == 0
        };
        let Some(index) = &self.index else {
            return self.vms.iter().any(|v| count(v.free, 1)) || executors == 0;
        };
        let classes = self.classes.all();
        let off = index
            .off()
            .map(|(c, ids)| (classes[c as usize].capacity, ids.len()));
        let active = index.active().map(|(_, free, g)| (free, g.ids.len()));
        off.chain(active).any(|(free, n)| count(free, n)) || executors == 0
    }

    /// The classes of interchangeable VMs (same capacity, site and price), in order of
    /// first appearance, with their counts.
    pub fn classes(&self) -> &[VmClass] {
        self.classes.all()
    }

    /// The classes with their turn-on orders, for the policies.
    pub(crate) fn vm_classes(&self) -> &VmClasses {
        &self.classes
    }

    /// Builds (`true`) or drops the placement index. By default a cluster of at least
    /// [`INDEX_MIN_VMS`] VMs has one: below that, reading the few VMs in a row is faster
    /// than keeping the index up to date, and the policies scan them instead (the same
    /// placements: `tests/it/index_equivalence.rs` runs both ways against the reference).
    pub fn use_index(&mut self, on: bool) {
        self.index =
            on.then(|| PlacementIndex::with_busy(&self.vms, &self.classes, self.busy_groups));
    }

    /// Keeps (the default) or drops the placement index's busy subgroups: the active VMs
    /// split by remaining active time, which only the policies that rank VMs by it (GIO,
    /// `optimal`: [`crate::PlacementPolicy::ranks_by_remaining_time`]) read, and whose
    /// upkeep is most of the index's cost per reservation. Without them those policies
    /// score every active VM with room, as a scan does. The simulator sets this per run.
    pub fn keep_busy_groups(&mut self, keep: bool) {
        self.busy_groups = keep;
        let on = self.index.is_some();
        self.use_index(on);
    }

    /// The placement index, if the cluster has one, for the policies.
    pub(crate) fn index(&self) -> Option<&PlacementIndex> {
        self.index.as_ref()
    }

    /// True if the placement index (if any) describes `vms` exactly (what a fresh index
    /// of the VMs would hold). Every state-changing method keeps it so; a test checks it
    /// after random operations.
    pub fn index_is_consistent(&self) -> bool {
        self.index.as_ref().is_none_or(|index| {
            *index == PlacementIndex::with_busy(&self.vms, &self.classes, self.busy_groups)
        })
    }

    /// Resources reserved by executors over all VMs (O(1)).
    pub fn used(&self) -> Resources {
        self.used
    }

    /// The fleet's price now: the summed price of the VMs that are on (booting or
    /// ready), dollars per second. O(m).
    pub fn fleet_price_per_second(&self) -> f64 {
        self.vms
            .iter()
            .filter(|v| v.is_active())
            .map(|v| v.price_per_second)
            .fold(0.0, |a, p| a + p)
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
        let on = c.index.is_some();
        c.use_index(on);
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
            let before = VmKey::of(vm);
            vm.free = vm.free.minus(&demand.times(n)).expect("checked above");
            vm.executors += n;
            self.used = self.used.plus(&demand.times(n));
            let ready_at = vm.ready_if_reserved(now, boot_latency_s);
            ready = ready.max(ready_at);
            if !vm.is_active() {
                powered_on.push(id);
                vm.power = PowerState::turned_on(now, ready_at);
            }
            if let Some(index) = &mut self.index {
                index.update(vm, before);
            }
        }
        Ok(ready)
    }

    /// Records that the executors of `placement` run until `until` (seconds).
    pub fn extend_busy(&mut self, placement: &Placement, until: f64) {
        for &(id, _) in &placement.executors_per_vm {
            let vm = &mut self.vms[id as usize];
            let before = VmKey::of(vm);
            vm.busy_until = vm.busy_until.max(until);
            if let Some(index) = &mut self.index {
                index.update(vm, before);
            }
        }
    }

    /// Frees the executors of `placement`. Returns nothing; VMs that became idle have
    /// `executors == 0` and are for the caller to turn off (after its keep-alive time).
    pub fn release(&mut self, placement: &Placement, demand: &Resources) {
        for &(id, n) in &placement.executors_per_vm {
            let vm = &mut self.vms[id as usize];
            let before = VmKey::of(vm);
            vm.free = vm.free.plus(&demand.times(n));
            debug_assert!(vm.capacity.fits(&vm.free));
            vm.executors -= n;
            if let Some(index) = &mut self.index {
                index.update(vm, before);
            }
            self.used = self
                .used
                .minus(&demand.times(n))
                .expect("released executors were reserved");
        }
    }

    /// Marks an off VM on with no executors — booting until `ready_at` if that is after
    /// `now` — as a VM that was kept on idle when a service stopped is restored. Does
    /// nothing to a VM that is already on.
    pub fn power_on_idle(&mut self, id: VmId, now: f64, ready_at: f64) {
        let vm = &mut self.vms[id as usize];
        if vm.is_active() {
            return;
        }
        let before = VmKey::of(vm);
        vm.power = PowerState::turned_on(now, ready_at);
        if let Some(index) = &mut self.index {
            index.update(vm, before);
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
        let before = VmKey::of(vm);
        vm.power = PowerState::Off;
        vm.off_since = now;
        if let Some(index) = &mut self.index {
            index.update(vm, before);
        }
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

//! The placement index: the cluster's VMs kept in classes of interchangeable VMs, so that
//! a policy's choice costs O(groups) instead of O(VMs).
//!
//! Every published policy ranks VMs by a function of the VM's instance class (capacity,
//! site, price), its power state, its free resources and — for the cost-based policies —
//! its remaining active time, breaking ties by lower id. VMs that agree on all of these are
//! interchangeable except for their ids. So the cluster keeps the **classes** — the
//! distinct (capacity, site, price) triples, each with its rank in "the cheapest VM" order
//! (price) and "the smallest VM" order (cores, memory, price) — and the index keeps:
//!
//! - **off VMs** per class, as an id set: an off VM hosts nothing, so it is fully free and
//!   every off VM of a class is the same to a policy;
//! - **active groups**: the active (booting or on) VMs per (class, free resources), as an
//!   id set, and inside each group the VMs per busy key (idle, or busy until a given
//!   time), as a sorted list, for the policies whose cost depends on the remaining active
//!   time;
//! - **a first-fit tree**: the active VMs' free resources in a max segment tree over ids,
//!   for the policies that take active VMs in id order (first fit, AsQ, AEP's spread,
//!   round robin consolidate): the next VM with room in O(log m), with early exit.
//!
//! A policy that fills VMs greedily in (score, id) order uses at most ⌈E/k⌉ VMs of a group
//! whose VMs each hold k executors, and those are the group's lowest ids; so it reads the
//! first ⌈E/k⌉ ids of each group that fits, sorts that short list and fills it — the same
//! placement as scanning every VM, in O(G + E·log) time for G groups and classes instead
//! of O(m log m). G is the number of distinct (class, free, busy) states among the active
//! VMs: small when many VMs are in the same state (a cluster of copies, a steady load of
//! few executor shapes), and at worst the number of active VMs, where the index costs what
//! a scan does. The cluster updates the index per reservation, release, busy-time change
//! and power change ([`crate::cluster::Cluster`]'s methods) in O(1) hash and bit
//! operations on the groups, O(log m) on the tree and O(b) for a busy subgroup of b VMs
//! (skipped when only the busy time changed and busy subgroups are not kept); emptied
//! groups are kept for reuse, so a steady run does not allocate. Memory: m bits per class
//! and per active group, plus 20 bytes per tree node.
//!
//! A cluster below [`crate::cluster::INDEX_MIN_VMS`] VMs has no index: there the upkeep
//! costs more than it saves, and the policies' primitives (`crate::policy`'s
//! `push_active`, `push_off`, `fill_off`, `first_off`, `active_fitting_from`, and
//! [`crate::cluster::Cluster::slots`]) read the VMs in a row instead — the same policy
//! code either way, checked against the reference scan with and without an index
//! (`tests/it/index_equivalence.rs`).

mod classes;
mod fit_tree;
mod id_set;

use rustc_hash::FxHashMap;

pub use classes::VmClass;
pub(crate) use classes::{OffOrder, VmClasses};
use fit_tree::FitTree;
pub(crate) use id_set::IdSet;

use crate::cluster::{Site, Vm, VmId};
use crate::resources::{RESOURCE_DIMS, Resources};

/// Busy key of an active VM: `None` if it hosts no executor (its remaining active time is
/// 0 whatever its last busy time), else the bits of its busy-until time (seconds).
type BusyKey = Option<u64>;

/// The active VMs of one class with the same free resources.
#[derive(Clone, Debug, Default)]
pub(crate) struct Group {
    class: u32,
    free: [u32; RESOURCE_DIMS],
    /// Every VM of the group.
    pub ids: IdSet,
    /// Slots of its busy subgroups.
    subs: Vec<u32>,
}

/// The VMs of a group with one busy key, ascending.
#[derive(Clone, Debug, Default)]
struct BusyGroup {
    key: BusyKey,
    ids: Vec<VmId>,
}

/// The index itself; see the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct PlacementIndex {
    /// Class of each VM, by id (a copy of [`VmClasses`]' own, read at every update).
    class_of: Vec<u32>,
    /// Off VMs of each class.
    off: Vec<IdSet>,
    /// The active VMs' free resources by id, for first-fit searches in id order.
    fit: FitTree,
    /// Group slots (live or kept for reuse), by (class, free resources) when live.
    groups: Vec<Group>,
    group_of: FxHashMap<(u32, [u32; RESOURCE_DIMS]), u32>,
    /// Live group slots, and each slot's position in it.
    live: Vec<u32>,
    live_pos: Vec<u32>,
    spare_groups: Vec<u32>,
    /// Busy subgroup slots, by (group slot, busy key) when live.
    busy: Vec<BusyGroup>,
    busy_of: FxHashMap<(u32, BusyKey), u32>,
    spare_busy: Vec<u32>,
    /// Each active VM's group and busy subgroup slots (so leaving needs no lookup).
    slot_of: Vec<(u32, u32)>,
    /// Whether the busy subgroups are kept ([`PlacementIndex::with_busy`]).
    track_busy: bool,
}

/// Where the index holds a VM: what [`PlacementIndex::update`] needs to know of its
/// state before a change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct VmKey {
    active: bool,
    free: [u32; RESOURCE_DIMS],
    busy: BusyKey,
}

impl VmKey {
    /// The key of `vm`'s current state.
    #[inline]
    pub fn of(vm: &Vm) -> VmKey {
        VmKey {
            active: vm.is_active(),
            free: vm.free.0,
            busy: (vm.executors > 0).then(|| vm.busy_until.to_bits()),
        }
    }
}

impl PlacementIndex {
    /// The index of `vms` (in any power state), classes in order of first appearance,
    /// with busy subgroups kept or not (see
    /// [`crate::cluster::Cluster::keep_busy_groups`]).
    pub fn with_busy(vms: &[Vm], classes: &VmClasses, track_busy: bool) -> Self {
        let class_of: Vec<u32> = vms.iter().map(|v| classes.index_of(v.id)).collect();
        let mut index = PlacementIndex {
            off: vec![IdSet::new(vms.len()); classes.all().len()],
            fit: FitTree::new(vms.len()),
            class_of,
            groups: Vec::new(),
            group_of: FxHashMap::default(),
            live: Vec::new(),
            live_pos: Vec::new(),
            spare_groups: Vec::new(),
            busy: Vec::new(),
            busy_of: FxHashMap::default(),
            spare_busy: Vec::new(),
            slot_of: vec![(u32::MAX, u32::MAX); vms.len()],
            track_busy,
        };
        for v in vms {
            let class = index.class_of[v.id as usize];
            index.enter(v.id, class, VmKey::of(v));
            index
                .fit
                .set(v.id, v.is_active().then_some((v.site, &v.free)));
        }
        index
    }

    /// Moves `vm` from where the index holds it (`before`, its key before the change) to
    /// where its current state belongs; parts that did not change are not touched (a new
    /// busy time moves the VM between busy subgroups only).
    pub fn update(&mut self, vm: &Vm, before: VmKey) {
        let after = VmKey::of(vm);
        if before == after {
            return;
        }
        let (id, class) = (vm.id, self.class_of[vm.id as usize]);
        let same_group = before.active && after.active && before.free == after.free;
        if same_group {
            if !self.track_busy {
                return;
            }
            let g = self.slot_of[id as usize].0;
            self.leave_busy(g, before.busy, id);
            self.enter_busy(g, after.busy, id);
            return;
        }
        self.fit
            .set(id, after.active.then_some((vm.site, &vm.free)));
        self.leave(id, class, before);
        self.enter(id, class, after);
    }

    fn enter(&mut self, id: VmId, class: u32, key: VmKey) {
        if !key.active {
            self.off[class as usize].insert(id);
            return;
        }
        let g = match self.group_of.get(&(class, key.free)) {
            Some(&g) => g,
            None => self.open_group(class, key.free),
        };
        self.groups[g as usize].ids.insert(id);
        self.slot_of[id as usize].0 = g;
        self.enter_busy(g, key.busy, id);
    }

    fn leave(&mut self, id: VmId, class: u32, key: VmKey) {
        if !key.active {
            self.off[class as usize].remove(id);
            return;
        }
        let g = self.slot_of[id as usize].0;
        self.leave_busy(g, key.busy, id);
        let group = &mut self.groups[g as usize];
        group.ids.remove(id);
        if group.ids.len() == 0 {
            self.group_of.remove(&(class, key.free));
            let at = self.live_pos[g as usize] as usize;
            self.live.swap_remove(at);
            if let Some(&moved) = self.live.get(at) {
                self.live_pos[moved as usize] = at as u32;
            }
            self.spare_groups.push(g);
        }
    }

    fn enter_busy(&mut self, g: u32, key: BusyKey, id: VmId) {
        if !self.track_busy {
            return;
        }
        let b = match self.busy_of.get(&(g, key)) {
            Some(&b) => b,
            None => {
                let b = self.spare_busy.pop().unwrap_or_else(|| {
                    self.busy.push(BusyGroup::default());
                    (self.busy.len() - 1) as u32
                });
                self.busy[b as usize].key = key;
                self.busy_of.insert((g, key), b);
                self.groups[g as usize].subs.push(b);
                b
            }
        };
        let ids = &mut self.busy[b as usize].ids;
        let at = ids.partition_point(|&x| x < id);
        ids.insert(at, id);
        self.slot_of[id as usize].1 = b;
    }

    fn leave_busy(&mut self, g: u32, key: BusyKey, id: VmId) {
        if !self.track_busy {
            return;
        }
        let b = self.slot_of[id as usize].1;
        let ids = &mut self.busy[b as usize].ids;
        let at = ids
            .binary_search(&id)
            .expect("a VM is in its busy subgroup");
        ids.remove(at);
        if ids.is_empty() {
            self.busy_of.remove(&(g, key));
            let subs = &mut self.groups[g as usize].subs;
            let at = subs.iter().position(|&x| x == b).expect("listed");
            subs.swap_remove(at);
            self.spare_busy.push(b);
        }
    }

    fn open_group(&mut self, class: u32, free: [u32; RESOURCE_DIMS]) -> u32 {
        let g = self.spare_groups.pop().unwrap_or_else(|| {
            self.groups.push(Group {
                ids: IdSet::new(self.class_of.len()),
                ..Group::default()
            });
            self.live_pos.push(0);
            (self.groups.len() - 1) as u32
        });
        let group = &mut self.groups[g as usize];
        group.class = class;
        group.free = free;
        self.group_of.insert((class, free), g);
        self.live_pos[g as usize] = self.live.len() as u32;
        self.live.push(g);
        g
    }

    /// The active VMs (at `site` if given) with room for one executor of `demand`,
    /// ascending from id `from`.
    pub fn active_fitting_from<'a>(
        &'a self,
        from: usize,
        demand: &'a Resources,
        site: Option<Site>,
    ) -> impl Iterator<Item = VmId> + 'a {
        self.fit.fits_from(from, demand, site)
    }

    /// The off VMs of class `c`.
    pub fn off_set(&self, c: u32) -> &IdSet {
        &self.off[c as usize]
    }

    /// Each class index with its off VMs (possibly none).
    pub fn off(&self) -> impl Iterator<Item = (u32, &IdSet)> {
        self.off.iter().enumerate().map(|(c, ids)| (c as u32, ids))
    }

    /// Each active group (in no particular order): its class index, free resources and
    /// VMs.
    pub fn active(&self) -> impl Iterator<Item = (u32, Resources, &Group)> {
        self.live.iter().map(|&g| {
            let group = &self.groups[g as usize];
            (group.class, Resources(group.free), group)
        })
    }

    /// The VMs of `group` per busy key, each list ascending (in no particular order), or
    /// `None` if busy subgroups are not kept.
    pub fn busy(&self, group: &Group) -> Option<impl Iterator<Item = &[VmId]>> {
        self.track_busy.then(|| {
            group
                .subs
                .iter()
                .map(|&b| self.busy[b as usize].ids.as_slice())
        })
    }

    /// Everything the index says, in a canonical order: off VMs per class, then per
    /// active group (class, free) its VMs and its (busy key, VMs) lists.
    #[allow(clippy::type_complexity)]
    fn canonical(
        &self,
    ) -> (
        Vec<Vec<VmId>>,
        Vec<(
            u32,
            [u32; RESOURCE_DIMS],
            Vec<VmId>,
            Vec<(BusyKey, Vec<VmId>)>,
        )>,
    ) {
        let off = self.off.iter().map(|s| s.iter().collect()).collect();
        let mut active: Vec<_> = self
            .live
            .iter()
            .map(|&g| {
                let group = &self.groups[g as usize];
                let mut subs: Vec<_> = group
                    .subs
                    .iter()
                    .map(|&b| (self.busy[b as usize].key, self.busy[b as usize].ids.clone()))
                    .collect();
                subs.sort();
                (group.class, group.free, group.ids.iter().collect(), subs)
            })
            .collect();
        active.sort();
        (off, active)
    }
}

/// Two indexes are equal when they hold the same classes and the same VMs in the same
/// groups, whatever slots their histories put the groups in.
impl PartialEq for PlacementIndex {
    fn eq(&self, other: &Self) -> bool {
        self.class_of == other.class_of
            && self.fit == other.fit
            && self.canonical() == other.canonical()
    }
}

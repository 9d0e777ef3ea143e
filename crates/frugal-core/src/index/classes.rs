//! Classes of interchangeable VMs and the orders in which policies turn VMs on.

use crate::cluster::{Site, Vm, VmId};
use crate::resources::{CPU, MEMORY, Resources};

/// A class of VMs with the same capacity, site and price.
#[derive(Clone, Debug, PartialEq)]
pub struct VmClass {
    /// Capacity of each VM of the class.
    pub capacity: Resources,
    /// Site of the class.
    pub site: Site,
    /// Price in dollars per second of on-time.
    pub price_per_second: f64,
    /// Number of VMs of the class.
    pub count: u64,
    /// Position in "the cheapest VM" order (price); equal prices share a rank.
    pub price_rank: u32,
    /// Position in "the smallest VM" order (cores, memory, then price); equal keys share
    /// a rank.
    pub size_rank: u32,
}

/// An order of off VMs to turn on: by class rank, ties by lower id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OffOrder {
    /// "The cheapest VM" (paper 000 Alg. 1): price.
    Cheapest,
    /// "The smallest VM" (paper 004 Alg. 3): cores, memory, then price.
    Smallest,
}

/// The classes of a cluster's VMs (fixed when it is built): each VM's class, the class
/// ranks in both turn-on orders, and every VM id in each order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VmClasses {
    classes: Vec<VmClass>,
    class_of: Vec<u32>,
    /// Class indices in each order, in runs of equal rank.
    cheapest: Vec<Vec<u32>>,
    smallest: Vec<Vec<u32>>,
    /// VM ids in each order (rank, then id).
    by_price: Vec<VmId>,
    by_size: Vec<VmId>,
}

/// Dense ranks of `classes` under `cmp` (equal keys share a rank).
fn ranks(classes: &[VmClass], cmp: impl Fn(&VmClass, &VmClass) -> std::cmp::Ordering) -> Vec<u32> {
    let mut order: Vec<usize> = (0..classes.len()).collect();
    order.sort_by(|&a, &b| cmp(&classes[a], &classes[b]));
    let mut rank = vec![0; classes.len()];
    let mut r = 0;
    for (i, &c) in order.iter().enumerate() {
        if i > 0 && cmp(&classes[order[i - 1]], &classes[c]).is_ne() {
            r += 1;
        }
        rank[c] = r;
    }
    rank
}

impl VmClasses {
    /// The classes of `vms`, in order of first appearance.
    pub fn new(vms: &[Vm]) -> Self {
        let mut classes: Vec<VmClass> = Vec::new();
        let mut class_of = Vec::with_capacity(vms.len());
        for v in vms {
            let c = match classes.iter().position(|c| {
                c.capacity == v.capacity
                    && c.site == v.site
                    && c.price_per_second.to_bits() == v.price_per_second.to_bits()
            }) {
                Some(c) => c,
                None => {
                    classes.push(VmClass {
                        capacity: v.capacity,
                        site: v.site,
                        price_per_second: v.price_per_second,
                        count: 0,
                        price_rank: 0,
                        size_rank: 0,
                    });
                    classes.len() - 1
                }
            };
            classes[c].count += 1;
            class_of.push(c as u32);
        }
        let price = ranks(&classes, |a, b| {
            a.price_per_second.total_cmp(&b.price_per_second)
        });
        let size = ranks(&classes, |a, b| {
            (a.capacity.0[CPU], a.capacity.0[MEMORY])
                .cmp(&(b.capacity.0[CPU], b.capacity.0[MEMORY]))
                .then(a.price_per_second.total_cmp(&b.price_per_second))
        });
        for (i, c) in classes.iter_mut().enumerate() {
            c.price_rank = price[i];
            c.size_rank = size[i];
        }
        let runs = |rank: &[u32]| {
            let mut runs = vec![Vec::new(); rank.iter().max().map_or(0, |&r| r as usize + 1)];
            for (c, &r) in rank.iter().enumerate() {
                runs[r as usize].push(c as u32);
            }
            runs
        };
        let order = |rank: &[u32]| {
            let mut ids: Vec<VmId> = (0..vms.len() as VmId).collect();
            ids.sort_by_key(|&id| (rank[class_of[id as usize] as usize], id));
            ids
        };
        VmClasses {
            cheapest: runs(&price),
            smallest: runs(&size),
            by_price: order(&price),
            by_size: order(&size),
            classes,
            class_of,
        }
    }

    /// The classes, in order of first appearance.
    pub fn all(&self) -> &[VmClass] {
        &self.classes
    }

    /// Index of VM `id`'s class.
    #[inline]
    pub fn index_of(&self, id: VmId) -> u32 {
        self.class_of[id as usize]
    }

    /// VM `id`'s class.
    #[inline]
    pub fn of(&self, id: VmId) -> &VmClass {
        &self.classes[self.class_of[id as usize] as usize]
    }

    /// Class indices in `order`, in runs of classes that tie in it (ascending).
    pub fn runs(&self, order: OffOrder) -> &[Vec<u32>] {
        match order {
            OffOrder::Cheapest => &self.cheapest,
            OffOrder::Smallest => &self.smallest,
        }
    }

    /// Every VM id in `order` (class rank, then id).
    pub fn vms_in(&self, order: OffOrder) -> &[VmId] {
        match order {
            OffOrder::Cheapest => &self.by_price,
            OffOrder::Smallest => &self.by_size,
        }
    }
}

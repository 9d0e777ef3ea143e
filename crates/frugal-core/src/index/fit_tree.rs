//! First-fit search over VM ids: a max segment tree of free resources and sites.

use crate::cluster::{Site, VmId};
use crate::resources::{RESOURCE_DIMS, Resources};

/// Components of a node: the resource dimensions, then one per site.
const WIDTH: usize = RESOURCE_DIMS + 2;
/// Component of each site: 2 at a VM of that site, 1 at an active VM of the other.
const LOCAL: usize = RESOURCE_DIMS;
const CLOUD: usize = RESOURCE_DIMS + 1;
/// Leaves read in a row before a search descends the tree.
const NEAR: usize = 8;

/// A segment tree over VM ids. The leaf of an active VM holds its free resources plus one
/// in every dimension and, per site, 2 if the VM is at that site and 1 if not; an off VM's
/// leaf is all 0. An inner node holds the maximum of its children per component. The
/// first active VM at or after an id with room for one executor (and at a given site) is
/// found by descending only into nodes whose maxima admit it: O(log m) when the maxima do
/// not mislead (a node can admit a request no single VM under it meets, since the maxima
/// of different components may come from different VMs; the search then backtracks, at
/// worst over every VM). An update is O(log m), and stops where the maxima stop changing.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FitTree {
    /// Leaves start here (a power of two ≥ the VM count).
    leaves: usize,
    /// Heap layout: node i has children 2i and 2i + 1; node 0 is unused.
    nodes: Vec<[u32; WIDTH]>,
}

fn admits(node: &[u32; WIDTH], need: &[u32; WIDTH]) -> bool {
    node.iter().zip(need).all(|(a, b)| a >= b)
}

impl FitTree {
    /// A tree for `vms` VMs, all off.
    pub fn new(vms: usize) -> Self {
        let leaves = vms.next_power_of_two().max(1);
        FitTree {
            leaves,
            nodes: vec![[0; WIDTH]; 2 * leaves],
        }
    }

    /// Records VM `id`'s site and free resources if it is active (`Some`), or that it is
    /// off.
    #[inline]
    pub fn set(&mut self, id: VmId, active: Option<(Site, &Resources)>) {
        let mut i = self.leaves + id as usize;
        self.nodes[i] = match active {
            None => [0; WIDTH],
            Some((site, free)) => std::array::from_fn(|k| match k {
                LOCAL => 1 + u32::from(site == Site::Local),
                CLOUD => 1 + u32::from(site == Site::Cloud),
                d => free.0[d].saturating_add(1),
            }),
        };
        while i > 1 {
            i /= 2;
            let (l, r) = (self.nodes[2 * i], self.nodes[2 * i + 1]);
            let max = std::array::from_fn(|k| l[k].max(r[k]));
            if self.nodes[i] == max {
                break; // the maxima above are unchanged too
            }
            self.nodes[i] = max;
        }
    }

    /// The lowest id ≥ `from` of an active VM with room for one executor of `demand`, at
    /// `site` if given.
    pub fn next_fit(&self, from: usize, demand: &Resources, site: Option<Site>) -> Option<VmId> {
        if from >= self.leaves {
            return None;
        }
        let need = std::array::from_fn(|k| match k {
            LOCAL => 1 + u32::from(site == Some(Site::Local)),
            CLOUD => 1 + u32::from(site == Some(Site::Cloud)),
            d => demand.0[d].saturating_add(1),
        });
        // The next few leaves first, in a row, as a scan would read them: where VMs with
        // room are dense (a busy cluster's first fit), this ends before any descent.
        let near = (from + NEAR).min(self.leaves);
        let leaves = &self.nodes[self.leaves + from..self.leaves + near];
        if let Some(i) = leaves.iter().position(|leaf| admits(leaf, &need)) {
            return Some((from + i) as VmId);
        }
        self.find(1, 0, self.leaves, near, &need)
    }

    fn find(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        need: &[u32; WIDTH],
    ) -> Option<VmId> {
        if hi <= from || !admits(&self.nodes[node], need) {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo as VmId);
        }
        let mid = (lo + hi) / 2;
        self.find(2 * node, lo, mid, from, need)
            .or_else(|| self.find(2 * node + 1, mid, hi, from, need))
    }

    /// The active VMs (at `site` if given) with room for one executor of `demand`,
    /// ascending from `from`.
    pub fn fits_from<'a>(
        &'a self,
        from: usize,
        demand: &'a Resources,
        site: Option<Site>,
    ) -> impl Iterator<Item = VmId> + 'a {
        let mut next = self.next_fit(from, demand, site);
        std::iter::from_fn(move || {
            let id = next?;
            next = self.next_fit(id as usize + 1, demand, site);
            Some(id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::FitTree;
    use crate::cluster::Site;
    use crate::resources::Resources;

    /// Random updates, then every query agrees with a scan of the leaves: the first VM at
    /// or after `from` that is active, at the site asked for and has room.
    #[test]
    fn next_fit_is_the_first_fit_a_scan_finds() {
        let n = 300;
        let mut tree = FitTree::new(n);
        let mut state: Vec<Option<(Site, Resources)>> = vec![None; n];
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m) as u32
        };
        for _ in 0..5_000 {
            let id = next(n as u64);
            let vm = (next(4) > 0).then(|| {
                let site = if next(2) == 0 {
                    Site::Local
                } else {
                    Site::Cloud
                };
                (
                    site,
                    Resources::new(next(9), next(9) * 1024).with_gpu_milli(next(3) * 500),
                )
            });
            state[id as usize] = vm;
            tree.set(id, vm.as_ref().map(|(s, f)| (*s, f)));
            let demand = Resources::new(next(5), next(5) * 1024).with_gpu_milli(next(2) * 500);
            let site = [None, Some(Site::Local), Some(Site::Cloud)][next(3) as usize];
            let from = next(n as u64 + 5) as usize;
            let want = (from..n).find(|&i| {
                state[i].is_some_and(|(s, f)| f.fits(&demand) && site.is_none_or(|w| w == s))
            });
            assert_eq!(tree.next_fit(from, &demand, site), want.map(|i| i as u32));
        }
    }
}

//! Multi-dimensional resource vectors (paper 004 §4.2: executors as items with
//! multi-dimensional volumes, VMs as bins).
//!
//! Every per-dimension operation lives here, so adding a dimension (GPUs, network
//! bandwidth) means extending [`RESOURCE_DIMS`] and the named constructors only.

use serde::{Deserialize, Serialize};

/// Number of resource dimensions: CPU cores and memory.
pub const RESOURCE_DIMS: usize = 2;
/// Index of the CPU dimension (unit: cores).
pub const CPU: usize = 0;
/// Index of the memory dimension (unit: MiB).
pub const MEMORY: usize = 1;

/// Each dimension's name and unit, for messages.
pub const DIM_UNITS: [&str; RESOURCE_DIMS] = ["cores", "memory MiB"];

/// MiB per GiB.
pub const MIB_PER_GIB: u32 = 1024;

/// An amount of every resource: `[cores, memory MiB]`.
///
/// Integer units keep capacity checks exact: cores are whole cores, memory is
/// counted in MiB (so 512 MiB executors are representable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resources(pub [u32; RESOURCE_DIMS]);

impl Resources {
    /// No resources.
    pub const ZERO: Resources = Resources([0; RESOURCE_DIMS]);

    /// `cores` CPU cores and `memory_mib` MiB of memory.
    pub const fn new(cores: u32, memory_mib: u32) -> Self {
        Resources([cores, memory_mib])
    }

    /// `cores` CPU cores and `memory_gib` GiB of memory.
    pub const fn from_gib(cores: u32, memory_gib: u32) -> Self {
        Resources([cores, memory_gib * MIB_PER_GIB])
    }

    /// CPU cores.
    pub const fn cores(&self) -> u32 {
        self.0[CPU]
    }

    /// Memory in MiB.
    pub const fn memory_mib(&self) -> u32 {
        self.0[MEMORY]
    }

    /// Memory in GiB (fractional).
    pub fn memory_gib(&self) -> f64 {
        f64::from(self.0[MEMORY]) / f64::from(MIB_PER_GIB)
    }

    /// True if `demand` fits in `self` in every dimension.
    #[inline]
    pub fn fits(&self, demand: &Resources) -> bool {
        self.0.iter().zip(demand.0.iter()).all(|(a, d)| d <= a)
    }

    /// How many copies of `demand` fit in `self` (the executor slots of a VM for one
    /// job). A zero dimension of `demand` never limits; an all-zero demand gives
    /// `u32::MAX`.
    #[inline]
    pub fn copies_of(&self, demand: &Resources) -> u32 {
        let mut k = u32::MAX;
        for (a, d) in self.0.iter().zip(demand.0.iter()) {
            if *d > 0 {
                k = k.min(a / d);
            }
        }
        k
    }

    /// `self + other`, dimension-wise (saturating).
    #[inline]
    pub fn plus(&self, other: &Resources) -> Resources {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a = a.saturating_add(*b);
        }
        r
    }

    /// `self - other`, dimension-wise; `None` if any dimension would go negative.
    #[inline]
    pub fn minus(&self, other: &Resources) -> Option<Resources> {
        let mut r = *self;
        for (a, b) in r.0.iter_mut().zip(other.0.iter()) {
            *a = a.checked_sub(*b)?;
        }
        Some(r)
    }

    /// `self × n`, dimension-wise (saturating).
    #[inline]
    pub fn times(&self, n: u32) -> Resources {
        let mut r = *self;
        for a in r.0.iter_mut() {
            *a = a.saturating_mul(n);
        }
        r
    }

    /// True if every dimension is zero.
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|a| *a == 0)
    }
}

impl std::fmt::Display for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cores, {:.2} GiB", self.cores(), self.memory_gib())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_is_limited_by_the_scarcest_dimension() {
        let vm = Resources::from_gib(8, 32);
        assert_eq!(vm.copies_of(&Resources::from_gib(2, 4)), 4);
        assert_eq!(vm.copies_of(&Resources::from_gib(1, 10)), 3);
        assert_eq!(vm.copies_of(&Resources::from_gib(9, 1)), 0);
    }

    #[test]
    fn minus_refuses_to_go_negative() {
        let a = Resources::new(2, 100);
        assert_eq!(a.minus(&Resources::new(1, 100)), Some(Resources::new(1, 0)));
        assert_eq!(a.minus(&Resources::new(3, 1)), None);
    }
}

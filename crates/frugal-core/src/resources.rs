//! Multi-dimensional resource vectors (paper 004 §4.2: executors as items with
//! multi-dimensional volumes, VMs as bins).
//!
//! Every per-dimension operation lives here, so adding a dimension (network bandwidth)
//! means extending [`RESOURCE_DIMS`] and the named constructors only. GPUs are the third
//! dimension, counted in milli-GPUs so that GPU-sharing tasks (a fraction of one GPU, as
//! in the Alibaba GPU cluster trace of 2023) and whole-GPU tasks share one unit.
//!
//! The GPU dimension is a pool per VM: a VM with 2 GPUs offers 2,000 milli-GPUs, and three
//! 600-milli shares fit it, although on the physical GPUs only two would (one per GPU:
//! 1,200 > 1,000). Which GPU a share lands on — the fragmentation that Weng et al.,
//! USENIX ATC 2023, schedule against — is not modelled; a request of n whole GPUs is
//! n × 1,000 milli-GPUs of the pool.

use serde::{Deserialize, Serialize};

/// Number of resource dimensions: CPU cores, memory and GPUs.
pub const RESOURCE_DIMS: usize = 3;
/// Index of the CPU dimension (unit: cores).
pub const CPU: usize = 0;
/// Index of the memory dimension (unit: MiB).
pub const MEMORY: usize = 1;
/// Index of the GPU dimension (unit: milli-GPUs, 1,000 per GPU).
pub const GPU: usize = 2;

/// Each dimension's name and unit, for messages.
pub const DIM_UNITS: [&str; RESOURCE_DIMS] = ["cores", "memory MiB", "milli-GPUs"];

/// MiB per GiB.
pub const MIB_PER_GIB: u32 = 1024;
/// Milli-GPUs per GPU.
pub const MILLI_PER_GPU: u32 = 1000;

/// An amount of every resource: `[cores, memory MiB, milli-GPUs]`.
///
/// Integer units keep capacity checks exact: cores are whole cores, memory is
/// counted in MiB (so 512 MiB executors are representable), GPUs in thousandths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Resources(pub [u32; RESOURCE_DIMS]);

impl Resources {
    /// No resources.
    pub const ZERO: Resources = Resources([0; RESOURCE_DIMS]);

    /// `cores` CPU cores and `memory_mib` MiB of memory, no GPU.
    pub const fn new(cores: u32, memory_mib: u32) -> Self {
        Resources([cores, memory_mib, 0])
    }

    /// `cores` CPU cores and `memory_gib` GiB of memory, no GPU.
    pub const fn from_gib(cores: u32, memory_gib: u32) -> Self {
        Resources([cores, memory_gib * MIB_PER_GIB, 0])
    }

    /// `self` with `milli_gpus` thousandths of a GPU (1,000 = one whole GPU).
    pub const fn with_gpu_milli(mut self, milli_gpus: u32) -> Self {
        self.0[GPU] = milli_gpus;
        self
    }

    /// GPUs in milli-GPUs (1,000 = one GPU).
    pub const fn gpu_milli(&self) -> u32 {
        self.0[GPU]
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
        write!(f, "{} cores, {:.2} GiB", self.cores(), self.memory_gib())?;
        if self.gpu_milli() > 0 {
            write!(
                f,
                ", {} GPUs",
                f64::from(self.gpu_milli()) / f64::from(MILLI_PER_GPU)
            )?;
        }
        Ok(())
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
    fn gpu_shares_fit_the_pool_and_zero_dimensions_never_limit() {
        // An 8-core, 32 GiB VM with 2 GPUs; a task of 1 core, 4 GiB and 0.6 GPU.
        let vm = Resources::from_gib(8, 32).with_gpu_milli(2 * MILLI_PER_GPU);
        let share = Resources::from_gib(1, 4).with_gpu_milli(600);
        assert_eq!(
            vm.copies_of(&share),
            3,
            "⌊2000 / 600⌋ = 3 < 8 cores, 8 × 4 GiB"
        );
        assert_eq!(
            vm.copies_of(&Resources::from_gib(1, 4)),
            8,
            "a CPU task ignores GPUs"
        );
        assert_eq!(
            Resources::from_gib(64, 256).copies_of(&share),
            0,
            "no GPU, no fit"
        );
        assert_eq!(share.to_string(), "1 cores, 4.00 GiB, 0.6 GPUs");
        assert_eq!(Resources::from_gib(1, 4).to_string(), "1 cores, 4.00 GiB");
    }

    #[test]
    fn minus_refuses_to_go_negative() {
        let a = Resources::new(2, 100);
        assert_eq!(a.minus(&Resources::new(1, 100)), Some(Resources::new(1, 0)));
        assert_eq!(a.minus(&Resources::new(3, 1)), None);
    }
}

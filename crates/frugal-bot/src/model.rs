//! Machines and schedules (paper 003 §3.1, Tables 1 and 3).
//!
//! A core of speed r MHz that has been given work W GHz·s (its tasks back to back from
//! t = 0) finishes at F = 1000 · W / r s. Appending a task of work w there is feasible iff
//! it ends by its deadline α·w/2: **2000 · (W + w) ≤ α · w · r** — integers only, so no
//! rounding ever changes a decision.

use serde::Serialize;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Site;

/// A kind of machine: physical (owned; draws power) or a cloud VM type (rented by the
/// started hour).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MachineType {
    /// Name, e.g. `type-1` or `c3.large`.
    pub name: String,
    /// Cores (a vCPU counts as a core).
    pub cores: u32,
    /// Clock speed of each core, MHz.
    pub mhz: u64,
    /// VMs: rent in dollars per hour, billed per started hour (Eq. 5). PMs: `None`.
    pub price_per_hour: Option<f64>,
    /// PMs: power at idle and at full load, watts (Eq. 10: 70 and 110).
    pub watts: (f64, f64),
}

impl MachineType {
    /// Capacity N · r, MHz (the "most capacity" order of §3.2).
    pub fn capacity_mhz(&self) -> u64 {
        u64::from(self.cores) * self.mhz
    }

    /// True if a core of this type can meet any task's deadline at `alpha` when alone:
    /// w / r ≤ α·w/2 for every w, i.e. α · r ≥ 2000 MHz.
    pub fn can_meet_deadlines(&self, alpha: u32) -> bool {
        u64::from(alpha) * self.mhz > 2000
    }
}

/// Paper 003's machine file, shipped in the crate.
pub const PAPER003: &str = include_str!("../machines/paper003.toml");

/// The machines a bag may use.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Setup {
    /// The PMs, each by its type (used in this order for ties: lowest index first).
    pub pms: Vec<MachineType>,
    /// The VM types that may be rented (any number of each).
    pub vm_types: Vec<MachineType>,
}

impl Setup {
    /// Paper 003's machines (`machines/paper003.toml`): `scale` × (5 PMs of each Table 3
    /// type: 8 × 2.378 GHz, 8 × 2.33 GHz, 4 × 2.216 GHz; 70 W idle, 110 W busy) and EC2
    /// c3.large VMs (2 cores at 2.7 GHz, $0.105 per started hour).
    ///
    /// # Panics
    /// If `scale` × 15 exceeds the machine files' limit of 1,000,000 PMs.
    pub fn paper003(scale: u32) -> Setup {
        Setup::from_toml(PAPER003, "machines/paper003.toml", scale)
            .expect("the shipped machine file is valid for this scale")
    }

    /// The VM type HA and FFD rent (§3.2, lines 9–14): among the types whose cores can
    /// meet every task's deadline alone (C1), the best cost-performance N·r/p (C2), then
    /// the lowest price (C3), then the first listed.
    pub fn vm_type_to_rent(&self, alpha: u32) -> Option<usize> {
        let mut best: Option<(usize, &MachineType)> = None;
        for (i, t) in self.vm_types.iter().enumerate() {
            let Some(p) = t.price_per_hour.filter(|p| *p > 0.0) else {
                continue;
            };
            if !t.can_meet_deadlines(alpha) {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, b)) => {
                    let bp = b.price_per_hour.unwrap_or(f64::INFINITY);
                    let (perf, best_perf) =
                        (t.capacity_mhz() as f64 / p, b.capacity_mhz() as f64 / bp);
                    perf > best_perf || (perf == best_perf && p < bp)
                }
            };
            if better {
                best = Some((i, t));
            }
        }
        best.map(|(i, _)| i)
    }
}

/// Where a machine of a schedule comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// PM number i of [`Setup::pms`].
    Pm(usize),
    /// A rented VM of type i of [`Setup::vm_types`].
    Vm(usize),
}

impl Origin {
    /// Local (PM) or cloud (VM).
    pub fn site(&self) -> Site {
        match self {
            Origin::Pm(_) => Site::Local,
            Origin::Vm(_) => Site::Cloud,
        }
    }
}

/// One core of a used machine: the tasks it runs back to back, in order, and their work.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Core {
    /// Indices into the bag's tasks, in execution order.
    pub tasks: Vec<u32>,
    /// Their total work W, GHz·s.
    pub work: u64,
}

/// A used machine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Machine {
    /// Which PM or VM type.
    pub origin: Origin,
    /// Core speed, MHz.
    pub mhz: u64,
    /// Its cores.
    pub cores: Vec<Core>,
}

impl Machine {
    /// A new machine with empty cores.
    pub fn new(origin: Origin, t: &MachineType) -> Machine {
        Machine {
            origin,
            mhz: t.mhz,
            cores: vec![Core::default(); t.cores as usize],
        }
    }

    /// Seconds core work `w` takes here.
    pub fn seconds(&self, work: u64) -> f64 {
        1000.0 * work as f64 / self.mhz as f64
    }

    /// The machine's usage time τ (Eq. 3–4): its latest core finish, seconds.
    pub fn usage_s(&self) -> f64 {
        self.seconds(self.cores.iter().map(|c| c.work).max().unwrap_or(0))
    }

    /// Billed hours of a VM: its usage time rounded up to started hours (Eq. 5), by
    /// frugal-core's per-hour billing. Exact: with integer work and speed, a usage time
    /// that is not a whole number of hours is at least 1/r s away from one.
    pub fn billed_hours(&self) -> f64 {
        BillingGranularity::PerHour.billed_seconds(self.usage_s()) / 3600.0
    }
}

/// True if appending work `w` (deadline α·w/2) to a core of speed `mhz` holding work
/// `core_work` meets the deadline: 2000 · (W + w) ≤ α · w · r.
#[inline]
pub fn fits(core_work: u64, w: u64, alpha: u32, mhz: u64) -> bool {
    2000 * u128::from(core_work + w) <= u128::from(alpha) * u128::from(w) * u128::from(mhz)
}

/// A schedule of a bag: the machines it used, PMs and VMs in the order they were added.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Schedule {
    /// The used machines.
    pub machines: Vec<Machine>,
}

/// A bag cannot be scheduled.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScheduleError {
    /// No machine can meet a deadline at this α.
    #[error(
        "no VM type can run a task by its deadline at alpha {alpha} (a core needs over {} MHz)",
        2000 / (*alpha).max(1)
    )]
    NoVmType {
        /// The deadline factor.
        alpha: u32,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feasibility_is_exact_at_the_deadline() {
        // 2.7 GHz core, α = 1: a task meets its deadline w/2 alone iff 1000·w/2700 ≤ w/2.
        assert!(fits(0, 100, 1, 2700));
        // After 35 GHz·s of work: 2000·(35 + 100) = 270,000 = 1·100·2700, exactly on time.
        assert!(fits(35, 100, 1, 2700));
        assert!(!fits(36, 100, 1, 2700));
        assert!(
            !MachineType {
                mhz: 2000,
                ..Setup::paper003(1).pms[0].clone()
            }
            .can_meet_deadlines(1)
        );
    }

    #[test]
    fn vms_are_billed_per_started_hour() {
        let vm = |work| Machine {
            origin: Origin::Vm(0),
            mhz: 2700,
            cores: vec![
                Core {
                    tasks: vec![],
                    work,
                },
                Core::default(),
            ],
        };
        // 2.7 GHz × 3600 s = 9,720 GHz·s is exactly one hour.
        assert_eq!(vm(9720).billed_hours(), 1.0);
        assert_eq!(vm(9721).billed_hours(), 2.0);
        assert_eq!(vm(1).billed_hours(), 1.0);
    }

    #[test]
    fn the_paper_rents_c3_large() {
        let s = Setup::paper003(2);
        assert_eq!(s.pms.len(), 30);
        assert_eq!(s.pms.iter().map(|p| p.cores).sum::<u32>(), 200);
        assert_eq!(s.vm_type_to_rent(1), Some(0));
    }
}

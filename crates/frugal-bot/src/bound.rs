//! A lower bound on the rent of any schedule of a bag (paper 003 gives none).
//!
//! **Relaxation.** Tasks may be split between local and cloud, and the local part of a
//! task may be spread over any PM cores; what stays is what every real schedule obeys:
//!
//! - On a PM core of speed r, the tasks with deadline ≤ D all end by D (each meets its
//!   deadline), so their work is at most r·D; and all of the core's work ends with its
//!   last task, so it is at most r·D_c, D_c that task's deadline. The last tasks of
//!   different cores are different tasks, so pairing the C largest deadlines with the C
//!   fastest cores (largest with fastest) bounds every choice: the local work of tasks
//!   with deadline ≤ D is at most **Cap(D) = Σ_c r_c · min(D, D_(c))**.
//! - Deadlines grow with work (d = α·w/2), so filling tasks in increasing work with
//!   y_k = min(w_k, Cap(d_k) − Σ_{j<k} y_j) maximises the local work L under these
//!   nested constraints (a greedy on a chain of prefix constraints).
//! - The rest, Σw − L GHz·s, runs on VMs. A VM-hour of type v supplies 3.6·N_v·r_v
//!   GHz·s (r in MHz) for p_v dollars, so the rent is at least the cheapest rate times
//!   that work — rounded up to whole VM-hours when a single VM type can be rented.
//!
//! All arithmetic is in integers (work scaled by 2000) up to the final division.

use crate::model::Setup;
use crate::tasks::Task;

/// The bound and the parts it is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RentBound {
    /// Most work the PMs can take by the tasks' deadlines, GHz·s (the relaxation's L).
    pub local_work_max: f64,
    /// Work that must run on VMs, GHz·s.
    pub cloud_work_min: f64,
    /// No schedule rents for less, dollars.
    pub rent_usd: f64,
}

/// The lower bound on the rent of `tasks` at deadline factor `alpha` on `setup`
/// (derivation in the module documentation). O(T log T + C log C).
pub fn rent_lower_bound(setup: &Setup, tasks: &[Task], alpha: u32) -> RentBound {
    let a = u128::from(alpha);
    // PM core speeds that can meet a deadline at all, fastest first.
    let mut speeds: Vec<u128> = setup
        .pms
        .iter()
        .filter(|t| t.can_meet_deadlines(alpha))
        .flat_map(|t| std::iter::repeat_n(u128::from(t.mhz), t.cores as usize))
        .collect();
    speeds.sort_unstable_by(|x, y| y.cmp(x));
    let mut works: Vec<u128> = tasks.iter().map(|t| u128::from(t.work)).collect();
    works.sort_unstable();
    // The C largest works, largest first, paired with the fastest speeds.
    let pairs: Vec<(u128, u128)> = works.iter().rev().copied().zip(speeds).collect();
    // 2000 · Cap(α·w/2) = α · Σ_c r_c · min(w, w_(c)). Walking w upwards, the pairs with
    // w_(c) ≤ w (a suffix of `pairs`) contribute r·w_(c), the others r·w.
    let mut capped = 0u128; // Σ r·w_(c) over pairs with w_(c) ≤ w
    let mut open: u128 = pairs.iter().map(|&(_, r)| r).sum(); // Σ r over the others
    let mut boundary = pairs.len(); // pairs[boundary..] are capped
    let (mut local2000, mut total2000) = (0u128, 0u128);
    for &w in &works {
        while boundary > 0 && pairs[boundary - 1].0 <= w {
            boundary -= 1;
            let (wc, r) = pairs[boundary];
            capped += r * wc;
            open -= r;
        }
        let cap2000 = a * (capped + open * w);
        local2000 += (2000 * w).min(cap2000.saturating_sub(local2000));
        total2000 += 2000 * w;
    }
    let cloud2000 = total2000 - local2000;
    let rentable: Vec<_> = (setup.vm_types.iter())
        .filter(|t| t.can_meet_deadlines(alpha) && t.price_per_hour.is_some_and(|p| p > 0.0))
        .collect();
    // Dollars per GHz·s of the cheapest rate, and the VM-hour size when there is one type.
    let rate = |t: &crate::model::MachineType| {
        t.price_per_hour.unwrap_or(f64::INFINITY) / (3.6 * t.capacity_mhz() as f64)
    };
    let rent_usd = match rentable.as_slice() {
        [] if cloud2000 > 0 => f64::INFINITY,
        [] => 0.0,
        [t] => {
            let hour2000 = 7200 * u128::from(t.capacity_mhz());
            cloud2000.div_ceil(hour2000) as f64 * t.price_per_hour.unwrap_or(0.0)
        }
        types => {
            let best = types.iter().map(|t| rate(t)).fold(f64::INFINITY, f64::min);
            best * cloud2000 as f64 / 2000.0
        }
    };
    RentBound {
        local_work_max: local2000 as f64 / 2000.0,
        cloud_work_min: cloud2000 as f64 / 2000.0,
        rent_usd,
    }
}

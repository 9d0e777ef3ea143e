//! RA, the reassignment algorithm of paper 003 (§3.3, Algorithm 2), run after HA or FFD.
//!
//! On each machine, PMs and VMs alike, repeat: take the last task of the core that
//! finishes latest (ties: lowest core index) and the core that finishes earliest (ties:
//! lowest index); if appending the task there ends it strictly before the latest finish,
//! F(c_min) + τ_t < F(c_max), move it; otherwise stop. All cores of a machine share one
//! speed, so the test is on work: W_min + w < W_max.
//!
//! What it preserves: the moved task ends earlier than before, so every deadline that was
//! met stays met; no machine is added, so the VMs rented are unchanged (Fig. 9), and a
//! VM's latest finish never grows, so its billed hours can only fall (Fig. 2). Each move
//! lowers the machine's sorted load vector lexicographically, so the loop ends.

use crate::model::{Machine, Schedule};
use crate::tasks::Task;

/// Rebalances every machine of `schedule` in place; returns the number of tasks moved.
pub fn rebalance(schedule: &mut Schedule, tasks: &[Task]) -> u64 {
    schedule
        .machines
        .iter_mut()
        .map(|m| rebalance_machine(m, tasks))
        .sum()
}

/// RA on one machine.
fn rebalance_machine(machine: &mut Machine, tasks: &[Task]) -> u64 {
    let mut moves = 0;
    loop {
        let cores = &machine.cores;
        // max_by_key returns the last maximum; scan in reverse to get the lowest index.
        let Some(max) = (0..cores.len()).rev().max_by_key(|&c| cores[c].work) else {
            return moves;
        };
        let min = (0..cores.len())
            .min_by_key(|&c| cores[c].work)
            .expect("a machine with a busiest core has a core");
        let Some(&t) = cores[max].tasks.last() else {
            return moves;
        };
        let w = tasks[t as usize].work;
        if cores[min].work + w >= cores[max].work {
            return moves;
        }
        let from = &mut machine.cores[max];
        from.tasks.pop();
        from.work -= w;
        let to = &mut machine.cores[min];
        to.tasks.push(t);
        to.work += w;
        moves += 1;
    }
}

//! HA, the heuristic algorithm of paper 003 (§3.2, Algorithm 1).
//!
//! Repeatedly give a core the task that finishes there closest to, but not after, its
//! deadline (least slack d − F). When no pair of an unassigned task and a core of the
//! machines in use is feasible, add a machine: the unused PM with the most capacity
//! N·r (ties: lowest PM index), or once every PM is in use, a rented VM of the type
//! [`Setup::vm_type_to_rent`] picks. Tie-breaks: least slack, then lowest core (machines
//! in the order added, cores by index), then lowest task index (log order).
//!
//! Why it is fast ([`schedule`], O(T · N · log T) for N cores per machine): when a machine
//! is added no older core has a feasible task, their finish times never change again and
//! the unassigned set only shrinks, so only the newest machine's cores can take tasks.
//! With d = α·w/2 the slack numerator on a core (speed r, work W) is
//! w·(α·r − 2000) − 2000·W, increasing in w: the core's best task is the smallest
//! unassigned w ≥ 2000·W / (α·r − 2000), one ordered-set lookup. [`schedule_naive`]
//! searches every pair, as the paper's O(T·(P + T + N_RV)) algorithm does; a property
//! test checks both give identical schedules.

use std::collections::BTreeSet;

use crate::model::{Machine, Origin, Schedule, ScheduleError, Setup, fits};
use crate::tasks::Task;

/// PM indices by capacity, most first (ties: lowest index).
pub(crate) fn pm_order(setup: &Setup, alpha: u32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..setup.pms.len())
        .filter(|&i| setup.pms[i].can_meet_deadlines(alpha))
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(setup.pms[i].capacity_mhz()), i));
    order
}

/// Adds the next machine: the next PM of `pms`, else a VM.
fn add_machine(
    setup: &Setup,
    alpha: u32,
    pms: &mut std::slice::Iter<'_, usize>,
    schedule: &mut Schedule,
) -> Result<(), ScheduleError> {
    let machine = match pms.next() {
        Some(&i) => Machine::new(Origin::Pm(i), &setup.pms[i]),
        None => {
            let v = setup
                .vm_type_to_rent(alpha)
                .ok_or(ScheduleError::NoVmType { alpha })?;
            Machine::new(Origin::Vm(v), &setup.vm_types[v])
        }
    };
    schedule.machines.push(machine);
    Ok(())
}

/// Schedules `tasks` with HA at deadline factor `alpha` (fast form).
///
/// # Errors
/// [`ScheduleError::NoVmType`] if work remains once the PMs are used and no VM type can
/// meet deadlines at `alpha`.
pub fn schedule(setup: &Setup, tasks: &[Task], alpha: u32) -> Result<Schedule, ScheduleError> {
    let mut left: BTreeSet<(u64, u32)> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.work, i as u32))
        .collect();
    let order = pm_order(setup, alpha);
    let mut pms = order.iter();
    let mut schedule = Schedule::default();
    let a = u128::from(alpha);
    while !left.is_empty() {
        // The newest machine's best pair: (slack numerator, core, task).
        let best = schedule.machines.last().and_then(|m| {
            let r = u128::from(m.mhz);
            let gain = a * r - 2000;
            m.cores
                .iter()
                .enumerate()
                .filter_map(|(c, core)| {
                    let threshold = (2000 * u128::from(core.work)).div_ceil(gain);
                    let threshold = u64::try_from(threshold).unwrap_or(u64::MAX);
                    let &(w, i) = left.range((threshold, 0)..).next()?;
                    let slack = u128::from(w) * gain - 2000 * u128::from(core.work);
                    Some((slack, c, w, i))
                })
                .min_by_key(|&(slack, c, ..)| (slack, c))
        });
        match best {
            Some((_, c, w, i)) => {
                left.remove(&(w, i));
                let core = &mut schedule
                    .machines
                    .last_mut()
                    .expect("a best pair has a machine")
                    .cores[c];
                core.tasks.push(i);
                core.work += w;
            }
            None => add_machine(setup, alpha, &mut pms, &mut schedule)?,
        }
    }
    Ok(schedule)
}

/// HA as the paper states it: every feasible (task, core) pair, least slack first, over
/// the cores that still have one — O(T · (T·C_live + P + N_RV)), the paper's
/// O(T·(P + T + N_RV)) class. A core found with no feasible task is dropped for good:
/// nothing is appended to it any more, so its finish time stays and the unassigned set
/// only shrinks. This is the reference [`schedule`] is tested against, and the
/// implementation timed with `--implementation reference`.
///
/// # Errors
/// As [`schedule`].
pub fn schedule_naive(
    setup: &Setup,
    tasks: &[Task],
    alpha: u32,
) -> Result<Schedule, ScheduleError> {
    let mut assigned = vec![false; tasks.len()];
    let order = pm_order(setup, alpha);
    let mut pms = order.iter();
    let mut schedule = Schedule::default();
    // Cores that may still take a task: (machine, core).
    let mut live: Vec<(usize, usize)> = Vec::new();
    for _ in 0..tasks.len() {
        loop {
            // Least slack d − F over the live pairs, as a fraction (numerator, 2r).
            let mut best: Option<(u128, u128, usize, usize, usize)> = None;
            live.retain(|&(m, c)| {
                let machine = &schedule.machines[m];
                let core = &machine.cores[c];
                let r = u128::from(machine.mhz);
                let mut any = false;
                for (i, t) in tasks.iter().enumerate() {
                    if assigned[i] || !fits(core.work, t.work, alpha, machine.mhz) {
                        continue;
                    }
                    any = true;
                    let num = u128::from(alpha) * u128::from(t.work) * r
                        - 2000 * u128::from(core.work + t.work);
                    if best.is_none_or(|(bn, bd, ..)| num * bd < bn * 2 * r) {
                        best = Some((num, 2 * r, m, c, i));
                    }
                }
                any
            });
            match best {
                Some((_, _, m, c, i)) => {
                    assigned[i] = true;
                    let core = &mut schedule.machines[m].cores[c];
                    core.tasks.push(i as u32);
                    core.work += tasks[i].work;
                    break;
                }
                None => {
                    add_machine(setup, alpha, &mut pms, &mut schedule)?;
                    let m = schedule.machines.len() - 1;
                    live.extend((0..schedule.machines[m].cores.len()).map(|c| (m, c)));
                }
            }
        }
    }
    Ok(schedule)
}

//! First Fit Decreasing, the baseline of paper 003 (§4.1, ref. [32]): "assigning the
//! longest task to the first core on which it will fit".
//!
//! Tasks go in decreasing work (ties: log order, a stable sort). The core list is every
//! PM core — PMs by capacity N·r, most first, ties lowest index, cores by index — then the
//! cores of the VMs in the order they were rented. A task takes the first core where it
//! still meets its deadline when appended; if none, a VM is rented
//! ([`Setup::vm_type_to_rent`]) and the task goes to its core 0.
//!
//! Why [`schedule`] is linear after the sort: a core of speed r with work W fits a task
//! of work w iff w ≥ 2000·W / (α·r − 2000). Tasks arrive in decreasing w and W only
//! grows, so a core that rejects one task rejects every later one. The first fitting
//! core is therefore never left of the last core that fitted: one pointer sweeps the list
//! once, O(T log T + C) in all. [`schedule_naive`] scans from the first core for every
//! task (the paper's O(T·(P + N_RV))); a property test checks both agree.

use crate::ha::pm_order;
use crate::model::{Machine, Origin, Schedule, ScheduleError, Setup, fits};
use crate::tasks::Task;

/// Task indices by work, largest first (stable: ties keep log order).
fn decreasing(tasks: &[Task]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..tasks.len() as u32).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tasks[i as usize].work));
    order
}

/// The PMs as empty machines, in FFD's core-list order.
fn pms(setup: &Setup, alpha: u32) -> Vec<Machine> {
    pm_order(setup, alpha)
        .into_iter()
        .map(|i| Machine::new(Origin::Pm(i), &setup.pms[i]))
        .collect()
}

/// Rents the VM a task that fits nowhere goes to.
fn rent(setup: &Setup, alpha: u32) -> Result<Machine, ScheduleError> {
    let v = setup
        .vm_type_to_rent(alpha)
        .ok_or(ScheduleError::NoVmType { alpha })?;
    Ok(Machine::new(Origin::Vm(v), &setup.vm_types[v]))
}

/// The schedule without the PMs that got no task (they are neither used nor powered).
fn used(machines: Vec<Machine>) -> Schedule {
    Schedule {
        machines: machines
            .into_iter()
            .filter(|m| m.cores.iter().any(|c| !c.tasks.is_empty()))
            .collect(),
    }
}

/// Schedules `tasks` with FFD at deadline factor `alpha` (one-pointer form).
///
/// # Errors
/// [`ScheduleError::NoVmType`] if a task fits on no PM and no VM type can meet
/// deadlines at `alpha`.
pub fn schedule(setup: &Setup, tasks: &[Task], alpha: u32) -> Result<Schedule, ScheduleError> {
    let mut machines = pms(setup, alpha);
    // The core list: (machine, core), PMs first, VMs appended as rented.
    let mut cores: Vec<(usize, usize)> = machines
        .iter()
        .enumerate()
        .flat_map(|(m, machine)| (0..machine.cores.len()).map(move |c| (m, c)))
        .collect();
    let mut next = 0;
    for i in decreasing(tasks) {
        let w = tasks[i as usize].work;
        loop {
            if next == cores.len() {
                let vm = rent(setup, alpha)?;
                cores.extend((0..vm.cores.len()).map(|c| (machines.len(), c)));
                machines.push(vm);
            }
            let (m, c) = cores[next];
            let machine = &mut machines[m];
            if fits(machine.cores[c].work, w, alpha, machine.mhz) {
                machine.cores[c].tasks.push(i);
                machine.cores[c].work += w;
                break;
            }
            next += 1;
        }
    }
    Ok(used(machines))
}

/// FFD scanning the core list from its start for every task — O(T·C). The reference
/// [`schedule`] is tested against.
///
/// # Errors
/// As [`schedule`].
pub fn schedule_naive(
    setup: &Setup,
    tasks: &[Task],
    alpha: u32,
) -> Result<Schedule, ScheduleError> {
    let mut machines = pms(setup, alpha);
    for i in decreasing(tasks) {
        let w = tasks[i as usize].work;
        let spot = machines.iter().enumerate().find_map(|(m, machine)| {
            let c = (machine.cores.iter()).position(|c| fits(c.work, w, alpha, machine.mhz))?;
            Some((m, c))
        });
        let (m, c) = match spot {
            Some(spot) => spot,
            None => {
                machines.push(rent(setup, alpha)?);
                (machines.len() - 1, 0)
            }
        };
        machines[m].cores[c].tasks.push(i);
        machines[m].cores[c].work += w;
    }
    Ok(used(machines))
}

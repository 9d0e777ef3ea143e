//! Small bags worked out by hand: HA, FFD and RA decisions, per-started-hour billing,
//! PM energy, the lower bound and the exact optimum.

use frugal_bot::bound::rent_lower_bound;
use frugal_bot::experiment::Implementation::Fast;
use frugal_bot::experiment::{Measures, schedule, validate};
use frugal_bot::model::{Core, Machine, Origin};
use frugal_bot::{MachineType, Policy, Schedule, Setup, Task};

fn pm(cores: u32, mhz: u64) -> MachineType {
    MachineType {
        name: "pm".into(),
        cores,
        mhz,
        price_per_hour: None,
        watts: (70.0, 110.0),
    }
}

fn c3_large() -> MachineType {
    MachineType {
        name: "c3.large".into(),
        cores: 2,
        mhz: 2700,
        price_per_hour: Some(0.105),
        watts: (0.0, 0.0),
    }
}

fn bag(works: &[u64]) -> Vec<Task> {
    works
        .iter()
        .enumerate()
        .map(|(i, &work)| Task {
            id: i as u64 + 1,
            work,
        })
        .collect()
}

/// Per core: the works of its tasks, in execution order.
fn layout(s: &Schedule, tasks: &[Task]) -> Vec<(Origin, Vec<Vec<u64>>)> {
    s.machines
        .iter()
        .map(|m| {
            let cores = m
                .cores
                .iter()
                .map(|c| c.tasks.iter().map(|&t| tasks[t as usize].work).collect())
                .collect();
            (m.origin, cores)
        })
        .collect()
}

/// One PM of two 2.5 GHz cores, c3.large VMs, α = 1: a core with work W fits a task of
/// work w iff 2000·(W + w) ≤ 2500·w, i.e. w ≥ 4·W (on a VM core: w ≥ 20·W/7).
#[test]
fn ha_chains_small_tasks_where_ffd_rents_two_vms() {
    let setup = Setup {
        pms: vec![pm(2, 2500)],
        vm_types: vec![c3_large()],
    };
    let tasks = bag(&[1, 4, 5, 20, 30]);
    // HA. Core 0 takes 1 (slack numerator 500·w − 2000·W = 500, tie with core 1 → lower
    // core), then 4 (slack 0 on core 0 vs 2000 on core 1), then 20 (0 vs 2,500). Core 0
    // (W = 25) now needs w ≥ 100; core 1 takes 5, then 30 (w ≥ 20).
    let (ha, _) = schedule(Policy::Ha, &setup, &tasks, 1, Fast).unwrap();
    assert_eq!(
        layout(&ha, &tasks),
        vec![(Origin::Pm(0), vec![vec![1, 4, 20], vec![5, 30]])]
    );
    let m = Measures::of(&ha, &setup, &tasks, 1);
    assert_eq!((m.rent_usd, m.vms, m.deadline_misses), (0.0, 0, 0));
    assert_eq!(m.makespan_s, 14.0); // 35 GHz·s at 2.5 GHz

    // FFD, largest first: 30 → PM core 0; 20 needs W ≤ 5 there, so core 1; 5 fits
    // neither PM core (needs W ≤ 1.25) → VM 1 core 0; 4 needs W ≤ 1.4 → VM 1 core 1;
    // 1 fits no core → VM 2.
    let (ffd, moves) = schedule(Policy::FfdRa, &setup, &tasks, 1, Fast).unwrap();
    assert_eq!(
        layout(&ffd, &tasks),
        vec![
            (Origin::Pm(0), vec![vec![30], vec![20]]),
            (Origin::Vm(0), vec![vec![5], vec![4]]),
            (Origin::Vm(0), vec![vec![1], vec![]]),
        ]
    );
    // RA moves nothing: on every machine W_min + w ≥ W_max.
    assert_eq!(moves, 0);
    let m = Measures::of(&ffd, &setup, &tasks, 1);
    assert_eq!((m.vms, m.vm_hours, m.deadline_misses), (2, 2, 0));
    assert!((m.rent_usd - 0.21).abs() < 1e-12);
    validate(&ffd, &tasks).unwrap();

    // The bound lets the two PM cores take everything (Cap covers all 60 GHz·s), so it is
    // 0 — and the optimum is 0 too.
    assert_eq!(rent_lower_bound(&setup, &tasks, 1).rent_usd, 0.0);
    let (opt, _) = schedule(Policy::Optimal, &setup, &tasks, 1, Fast).unwrap();
    assert_eq!(Measures::of(&opt, &setup, &tasks, 1).rent_usd, 0.0);
}

/// Without PMs a VM is billed per started hour: 9,720 GHz·s on 2.7 GHz is exactly 3,600 s.
#[test]
fn rent_is_per_started_hour() {
    let setup = Setup {
        pms: vec![],
        vm_types: vec![c3_large()],
    };
    for (work, hours) in [(9720, 1), (9721, 2), (1, 1)] {
        let tasks = bag(&[work]);
        for policy in Policy::PAPER {
            let (s, _) = schedule(policy, &setup, &tasks, 1, Fast).unwrap();
            let m = Measures::of(&s, &setup, &tasks, 1);
            assert_eq!((m.vms, m.vm_hours), (1, hours), "{policy:?} work {work}");
            assert!((m.rent_usd - 0.105 * hours as f64).abs() < 1e-12);
        }
        // The bound rounds the cloud work up to whole VM-hours of 2 × 9,720 GHz·s.
        assert_eq!(rent_lower_bound(&setup, &tasks, 1).rent_usd, 0.105);
    }
}

/// Fig. 2 of the paper: a 2-core VM, tasks 1–3 (one unit each) on core 0, task 4 on the
/// other core. RA moves task 3 over: loads (3, 1) → (2, 2) and the lease drops from 3 to
/// 2 units (here a unit is one hour: 9,720 GHz·s on 2.7 GHz).
#[test]
fn ra_reproduces_figure_2() {
    let unit = 9720;
    let tasks = bag(&[unit; 4]);
    let mut s = Schedule {
        machines: vec![Machine {
            origin: Origin::Vm(0),
            mhz: 2700,
            cores: vec![
                Core {
                    tasks: vec![0, 1, 2],
                    work: 3 * unit,
                },
                Core {
                    tasks: vec![3],
                    work: unit,
                },
            ],
        }],
    };
    assert_eq!(s.machines[0].billed_hours(), 3.0);
    assert_eq!(frugal_bot::ra::rebalance(&mut s, &tasks), 1);
    assert_eq!(s.machines[0].cores[0].tasks, vec![0, 1]);
    assert_eq!(s.machines[0].cores[1].tasks, vec![3, 2]);
    assert_eq!(s.machines[0].billed_hours(), 2.0);
    // α = 3: task 3 now ends at 2 h ≤ its deadline 3·9720/2 s = 4.05 h.
    let setup = Setup {
        pms: vec![],
        vm_types: vec![c3_large()],
    };
    assert_eq!(Measures::of(&s, &setup, &tasks, 3).deadline_misses, 0);
}

/// Eq. 10: an 8-core PM with one core busy 3,600 s draws 70 W for the hour plus
/// 40 W × 1/8 of it: (252,000 + 18,000) J = 0.075 kWh. An unused PM draws nothing.
#[test]
fn energy_of_a_mostly_idle_pm() {
    let setup = Setup {
        pms: vec![pm(8, 2500), pm(8, 2500)],
        vm_types: vec![],
    };
    let tasks = bag(&[9000]); // 3,600 s at 2.5 GHz
    let mut cores = vec![Core::default(); 8];
    cores[0] = Core {
        tasks: vec![0],
        work: 9000,
    };
    let s = Schedule {
        machines: vec![Machine {
            origin: Origin::Pm(0),
            mhz: 2500,
            cores,
        }],
    };
    let m = Measures::of(&s, &setup, &tasks, 1);
    assert!((m.energy_kwh - 0.075).abs() < 1e-12, "{}", m.energy_kwh);
    assert_eq!(m.pms, 1);
    assert_eq!(m.local_core_s, 3600.0);
    // Utilisation: one of eight cores busy for the PM's whole usage time.
    assert_eq!(m.utilisation, 0.125);
    // HA and FFD place it on PM 0 alone as well, so the energy is the same.
    for policy in Policy::PAPER {
        let (s, _) = schedule(policy, &setup, &tasks, 1, Fast).unwrap();
        assert!((Measures::of(&s, &setup, &tasks, 1).energy_kwh - 0.075).abs() < 1e-12);
    }
}

/// HA adds PMs by capacity N·r before renting: a 4-core PM listed first loses to an
/// 8-core one, and a VM is rented only once both are exhausted.
#[test]
fn ha_opens_the_largest_pm_first_then_rents() {
    let setup = Setup {
        pms: vec![pm(4, 2500), pm(8, 2500)],
        vm_types: vec![c3_large()],
    };
    // α = 1: one task per core on these PMs (any second task needs w ≥ 4·W), 13 equal tasks.
    let tasks = bag(&[100; 13]);
    let (s, _) = schedule(Policy::Ha, &setup, &tasks, 1, Fast).unwrap();
    let origins: Vec<Origin> = s.machines.iter().map(|m| m.origin).collect();
    assert_eq!(origins, vec![Origin::Pm(1), Origin::Pm(0), Origin::Vm(0)]);
    assert_eq!(s.machines[2].cores[0].tasks.len(), 1);
}

/// No VM type can meet a deadline at α = 1 with 1.9 GHz cores: a clear error.
#[test]
fn slow_vms_are_refused() {
    let slow = MachineType {
        mhz: 1900,
        ..c3_large()
    };
    let setup = Setup {
        pms: vec![],
        vm_types: vec![slow],
    };
    let err = schedule(Policy::Ha, &setup, &bag(&[5]), 1, Fast).unwrap_err();
    assert!(
        err.to_string()
            .contains("no VM type can run a task by its deadline at alpha 1"),
        "{err}"
    );
    // At α = 2 the same VMs suffice (2 · 1900 > 2000).
    assert!(schedule(Policy::Ffd, &setup, &bag(&[5]), 2, Fast).is_ok());
}

//! Queue disciplines and admission control.

use crate::common;

use common::{cluster, job};
use frugal_core::cluster::Site::Cloud;
use frugal_core::{Decision, Job, PolicyKind, PolicyParams, QueueDiscipline, Scheduler};

fn scheduler(discipline: QueueDiscipline, admission_control: bool) -> Scheduler {
    common::scheduler(
        PolicyKind::FirstFit,
        discipline,
        admission_control,
        frugal_core::Backfill::None,
    )
}

fn started(out: &[Decision]) -> Vec<usize> {
    out.iter()
        .filter_map(|d| match d {
            Decision::Started { job, .. } => Some(*job),
            Decision::Dropped { .. } | Decision::Held { .. } => None,
        })
        .collect()
}

/// Jobs: 0 = big (8 cores), 1 = small (2 cores) with an early deadline, 2 = small.
fn jobs() -> Vec<Job> {
    let mut j = vec![
        job("big", 4, 2, 1, 100.0),
        job("tight", 1, 2, 1, 100.0),
        job("small", 1, 2, 1, 100.0),
    ];
    j[0].deadline = Some(5000.0);
    j[1].arrival = 1.0;
    j[1].deadline = Some(500.0);
    j[2].arrival = 2.0;
    j
}

fn run(discipline: QueueDiscipline) -> Vec<usize> {
    // 6 cores: the big job (8 cores) cannot run; small ones can.
    let mut c = cluster(&[(4, 16, Cloud, 0.001), (2, 16, Cloud, 0.001)]);
    let jobs = jobs();
    let mut s = scheduler(discipline, false);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 2.0, &mut out);
    started(&out)
}

#[test]
fn fcfs_head_blocks_the_queue() {
    assert_eq!(run(QueueDiscipline::Fcfs), Vec::<usize>::new());
}

#[test]
fn edf_runs_the_earliest_deadline_first_then_blocks() {
    assert_eq!(run(QueueDiscipline::Edf), vec![1]);
}

#[test]
fn deadline_first_blocks_regular_jobs_while_a_deadline_job_waits() {
    // Deadline jobs 1 (placed) and 0 (blocked): regular job 2 must wait (Alg. 1 l. 14).
    assert_eq!(run(QueueDiscipline::DeadlineFirst), vec![1]);
}

#[test]
fn skipping_disciplines_place_what_fits() {
    assert_eq!(run(QueueDiscipline::Morpheus), vec![1, 2]);
}

#[test]
fn deadline_first_orders_regular_jobs_by_resource_demand_and_skips() {
    let mut c = cluster(&[(4, 16, Cloud, 0.001)]);
    let jobs = vec![
        job("a", 1, 1, 1, 10.0),
        job("b", 1, 3, 1, 10.0),
        job("c", 2, 4, 1, 10.0),
    ];
    let mut s = scheduler(QueueDiscipline::DeadlineFirst, false);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 0.0, &mut out);
    // RD order c (8 cores, cannot fit: skipped), b (3), a (1).
    assert_eq!(started(&out), vec![1, 0]);
}

#[test]
fn admission_control_drops_jobs_that_cannot_meet_their_deadline() {
    let mut c = cluster(&[(4, 16, Cloud, 0.001)]);
    let mut jobs = vec![job("late", 1, 1, 1, 100.0), job("fine", 1, 1, 1, 100.0)];
    jobs[0].deadline = Some(150.0);
    jobs[1].deadline = Some(1000.0);
    let mut s = scheduler(QueueDiscipline::Edf, true);
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 60.0, &mut out);
    assert_eq!(out[0], Decision::Dropped { job: 0 });
    assert_eq!(started(&out), vec![1]);
}

/// A long job holds part of the cluster; the EDF head needs the whole cluster. Without
/// backfilling every job behind the head waits for the long job; with EASY backfilling a
/// job that ends before the head's reservation runs now, one that could not is held.
#[test]
fn easy_backfilling_runs_what_ends_before_the_heads_reservation() {
    use frugal_core::{Backfill, Placement, Resources};
    let setup = |backfill: Backfill, long_until: f64| {
        let mut c = cluster(&[(4, 16, Cloud, 0.001), (4, 16, Cloud, 0.001)]);
        let mut p = Placement::default();
        p.add(0, 1);
        c.reserve(&p, &Resources::from_gib(2, 2), 0.0, 0.0, &mut Vec::new())
            .unwrap();
        c.extend_busy(&p, long_until);
        let mut jobs = vec![
            job("whole", 2, 4, 1, 100.0),
            job("short", 1, 2, 1, 10.0),
            job("long", 1, 2, 1, 100.0),
        ];
        for (i, j) in jobs.iter_mut().enumerate() {
            j.deadline = Some(1000.0 + i as f64);
            j.t_hybrid = j.t_local;
        }
        let mut s = scheduler(QueueDiscipline::Edf, false);
        let mut cfg = *s.config();
        cfg.backfill = backfill;
        s = frugal_core::Scheduler::new(PolicyKind::FirstFit.build(&PolicyParams::default()), cfg);
        for (i, j) in jobs.iter().enumerate() {
            s.enqueue(i, j, &c);
        }
        let mut out = Vec::new();
        s.run_pass(&jobs, &mut c, 0.0, &mut out);
        started(&out)
    };
    // The long job ends at 1e6 s: the head's reservation is then.
    assert_eq!(setup(Backfill::None, 1e6), Vec::<usize>::new());
    // short: 10 s × (1 + 0.3 kind penalty, its worst case) = 13 s ≤ 1e6 s: backfilled;
    // long: 130 s ≤ 1e6 s too.
    assert_eq!(setup(Backfill::Easy, 1e6), vec![1, 2]);
    // Ending at 50 s: short (≤ 13 s) fits before the reservation, long (≤ 130 s) not.
    assert_eq!(setup(Backfill::Easy, 50.0), vec![1]);
}

#[test]
fn the_shadow_time_counts_a_vm_free_only_after_its_last_executor() {
    use frugal_core::scheduler::shadow_time;
    use frugal_core::{Placement, Resources};
    let mut c = cluster(&[(4, 16, Cloud, 0.001), (4, 16, Cloud, 0.001)]);
    let d = Resources::from_gib(2, 2);
    for (vm, until) in [(0, 30.0), (1, 70.0)] {
        let mut p = Placement::default();
        p.add(vm, 1);
        c.reserve(&p, &d, 0.0, 0.0, &mut Vec::new()).unwrap();
        c.extend_busy(&p, until);
    }
    // Free now: one 2-core slot per VM. Three 2-core executors fit once VM 0 frees (30 s),
    // four once VM 1 frees too (70 s), five never.
    let mut head = job("h", 2, 2, 1, 10.0);
    assert_eq!(shadow_time(&c, &head, 5.0), 5.0);
    head.executors = 3;
    assert_eq!(shadow_time(&c, &head, 5.0), 30.0);
    head.executors = 4;
    assert_eq!(shadow_time(&c, &head, 5.0), 70.0);
    head.executors = 5;
    assert_eq!(shadow_time(&c, &head, 5.0), f64::INFINITY);
}

/// Two cloud VMs of 4 cores: VM 0 at $0.002/s, on, running a 2-core executor until
/// t = 10 s; VM 1 at $0.001/s, off. First fit fills the VM that is on: for a 100 s job of
/// one 2-core executor at t = 0 Eq. 16 prices that at 0.002 × (100 − 10) = $0.18, and
/// the optimum (VM 1) at 0.001 × 100 = $0.10.
fn two_prices() -> frugal_core::Cluster {
    use frugal_core::{Placement, Resources};
    let mut c = cluster(&[(4, 16, Cloud, 0.002), (4, 16, Cloud, 0.001)]);
    let mut p = Placement::default();
    p.add(0, 1);
    c.reserve(&p, &Resources::from_gib(2, 2), 0.0, 0.0, &mut Vec::new())
        .unwrap();
    c.extend_busy(&p, 10.0);
    c
}

fn placed_on(out: &[Decision]) -> Vec<(usize, Vec<(u32, u32)>)> {
    out.iter()
        .filter_map(|d| match d {
            Decision::Started { job, placement, .. } => {
                Some((*job, placement.executors_per_vm.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_gap_to_the_optimum_is_measured_per_decision() {
    let mut c = two_prices();
    let jobs = vec![job("a", 1, 2, 1, 100.0)];
    let mut s = scheduler(QueueDiscipline::Fcfs, false);
    s.measure_gap(true);
    s.enqueue(0, &jobs[0], &c);
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 0.0, &mut out);
    let Decision::Started {
        placement, cost, ..
    } = &out[0]
    else {
        panic!("{out:?}")
    };
    assert_eq!(placement.executors_per_vm, vec![(0, 1)]);
    let cost = cost.unwrap();
    assert!((cost.chosen - 0.18).abs() < 1e-12, "{cost:?}");
    assert!((cost.optimal - 0.1).abs() < 1e-12, "{cost:?}");
    // Not measured unless asked.
    let mut c = two_prices();
    let mut s = scheduler(QueueDiscipline::Fcfs, false);
    s.enqueue(0, &jobs[0], &c);
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 0.0, &mut out);
    assert!(matches!(out[0], Decision::Started { cost: None, .. }));
}

/// Budget $7.20/h = $0.002/s, the price of VM 0, which is on. Job 0 (1 core, 100 s) goes
/// on VM 0: no VM turned on, the fleet stays at the budget, VM 0 is busy until t = 100.
/// Job 1 (4 cores) fits only on VM 1, which would take the fleet to $10.80/h: held. Under
/// FCFS job 2 (1 core, 150 s, which VM 0 can still take) would keep VM 0 on until t = 150,
/// so it waits behind job 1, held with the reason why; Morpheus skips to it. A budget of
/// $10.80/h lets job 1 start.
#[test]
fn a_budget_holds_placements_that_would_raise_the_fleets_price_above_it() {
    use frugal_core::Hold;
    let jobs = vec![
        job("a", 1, 1, 1, 100.0),
        job("b", 1, 4, 1, 100.0),
        job("c", 1, 1, 1, 150.0),
    ];
    let run = |discipline, budget: f64| {
        let mut c = two_prices();
        let mut s = scheduler(discipline, false);
        s.set_budget_per_hour(Some(budget));
        for (i, j) in jobs.iter().enumerate() {
            s.enqueue(i, j, &c);
        }
        let mut out = Vec::new();
        s.run_pass(&jobs, &mut c, 0.0, &mut out);
        out
    };
    let out = run(QueueDiscipline::Fcfs, 7.2);
    assert_eq!(placed_on(&out), vec![(0, vec![(0, 1)])]);
    let Decision::Held { job: 1, hold } = out[1] else {
        panic!("{out:?}")
    };
    let Hold::Budget {
        fleet_per_hour,
        budget_per_hour,
    } = hold
    else {
        panic!("{hold:?}")
    };
    assert!((fleet_per_hour - 10.8).abs() < 1e-9 && (budget_per_hour - 7.2).abs() < 1e-12);
    assert_eq!(
        hold.reason(),
        "budget: placing it now would raise the fleet's price to $10.8000/h, over the $7.2000/h budget"
    );
    let Decision::Held { job: 2, hold } = out[2] else {
        panic!("{out:?}")
    };
    assert_eq!(
        hold.reason(),
        "budget: waits behind a job held by the $7.2000/h budget: placing it now would turn \
         on a VM or keep one on longer"
    );
    let mut morpheus = started(&run(QueueDiscipline::Morpheus, 7.2));
    morpheus.sort_unstable();
    assert_eq!(morpheus, vec![0, 2]);
    assert_eq!(started(&run(QueueDiscipline::Fcfs, 10.8)), vec![0, 1, 2]);
}

/// A held job blocks no one who cannot delay it. As above (budget $7.20/h, VM 0 on and
/// busy until t = 100 with job 0, job 1 held), but job 2 runs 5 s: it ends by t = 100,
/// turns on nothing, and starts under FCFS past the held job 1, which stays queued.
#[test]
fn jobs_that_cannot_delay_a_held_job_start_behind_it() {
    let jobs = vec![
        job("a", 1, 1, 1, 100.0),
        job("b", 1, 4, 1, 100.0),
        job("c", 1, 1, 1, 5.0),
    ];
    let mut c = two_prices();
    let mut s = scheduler(QueueDiscipline::Fcfs, false);
    s.set_budget_per_hour(Some(7.2));
    for (i, j) in jobs.iter().enumerate() {
        s.enqueue(i, j, &c);
    }
    let mut out = Vec::new();
    s.run_pass(&jobs, &mut c, 0.0, &mut out);
    assert_eq!(placed_on(&out), vec![(0, vec![(0, 1)]), (2, vec![(0, 1)])]);
    assert!(matches!(out[1], Decision::Held { job: 1, .. }));
    assert_eq!(s.queued(), 1);
}

/// All VMs off: VM 0 of 8 cores at $5.40/h, VMs 1 and 2 of 4 cores at $3.60/h; a job of
/// two 4-core executors for 100 s. First fit turns on the cheapest VM that fits one
/// executor, twice: VMs 1 and 2, $7.20/h. Under a $6/h budget the scheduler takes the
/// cheapest VMs that hold the job instead, VM 0 alone ($5.40/h), and the decision's cost
/// is that placement's ($0.0015/s × 100 s = $0.15, not first fit's $0.20). At $5/h not
/// even VM 0 fits: held.
#[test]
fn a_budget_takes_the_cheapest_vms_when_the_policys_choice_is_over_it() {
    let jobs = vec![job("a", 2, 4, 1, 100.0)];
    let run = |budget: f64| {
        let mut c = cluster(&[
            (8, 16, Cloud, 0.0015),
            (4, 16, Cloud, 0.001),
            (4, 16, Cloud, 0.001),
        ]);
        let mut s = scheduler(QueueDiscipline::Fcfs, false);
        s.set_budget_per_hour(Some(budget));
        s.measure_gap(true);
        s.enqueue(0, &jobs[0], &c);
        let mut out = Vec::new();
        s.run_pass(&jobs, &mut c, 0.0, &mut out);
        out
    };
    assert_eq!(placed_on(&run(100.0)), vec![(0, vec![(1, 1), (2, 1)])]);
    let out = run(6.0);
    assert_eq!(placed_on(&out), vec![(0, vec![(0, 2)])]);
    let Decision::Started {
        cost: Some(cost), ..
    } = &out[0]
    else {
        panic!("{out:?}")
    };
    assert!(
        (cost.chosen - 0.15).abs() < 1e-12 && cost.optimal <= cost.chosen,
        "{cost:?}"
    );
    assert!(matches!(run(5.0)[0], Decision::Held { job: 0, .. }));
}

/// The cheapest cover by hand: VMs of 4, 2, 2 and 3 slots at $5, $2, $2 and $4 per
/// second, all off. Four executors: A alone $5, B + C $4, B + D $6, A + anything more:
/// B + C ($4). Three executors: D $4, B + C $4 (a tie: the lower ids, B + C, as the table
/// fills them first). Eleven: all four, $13; twelve: none.
#[test]
fn the_cheapest_price_placement_by_hand() {
    use frugal_core::budget::cheapest_price_placement;
    let c = cluster(&[
        (4, 16, Cloud, 5.0),
        (2, 16, Cloud, 2.0),
        (2, 16, Cloud, 2.0),
        (3, 16, Cloud, 4.0),
    ]);
    let (p, price) = cheapest_price_placement(&job("j", 4, 1, 1, 1.0), &c).unwrap();
    assert_eq!((p.executors_per_vm, price), (vec![(1, 2), (2, 2)], 4.0));
    let (p, price) = cheapest_price_placement(&job("j", 3, 1, 1, 1.0), &c).unwrap();
    assert_eq!(price, 4.0);
    assert_eq!(p.executors(), 3);
    let (_, price) = cheapest_price_placement(&job("j", 11, 1, 1, 1.0), &c).unwrap();
    assert_eq!(price, 13.0);
    assert!(cheapest_price_placement(&job("j", 12, 1, 1, 1.0), &c).is_none());
}

/// A cap of $0.15 on the job of `two_prices`: first fit's VM 0 ($0.18) is over it, the
/// optimum's VM 1 ($0.10) within, so VM 1 is taken. A cap of $0.05 holds the job.
#[test]
fn a_cost_cap_takes_the_optimum_or_holds_the_job() {
    use frugal_core::Hold;
    let jobs = vec![job("a", 1, 2, 1, 100.0)];
    let run = |cap: f64| {
        let mut c = two_prices();
        let mut s = scheduler(QueueDiscipline::Fcfs, false);
        s.enqueue(0, &jobs[0], &c);
        s.cap_cost(0, Some(cap));
        let mut out = Vec::new();
        s.run_pass(&jobs, &mut c, 0.0, &mut out);
        out
    };
    assert_eq!(placed_on(&run(0.15)), vec![(0, vec![(1, 1)])]);
    let out = run(0.05);
    let Decision::Held {
        job: 0,
        hold: Hold::CostCap { cheapest, cap },
    } = out[0]
    else {
        panic!("{out:?}")
    };
    assert!((cheapest - 0.1).abs() < 1e-12 && cap == 0.05);
}

//! Hand-worked examples for every placement policy.

use crate::common;
use frugal_core::spec::Choice;

use common::{cluster, job};
use frugal_core::cluster::Site::{Cloud, Local};
use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::policy::*;
use frugal_core::{Placement, Resources, Rut};

fn reserve(c: &mut frugal_core::Cluster, j: &frugal_core::Job, p: &Placement, until: f64) {
    c.reserve(p, &j.executor_demand, 0.0, 0.0, &mut Vec::new())
        .unwrap();
    c.extend_busy(p, until);
}

fn vms(p: &Placement) -> Vec<(u32, u32)> {
    p.executors_per_vm.clone()
}

/// Paper 004 Fig. 2–3: VMs of 2/4/6/8 cores; job-1 = 2 × 1 core, job-2 = 2 × 2 cores.
#[test]
fn bfd_reproduces_paper_004_figure_3() {
    let mut c = cluster(&[
        (2, 64, Cloud, 1.0),
        (4, 64, Cloud, 2.0),
        (6, 64, Cloud, 3.0),
        (8, 64, Cloud, 4.0),
    ]);
    let mut bfd = BestFitDecreasing::new(Rut::default(), Reading::PaperText);
    let j1 = job("job-1", 2, 1, 1, 100.0);
    let p1 = bfd.place(&j1, &c, 0.0).unwrap();
    assert_eq!(vms(&p1), vec![(0, 2)]);
    reserve(&mut c, &j1, &p1, 100.0);
    let j2 = job("job-2", 2, 2, 1, 100.0);
    let p2 = bfd.place(&j2, &c, 0.0).unwrap();
    assert_eq!(vms(&p2), vec![(1, 2)]);
}

/// Spark's consolidate (spreadOut = false), hand-computed: idle VMs of 2, 8, 4 and 8
/// cores. The two 8-core VMs tie on free cores; the higher id (3) comes first and takes
/// four 2-core executors, VM 1 the fifth. A second job then goes to VM 1 (6 cores free),
/// not to the emptier small VMs' ids.
#[test]
fn spark_consolidate_fills_the_vm_with_most_free_cores_first() {
    let mut c = cluster(&[
        (2, 64, Cloud, 1.0),
        (8, 64, Cloud, 4.0),
        (4, 64, Cloud, 2.0),
        (8, 64, Cloud, 4.0),
    ]);
    let mut sc = SparkConsolidate::default();
    let j1 = job("job-1", 5, 2, 1, 100.0);
    let p1 = sc.place(&j1, &c, 0.0).unwrap();
    assert_eq!(vms(&p1), vec![(3, 4), (1, 1)]);
    reserve(&mut c, &j1, &p1, 100.0);
    let p2 = sc.place(&job("job-2", 2, 1, 1, 100.0), &c, 0.0).unwrap();
    assert_eq!(vms(&p2), vec![(1, 2)]);
    // Paper 004 Fig. 3b: a one-core job on an idle cluster lands on the largest VM.
    let idle = cluster(&[
        (2, 64, Cloud, 1.0),
        (4, 64, Cloud, 2.0),
        (8, 64, Cloud, 4.0),
    ]);
    assert_eq!(
        vms(&sc.place(&job("j", 1, 1, 1, 10.0), &idle, 0.0).unwrap()),
        vec![(2, 1)]
    );
    // All or nothing: 8 × 2 cores do not fit in 14 cores.
    assert!(sc.place(&job("big", 8, 2, 1, 10.0), &idle, 0.0).is_none());
}

/// The authors'-code readings of paper 000's FIFO, FIFO-C and FF (RM-Simulator), hand
/// computed. Local VMs 0 (4 cores, $1) and 1 (8 cores, $2), cloud VMs 2 (4 cores, $4) and 3
/// (8 cores, $8); the simulator lists the cloud VMs first: 2, 3, 0, 1.
#[test]
fn the_authors_code_readings_follow_rm_simulator() {
    let c = cluster(&[
        (4, 64, Local, 1.0),
        (8, 64, Local, 2.0),
        (4, 64, Cloud, 4.0),
        (8, 64, Cloud, 8.0),
    ]);
    let code = PolicyParams {
        reading: frugal_core::Reading::AuthorsCode,
        ..PolicyParams::default()
    };
    let place =
        |kind: PolicyKind, j: &frugal_core::Job| vms(&kind.build(&code).place(j, &c, 0.0).unwrap());
    // FIFO: every job from the top of the list, one executor per VM in turn.
    assert_eq!(
        place(PolicyKind::RoundRobin, &job("a", 3, 2, 1, 10.0)),
        vec![(2, 1), (3, 1), (0, 1)]
    );
    // FIFO-C: by free cores, fewest first, ties in list order (cloud 2 before local 0).
    assert_eq!(
        place(PolicyKind::RoundRobinConsolidate, &job("b", 3, 2, 1, 10.0)),
        vec![(2, 2), (0, 1)]
    );
    // FF: running VMs first (none), then by price: local 0, then local 1.
    assert_eq!(
        place(PolicyKind::FirstFit, &job("c", 3, 2, 1, 10.0)),
        vec![(0, 2), (1, 1)]
    );
}

/// The authors'-code readings of paper 000's AsQ and MILP (RM-Simulator) and paper 004's
/// BFD (SLA-Scheduler) against the text's, hand computed on cases where they part.
#[test]
fn asq_milp_and_bfd_as_the_authors_code_places_them() {
    let both = |kind: PolicyKind, c: &frugal_core::Cluster, j: &frugal_core::Job| {
        [Reading::PaperText, Reading::AuthorsCode].map(|reading| {
            let params = PolicyParams {
                reading,
                ..PolicyParams::default()
            };
            vms(&kind.build(&params).place(j, c, 0.0).unwrap())
        })
    };
    // AsQ. Local VM 1 ($2/s) runs until t = 20 s; local VM 0 ($1/s) is off. A 100-s
    // executor costs 2·(100 − 20) = 160 on VM 1 and 1·100 = 100 on VM 0: the text's
    // First Fit takes the running VM 1, the code's cost rule the off VM 0.
    let mut c = cluster(&[
        (4, 64, Local, 1.0),
        (8, 64, Local, 2.0),
        (4, 64, Cloud, 4.0),
        (8, 64, Cloud, 8.0),
    ]);
    let mut p = Placement::default();
    p.add(1, 1);
    reserve(&mut c, &job("x", 1, 2, 1, 20.0), &p, 20.0);
    let a = job("a", 2, 2, 1, 100.0);
    assert_eq!(both(PolicyKind::Asq, &c, &a), [vec![(1, 2)], vec![(0, 2)]]);
    // Six executors do not fit the local site now (2 + 3 slots): both go to the cloud,
    // cheapest first (4·130 < 8·130 with T_C^H = 130 s).
    let b = job("b", 6, 2, 1, 100.0);
    assert_eq!(
        both(PolicyKind::Asq, &c, &b),
        [vec![(2, 2), (3, 4)], vec![(2, 2), (3, 4)]]
    );
    // MILP. VM 0 ($10/s) runs until t = 20 s with room for one executor; VM 1 ($1/s) is
    // off. The text pays 10·80 = 800 to keep VM 0 on against 1·100 = 100 to turn VM 1 on;
    // the code's forced, constant term for a running VM makes VM 0 free.
    let mut c = cluster(&[(4, 64, Local, 10.0), (8, 64, Local, 1.0)]);
    let mut p = Placement::default();
    p.add(0, 1);
    reserve(&mut c, &job("x", 1, 2, 1, 20.0), &p, 20.0);
    let m = job("m", 1, 2, 1, 100.0);
    assert_eq!(both(PolicyKind::Milp, &c, &m), [vec![(1, 1)], vec![(0, 1)]]);
    // BFD. VM 0 (8 cores, 64 GiB) runs with 2 cores and 63 GiB free; VM 1 (2 cores, 4 GiB)
    // is off. The text fills running VMs first; the code ranks every agent by
    // 0.8·free cores + 0.2·free GiB: 0.8·2 + 0.2·63 = 14.2 against 0.8·2 + 0.2·4 = 2.4.
    let mut c = cluster(&[(8, 64, Cloud, 1.0), (2, 4, Cloud, 1.0)]);
    let mut p = Placement::default();
    p.add(0, 1);
    reserve(&mut c, &job("x", 1, 6, 1, 100.0), &p, 100.0);
    let f = job("f", 1, 1, 1, 10.0);
    assert_eq!(
        both(PolicyKind::BestFitDecreasing, &c, &f),
        [vec![(0, 1)], vec![(1, 1)]]
    );
}

#[test]
fn bfd_fills_the_tightest_active_vm_first() {
    let mut c = cluster(&[
        (8, 64, Cloud, 1.0),
        (8, 64, Cloud, 1.0),
        (8, 64, Cloud, 1.0),
    ]);
    let occupy = |c: &mut frugal_core::Cluster, vm: u32, cores: u32| {
        let j = job("x", 1, cores, 1, 10.0);
        let mut p = Placement::default();
        p.add(vm, 1);
        reserve(c, &j, &p, 10.0);
    };
    occupy(&mut c, 0, 2); // RA high
    occupy(&mut c, 1, 6); // RA low: 2 cores left
    let p = BestFitDecreasing::new(Rut::default(), Reading::PaperText)
        .place(&job("j", 3, 1, 1, 5.0), &c, 0.0)
        .unwrap();
    assert_eq!(vms(&p), vec![(1, 2), (0, 1)]);
}

#[test]
fn first_fit_fills_active_vms_in_order_then_turns_on_the_cheapest() {
    let mut c = cluster(&[
        (4, 16, Local, 0.003),
        (4, 16, Cloud, 0.004),
        (4, 16, Local, 0.001),
    ]);
    let mut ff = FirstFit::default();
    let j = job("a", 3, 2, 4, 10.0);
    // No VM is on: the cheapest (vm 2) holds 2, then the next cheapest (vm 0) 1.
    let p = ff.place(&j, &c, 0.0).unwrap();
    assert_eq!(vms(&p), vec![(2, 2), (0, 1)]);
    reserve(&mut c, &j, &p, 10.0);
    // vm 0 is on with 2 cores free: first fit uses it before turning anything on.
    let p = ff.place(&job("b", 2, 2, 4, 10.0), &c, 0.0).unwrap();
    assert_eq!(vms(&p), vec![(0, 1), (1, 1)]);
    assert!(ff.place(&job("c", 5, 2, 4, 10.0), &c, 0.0).is_none());
}

#[test]
fn gio_prefers_vms_that_stay_on_anyway_and_local_when_it_suffices() {
    let mut c = cluster(&[
        (4, 16, Local, 0.001),
        (4, 16, Local, 0.001),
        (8, 32, Cloud, 0.004),
    ]);
    let long = job("long", 1, 2, 4, 1000.0);
    let mut p = Placement::default();
    p.add(1, 1);
    reserve(&mut c, &long, &p, 1000.0);
    let mut gio = Gio::default();
    // vm 1 stays on for 1000 s: a 100 s executor there costs nothing extra.
    let p = gio.place(&job("short", 1, 2, 4, 100.0), &c, 0.0).unwrap();
    assert_eq!(vms(&p), vec![(1, 1)]);
    // 3 × 2 cores fit locally (2 on vm 0, 1 on vm 1): cloud untouched.
    let p = gio.place(&job("local", 3, 2, 4, 100.0), &c, 0.0).unwrap();
    assert_eq!(vms(&p), vec![(1, 1), (0, 2)]);
    // 5 × 2 cores do not fit locally: hybrid, cheapest Cost_Je first.
    let p = gio.place(&job("hybrid", 5, 2, 4, 100.0), &c, 0.0).unwrap();
    assert_eq!(p.executors(), 5);
    assert_eq!(p.on(1), 1);
    assert!(p.on(2) > 0);
}

#[test]
fn asq_never_splits_a_job_across_sites() {
    let c = cluster(&[
        (4, 16, Local, 0.001),
        (8, 32, Cloud, 0.004),
        (8, 32, Cloud, 0.004),
    ]);
    let mut asq = Asq::new(Reading::PaperText);
    assert_eq!(
        vms(&asq.place(&job("a", 2, 2, 4, 10.0), &c, 0.0).unwrap()),
        vec![(0, 2)]
    );
    // 3 × 2 cores do not fit locally: all in the cloud.
    let p = asq.place(&job("b", 3, 2, 4, 10.0), &c, 0.0).unwrap();
    assert!(!p.uses_site(&c, Local));
    assert_eq!(p.executors(), 3);
    // 9 × 2 cores fit the whole cluster (10 slots) but neither site alone.
    let big = job("c", 9, 2, 4, 10.0);
    assert!(asq.place(&big, &c, 0.0).is_none());
    assert!(!asq.can_ever_place(&big, &c));
    assert!(FirstFit::default().can_ever_place(&big, &c));
    // 10 slots in all, 2 local and 8 in the cloud; one executor more fits nowhere.
    assert!(FirstFit::default().can_ever_place(&job("d", 10, 2, 4, 10.0), &c));
    assert!(!FirstFit::default().can_ever_place(&job("e", 11, 2, 4, 10.0), &c));
    assert!(asq.can_ever_place(&job("f", 8, 2, 4, 10.0), &c));
}

/// Capacity questions answered by (capacity, site) classes equal a scan of the VMs of
/// the all-free cluster, on every preset and its 7-fold copy.
#[test]
fn capacity_slots_equal_the_scan_of_the_free_cluster() {
    use frugal_core::{Preset, PricingModel, Resources};
    for preset in [
        "small-hybrid",
        "large-hybrid",
        "paper004-cloud",
        "paper002-cloud",
    ] {
        let cfg = Preset::from_name(preset)
            .unwrap()
            .config(PricingModel::Model1);
        for c in [
            cfg.build(preset).unwrap(),
            cfg.scaled(7).build(preset).unwrap(),
        ] {
            for cores in 1..=13 {
                for gib in [1, 3, 8, 17, 49] {
                    let d = Resources::from_gib(cores, gib);
                    assert_eq!(c.capacity_slots(&d, |_| true), c.slots(&d, |_| true));
                    for site in [Local, Cloud] {
                        assert_eq!(
                            c.capacity_slots(&d, |s| s == site),
                            c.slots(&d, |s| s == site)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn round_robin_spreads_over_all_vms_and_continues_where_it_stopped() {
    let c = cluster(&[
        (4, 16, Local, 0.001),
        (4, 16, Local, 0.001),
        (4, 16, Cloud, 0.004),
    ]);
    let mut rr = RoundRobin::default();
    assert_eq!(
        vms(&rr.place(&job("a", 2, 1, 1, 10.0), &c, 0.0).unwrap()),
        vec![(0, 1), (1, 1)]
    );
    assert_eq!(
        vms(&rr.place(&job("b", 2, 1, 1, 10.0), &c, 0.0).unwrap()),
        vec![(2, 1), (0, 1)]
    );
    assert_eq!(
        rr.place(&job("c", 4, 2, 1, 10.0), &c, 0.0)
            .unwrap()
            .vm_count(),
        3
    );
    assert!(rr.place(&job("d", 7, 2, 1, 10.0), &c, 0.0).is_none());
}

#[test]
fn round_robin_consolidate_uses_active_vms_before_turning_one_on() {
    let mut c = cluster(&[
        (4, 16, Local, 0.001),
        (4, 16, Local, 0.001),
        (8, 32, Cloud, 0.004),
    ]);
    let mut rrc = RoundRobinConsolidate::default();
    let a = job("a", 1, 1, 1, 10.0);
    let p = rrc.place(&a, &c, 0.0).unwrap();
    assert_eq!(vms(&p), vec![(0, 1)]);
    reserve(&mut c, &a, &p, 10.0);
    // vm 0 (on) has 3 cores left: all three executors go there.
    assert_eq!(
        vms(&rrc.place(&job("b", 3, 1, 1, 10.0), &c, 0.0).unwrap()),
        vec![(0, 3)]
    );
    // Five do not: vm 1 is turned on and joins the rotation.
    let p = rrc.place(&job("c", 5, 1, 1, 10.0), &c, 0.0).unwrap();
    assert_eq!(p.on(0), 3);
    assert_eq!(p.on(1), 2);
}

#[test]
fn morpheus_packs_onto_the_most_utilised_vm() {
    let mut c = cluster(&[(8, 32, Cloud, 0.002), (8, 32, Cloud, 0.002)]);
    for (vm, cores) in [(0, 2), (1, 6)] {
        let j = job("x", 1, cores, 1, 10.0);
        let mut p = Placement::default();
        p.add(vm, 1);
        reserve(&mut c, &j, &p, 10.0);
    }
    let p = Morpheus::default()
        .place(&job("j", 1, 1, 1, 10.0), &c, 0.0)
        .unwrap();
    assert_eq!(vms(&p), vec![(1, 1)]);
}

#[test]
fn every_policy_respects_capacity_and_places_exactly_e() {
    let c = cluster(&[
        (4, 8, Local, 0.001),
        (12, 48, Cloud, 0.003),
        (8, 32, Cloud, 0.002),
    ]);
    for kind in PolicyKind::ALL {
        let mut pol = kind.build(&PolicyParams::default());
        for e in 1..=8 {
            let j = job("j", e, 3, 5, 10.0);
            if let Some(p) = pol.place(&j, &c, 0.0) {
                assert_eq!(p.executors(), e, "{}", kind.name());
                for &(vm, n) in &p.executors_per_vm {
                    assert!(
                        c.vm(vm).free.fits(&j.executor_demand.times(n)),
                        "{}",
                        kind.name()
                    );
                }
            }
        }
    }
}

#[test]
fn optimal_beats_gio_where_greedy_cost_order_misleads() {
    // Two executors of 4 cores: GIO takes the two cheapest-per-second VMs (2 × 0.004/s);
    // one 8-core VM at 0.007/s holds both for less.
    let c = cluster(&[
        (8, 64, Cloud, 0.007),
        (4, 64, Cloud, 0.004),
        (4, 64, Cloud, 0.004),
    ]);
    let j = job("j", 2, 4, 1, 100.0);
    let gio = Gio::default().place(&j, &c, 0.0).unwrap();
    assert_eq!(vms(&gio), vec![(1, 1), (2, 1)]);
    let opt = Optimal::default().place(&j, &c, 0.0).unwrap();
    assert_eq!(vms(&opt), vec![(0, 2)]);
    assert!((objective::placement_cost(&j, &c, 0.0, &opt) - 0.7).abs() < 1e-12);
}

#[test]
fn optimal_weighs_the_hybrid_slowdown_against_local_capacity() {
    // Local 2 × 2 cores at 0.003/s (off); cloud VM on for another 1000 s at 0.004/s.
    let mut c = cluster(&[
        (2, 64, Local, 0.003),
        (2, 64, Local, 0.003),
        (8, 64, Cloud, 0.004),
    ]);
    let long = job("long", 1, 2, 1, 1000.0);
    let mut p = Placement::default();
    p.add(2, 1);
    reserve(&mut c, &long, &p, 1000.0);
    // 2 executors: locally 2 × 100 s × 0.003 = 0.6; in the cloud free (on anyway) → cloud.
    let j = job("j", 2, 2, 1, 100.0);
    assert_eq!(
        vms(&Optimal::default().place(&j, &c, 0.0).unwrap()),
        vec![(2, 2)]
    );
    // A 2000 s job (T_C^H = 2600 s): cloud 0.004 × (2600 − 1000) = 6.4 < local
    // 2 × 2000 × 0.003 = 12, still cloud; with local VMs at 0.001/s local costs 4 < 6.4.
    let slow = job("slow", 2, 2, 1, 2000.0);
    assert_eq!(
        vms(&Optimal::default().place(&slow, &c, 0.0).unwrap()),
        vec![(2, 2)]
    );
    let cheap_local = {
        let mut c2 = cluster(&[
            (2, 64, Local, 0.001),
            (2, 64, Local, 0.001),
            (8, 64, Cloud, 0.004),
        ]);
        reserve(&mut c2, &long, &p, 1000.0);
        c2
    };
    assert_eq!(
        vms(&Optimal::default().place(&slow, &cheap_local, 0.0).unwrap()),
        vec![(0, 1), (1, 1)]
    );
}

#[test]
fn aep_spreads_cpu_bound_and_consolidates_network_bound_jobs() {
    let c = cluster(&[
        (8, 64, Cloud, 0.002),
        (8, 64, Cloud, 0.002),
        (8, 64, Cloud, 0.003),
    ]);
    let mut aep = Aep::default();
    let spread = aep.place(&job("wc", 3, 2, 1, 10.0), &c, 0.0).unwrap();
    assert_eq!(vms(&spread), vec![(0, 1), (1, 1), (2, 1)]);
    let mut pr = job("pr", 3, 2, 1, 10.0);
    pr.kind = frugal_core::JobKind::NetworkBound;
    assert_eq!(vms(&aep.place(&pr, &c, 0.0).unwrap()), vec![(0, 3)]);
    // Five 2-core executors: no VM holds all; first fit.
    pr.executors = 5;
    assert_eq!(vms(&aep.place(&pr, &c, 0.0).unwrap()), vec![(0, 4), (1, 1)]);
}

#[test]
fn gpu_executors_go_only_to_vms_with_gpus_and_cpu_ones_ignore_gpus() {
    // VM 0: 8 cores, 32 GiB, no GPU, $1/s; VM 1: the same with 2 GPUs (2,000 milli-GPUs),
    // $3/s. A task of 1 core, 4 GiB and 0.6 GPU fits three times on VM 1 (⌊2000/600⌋)
    // and never on VM 0; a CPU task goes to the cheaper VM 0 under first fit.
    let types = vec![
        InstanceType {
            name: "cpu".into(),
            capacity: Resources::from_gib(8, 32),
        },
        InstanceType {
            name: "gpu".into(),
            capacity: Resources::from_gib(8, 32).with_gpu_milli(2000),
        },
    ];
    let groups: Vec<VmGroup> = [(0, 1.0), (1, 3.0)]
        .into_iter()
        .map(|(t, price)| VmGroup {
            instance_type: t,
            site: Site::Cloud,
            count: 1,
            price_per_second: price,
        })
        .collect();
    let c = Cluster::new(types, &groups);
    let mut gpu_job = job("g", 3, 1, 4, 10.0);
    gpu_job.executor_demand = gpu_job.executor_demand.with_gpu_milli(600);
    for kind in PolicyKind::ALL {
        let mut p = kind.build(&PolicyParams::default());
        let placed = p.place(&gpu_job, &c, 0.0);
        assert_eq!(
            placed.as_ref().map(vms),
            Some(vec![(1, 3)]),
            "{}",
            kind.name()
        );
        let mut four = gpu_job.clone();
        four.executors = 4;
        assert_eq!(
            p.place(&four, &c, 0.0),
            None,
            "{}: 4 × 600 > 2,000",
            kind.name()
        );
        assert!(!p.can_ever_place(&four, &c), "{}", kind.name());
    }
    let cpu = job("c", 2, 1, 4, 10.0);
    assert_eq!(
        FirstFit::default().place(&cpu, &c, 0.0).map(|p| vms(&p)),
        Some(vec![(0, 2)])
    );
}

/// One executor of `cores` and `gib` on `vm`, busy until `until` seconds.
fn occupy(c: &mut frugal_core::Cluster, vm: u32, cores: u32, gib: u32, until: f64) {
    let mut p = Placement::default();
    p.add(vm, 1);
    reserve(c, &job("x", 1, cores, gib, until), &p, until);
}

/// The rules of RM-Simulator (155d62d) that the authors'-code readings follow beyond the
/// orders above, hand computed: FF's ties by free resources, the simulator's VM list kept
/// from job to job, and GIO's cost rule (an idle VM priced from time zero; maxT recorded
/// without the hybrid penalty).
#[test]
fn the_authors_code_keeps_rm_simulators_list_and_cost_rule() {
    let code = PolicyParams {
        reading: Reading::AuthorsCode,
        ..PolicyParams::default()
    };
    // FF: two running local VMs of one price. VM 0 has 6 cores and 63 GiB free
    // (0.8·6 + 0.2·63 = 17.4), VM 1 has 7 cores and 32 GiB (0.8·7 + 0.2·32 = 12.0): the
    // code's `VMComparator` takes VM 1 first, the text's id order VM 0.
    let mut c = cluster(&[(8, 64, Local, 1.0), (8, 64, Local, 1.0)]);
    for (vm, cores, gib) in [(0, 2, 1), (1, 1, 32)] {
        occupy(&mut c, vm, cores, gib, 50.0);
    }
    // Where a fresh policy of each reading places `j` at `now`: [text, code].
    let readings = |kind: PolicyKind, j: &frugal_core::Job, c: &Cluster, now: f64| {
        [Reading::PaperText, Reading::AuthorsCode].map(|reading| {
            let params = PolicyParams {
                reading,
                ..PolicyParams::default()
            };
            vms(&kind.build(&params).place(j, c, now).unwrap())
        })
    };
    let one = job("j", 1, 1, 1, 10.0);
    assert_eq!(
        readings(PolicyKind::FirstFit, &one, &c, 0.0),
        [vec![(0, 1)], vec![(1, 1)]]
    );

    // FIFO-C: the list is sorted in place, ties keep the previous job's order. Cloud VM 2
    // has 8 cores, the others 4; creation order is 2, 3, 0, 1 (cloud first). A first job
    // sorts it by free cores to 3, 0, 1, 2. Once VM 2 has 4 cores busy every VM ties at 4
    // free: the kept list gives VM 3, a fresh one (creation order) VM 2.
    let mut c = cluster(&[
        (4, 64, Local, 1.0),
        (4, 64, Local, 1.0),
        (8, 64, Cloud, 2.0),
        (4, 64, Cloud, 1.0),
    ]);
    let mut kept = PolicyKind::RoundRobinConsolidate.build(&code);
    kept.place(&job("a", 1, 1, 1, 10.0), &c, 0.0).unwrap();
    occupy(&mut c, 2, 4, 1, 50.0);
    let four = job("b", 1, 4, 1, 10.0);
    assert_eq!(vms(&kept.place(&four, &c, 0.0).unwrap()), [(3, 1)]);
    let mut fresh = PolicyKind::RoundRobinConsolidate.build(&code);
    assert_eq!(vms(&fresh.place(&four, &c, 0.0).unwrap()), [(2, 1)]);

    // GIO at t = 1,000 s: local VM 0 ($1/s) is off, cloud VM 1 ($2/s) runs until 1,050 s.
    // A 100-s executor costs 1·(1,000 + 100 − 0) = 1,100 on the off VM (priced from time
    // zero) and 2·(1,100 − 1,050) = 100 on the running one: the code takes VM 1; the text
    // keeps a job that fits the local site there (VM 0).
    let mut c = cluster(&[(4, 64, Local, 1.0), (4, 64, Cloud, 2.0)]);
    occupy(&mut c, 1, 1, 1, 1050.0);
    let g = job("g", 1, 1, 1, 100.0);
    assert_eq!(
        readings(PolicyKind::Gio, &g, &c, 1000.0),
        [vec![(0, 1)], vec![(1, 1)]]
    );

    // GIO records maxT with T_C^L. Local VM 0 ($1/s, 4 cores) runs until 200 s; cloud VM 1
    // ($1/s, 8 cores) is off. Job h (one 4-core executor, T_C^L = 100 s) goes to VM 1 (VM 0
    // has 3 cores free) and runs hybrid, until 130 s; the code records 100. A 120-s
    // executor then costs 1·(120 − 100) = 20 on VM 1 and 0 on VM 0 (200 ≥ 120): VM 0. With
    // the VM's own end (130 ≥ 120) both would cost 0 and list order would take VM 1.
    let mut c = cluster(&[(4, 64, Local, 1.0), (8, 64, Cloud, 1.0)]);
    occupy(&mut c, 0, 1, 1, 200.0);
    let mut gio = Gio::new(Reading::AuthorsCode);
    let h = job("h", 1, 4, 1, 100.0);
    let ph = gio.place(&h, &c, 0.0).unwrap();
    assert_eq!(vms(&ph), [(1, 1)]);
    reserve(&mut c, &h, &ph, h.t_hybrid);
    assert_eq!(
        vms(&gio.place(&job("k", 1, 1, 1, 120.0), &c, 0.0).unwrap()),
        [(0, 1)]
    );
}

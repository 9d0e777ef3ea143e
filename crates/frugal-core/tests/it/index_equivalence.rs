//! The indexed policies place every job exactly where the scan-every-VM implementations
//! they replaced did (`reference/`) — `optimal` at an optimum of the same cost on as many
//! VMs, its documented tie-break — on random clusters of 1–500 VMs of a few classes in
//! random power states, over random job streams, with and without the index; and the
//! index stays the one a fresh build of the cluster's VMs gives after every operation.
//! The authors'-code readings place as themselves without the index.

use crate::reference;

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::policy::objective::placement_cost;
use frugal_core::{Job, JobKind, Placement, PolicyKind, PolicyParams, Reading, Resources};
use proptest::prelude::*;
use reference::Reference;

/// One operation of a run.
#[derive(Clone, Debug)]
enum Op {
    /// A job arrives: (executors, cores, GiB, kind, T_C^L s, busy for s).
    Place(u32, u32, u32, u8, u32, u32),
    /// The `n`-th oldest running placement ends.
    Release(usize),
    /// Idle VMs from id `n` on are turned off (a sweep of up to 8).
    PowerOff(usize),
    /// Booting VMs become ready.
    Ready,
    /// Time advances by `s` seconds.
    Advance(u32),
}

fn arb_cluster() -> impl Strategy<Value = Cluster> {
    // Up to 4 instance types; groups of 1–125 VMs at a site and one of 3 prices.
    let types = prop::collection::vec((1u32..=16, 1u32..=32), 1..=4);
    let groups = prop::collection::vec((0usize..4, any::<bool>(), 1u32..=125, 0u32..3), 1..=4);
    (types, groups).prop_map(|(types, groups)| {
        let n = types.len();
        let types = types
            .iter()
            .enumerate()
            .map(|(i, &(c, m))| InstanceType {
                name: format!("t{i}"),
                capacity: Resources::from_gib(c, m),
            })
            .collect();
        let groups: Vec<VmGroup> = groups
            .iter()
            .map(|&(t, local, count, price)| VmGroup {
                instance_type: t % n,
                site: if local { Site::Local } else { Site::Cloud },
                count,
                price_per_second: [0.0001, 0.0002, 0.0004][price as usize],
            })
            .collect();
        Cluster::new(types, &groups)
    })
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (1u32..=12, 1u32..=8, 1u32..=16, 0u8..3, 1u32..=600, 1u32..=900)
            .prop_map(|(e, c, m, k, t, b)| Op::Place(e, c, m, k, t, b)),
        3 => (0usize..16).prop_map(Op::Release),
        1 => (0usize..500).prop_map(Op::PowerOff),
        1 => Just(Op::Ready),
        1 => (0u32..300).prop_map(Op::Advance),
    ]
}

fn job(e: u32, c: u32, m: u32, kind: u8, t: u32) -> Job {
    Job {
        id: "j".into(),
        kind: [
            JobKind::CpuBound,
            JobKind::MemoryBound,
            JobKind::NetworkBound,
        ][kind as usize],
        executors: e,
        executor_demand: Resources::from_gib(c, m),
        arrival: 0.0,
        deadline: None,
        t_local: f64::from(t),
        t_hybrid: f64::from(t) * 1.3,
    }
}

/// Runs `ops` with the indexed `kind` driving the cluster, asking the oracle at every
/// arrival; fails on the first placement that differs.
fn run(
    kind: PolicyKind,
    reading: Reading,
    mut cluster: Cluster,
    ops: &[Op],
) -> Result<(), TestCaseError> {
    let params = PolicyParams {
        reading,
        ..PolicyParams::default()
    };
    let mut policy = kind.build(&params);
    // The authors'-code readings have no reference scan of their own: they are checked
    // against themselves on a copy of the cluster without the index.
    let mut oracle = Reference::new(kind);
    let mut scanning = kind.build(&params);
    let mut running: Vec<(Placement, Resources)> = Vec::new();
    let mut now = 0.0;
    for op in ops {
        match *op {
            Op::Place(e, c, m, k, t, busy) => {
                let j = job(e, c, m, k, t);
                let got = policy.place(&j, &cluster, now);
                let want = match reading {
                    Reading::PaperText => oracle.place(&j, &cluster, now),
                    Reading::AuthorsCode => {
                        let mut scan = cluster.clone();
                        scan.use_index(false);
                        scanning.place(&j, &scan, now)
                    }
                };
                if kind == PolicyKind::Optimal {
                    // The documented tie-break: an optimum of the same cost. Its VM count
                    // is the scan's too in exact arithmetic, but the programme compares
                    // float sums whose rounding depends on the order it adds them in, and
                    // the index lists other (equivalent) VMs, so between two covers of the
                    // same exact cost rounding can pick either VM count (`optimal.rs`).
                    let objective = |p: &Option<Placement>| {
                        p.as_ref()
                            .map(|p| (placement_cost(&j, &cluster, now, p), p.vm_count()))
                    };
                    let (g, w) = (objective(&got), objective(&want));
                    prop_assert_eq!(g.is_some(), w.is_some(), "optimal at t = {}", now);
                    if let (Some(g), Some(w)) = (g, w) {
                        prop_assert!((g.0 - w.0).abs() <= 1e-9 * w.0.max(1.0), "{g:?} {w:?}");
                    }
                } else {
                    prop_assert_eq!(&got, &want, "{} at t = {}", kind.name(), now);
                }
                if let Some(p) = got {
                    cluster
                        .reserve(&p, &j.executor_demand, now, 30.0, &mut Vec::new())
                        .unwrap();
                    cluster.extend_busy(&p, now + f64::from(busy));
                    running.push((p, j.executor_demand));
                }
            }
            Op::Release(n) if !running.is_empty() => {
                let (p, d) = running.remove(n % running.len());
                cluster.release(&p, &d);
            }
            Op::Release(_) => {}
            Op::PowerOff(from) => {
                for id in (from..cluster.len()).take(8) {
                    cluster.power_off(id as u32, now);
                }
            }
            Op::Ready => {
                for id in 0..cluster.len() {
                    cluster.mark_ready(id as u32);
                }
            }
            Op::Advance(s) => now += f64::from(s),
        }
        prop_assert!(cluster.index_is_consistent());
    }
    Ok(())
}

/// The policies that read the placement index: every built-in one but round robin (a
/// cursor over VM order), the MILP (the solver's own model) and the interference-aware
/// policy (the exact cover priced with load, tested on its own).
fn indexed() -> impl Iterator<Item = PolicyKind> {
    PolicyKind::ALL.into_iter().filter(|k| {
        !matches!(
            k,
            PolicyKind::RoundRobin | PolicyKind::Milp | PolicyKind::InterferenceAware
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn indexed_policies_place_as_the_scan(
        cluster in arb_cluster(),
        ops in prop::collection::vec(arb_op(), 1..120),
    ) {
        let readings = [Reading::PaperText, Reading::AuthorsCode];
        for (kind, reading) in indexed().flat_map(|k| readings.map(|r| (k, r))) {
            if reading == Reading::AuthorsCode && !kind.has_authors_reading() {
                continue;
            }
            // Scanning (no index), and indexed with and without the busy subgroups (the
            // simulator drops them for the policies that do not rank by remaining
            // active time).
            for (index, busy) in [(false, true), (true, true), (true, false)] {
                let mut c = cluster.clone();
                c.use_index(index);
                c.keep_busy_groups(busy);
                run(kind, reading, c, &ops)?;
            }
        }
    }

    #[test]
    fn emptied_and_fresh_clusters_have_consistent_indexes(mut cluster in arb_cluster()) {
        cluster.use_index(true);
        prop_assert!(cluster.index_is_consistent());
        prop_assert!(cluster.emptied().index_is_consistent());
    }
}

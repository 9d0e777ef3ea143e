//! `optimal` and `milp` reach the same optimal cost on random clusters and jobs.

use std::time::Duration;

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::policy::objective::placement_cost;
use frugal_core::policy::{Milp, MilpBackend, Optimal, PlacementPolicy, Reading};
use frugal_core::{Job, JobKind, Placement, Resources};
use proptest::prelude::*;

/// A cluster mid-run: random VMs, some on with executors until a random time.
fn arb_state() -> impl Strategy<Value = Cluster> {
    prop::collection::vec(
        (
            1u32..=16,
            1u32..=64,
            any::<bool>(),
            0u32..=12,
            0u32..=3,
            prop::option::of((0u32..=100, 1u32..=600)),
        ),
        1..14,
    )
    .prop_map(|vms| {
        let types = vms
            .iter()
            .enumerate()
            .map(|(i, v)| InstanceType {
                name: format!("t{i}"),
                capacity: Resources::from_gib(v.0, v.1),
            })
            .collect();
        let groups: Vec<VmGroup> = vms
            .iter()
            .enumerate()
            .map(|(i, v)| VmGroup {
                instance_type: i,
                site: if v.2 { Site::Local } else { Site::Cloud },
                count: 1,
                price_per_second: f64::from(v.3) / 1000.0 + f64::from(v.4) * 1e-4,
            })
            .collect();
        let mut c = Cluster::new(types, &groups);
        for (i, v) in vms.iter().enumerate() {
            if let Some((used_pct, until)) = v.5 {
                let cap = c.vms[i].capacity;
                let used = Resources::new(
                    cap.cores() * used_pct / 100,
                    cap.memory_mib() * used_pct / 100,
                );
                if used.is_zero() {
                    continue;
                }
                let mut p = Placement::default();
                p.add(i as u32, 1);
                c.reserve(&p, &used, 0.0, 0.0, &mut Vec::new()).unwrap();
                c.extend_busy(&p, f64::from(until));
            }
        }
        c
    })
}

fn arb_job() -> impl Strategy<Value = Job> {
    (1u32..=8, 1u32..=6, 1u32..=10, 1u32..=900, 0u32..=100).prop_map(|(e, c, m, t, pen)| Job {
        id: "j".into(),
        kind: JobKind::CpuBound,
        executors: e,
        executor_demand: Resources::from_gib(c, m),
        arrival: 0.0,
        deadline: None,
        t_local: f64::from(t),
        t_hybrid: f64::from(t) * (1.0 + f64::from(pen) / 100.0),
    })
}

fn check(cluster: &Cluster, job: &Job, p: &Placement) -> Result<(), TestCaseError> {
    prop_assert_eq!(p.executors(), job.executors);
    for &(vm, n) in &p.executors_per_vm {
        prop_assert!(cluster.vm(vm).free.fits(&job.executor_demand.times(n)));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn optimal_matches_the_milp(cluster in arb_state(), job in arb_job(), now in 0u32..300) {
        let now = f64::from(now);
        for &backend in BACKENDS {
            let exact = Optimal::default().place(&job, &cluster, now);
            let mut milp = Milp::new(backend, Duration::from_secs(30), Reading::PaperText);
            let solved = milp.place(&job, &cluster, now);
            prop_assert_eq!(milp.fallbacks(), 0);
            same_cost(&cluster, &job, now, exact, solved)?;
        }
    }
}

/// Every MILP backend of this build.
const BACKENDS: &[MilpBackend] = &[
    MilpBackend::Microlp,
    #[cfg(feature = "highs")]
    MilpBackend::Highs,
];

fn same_cost(
    cluster: &Cluster,
    job: &Job,
    now: f64,
    exact: Option<Placement>,
    solved: Option<Placement>,
) -> Result<(), TestCaseError> {
    match (exact, solved) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            check(cluster, job, &a)?;
            check(cluster, job, &b)?;
            let (ca, cb) = (
                placement_cost(job, cluster, now, &a),
                placement_cost(job, cluster, now, &b),
            );
            prop_assert!(
                (ca - cb).abs() <= 1e-7 * ca.abs().max(1.0),
                "optimal {ca} vs milp {cb}: {a:?} {b:?}"
            );
        }
        (a, b) => prop_assert!(false, "feasibility differs: optimal {a:?}, milp {b:?}"),
    }
    Ok(())
}

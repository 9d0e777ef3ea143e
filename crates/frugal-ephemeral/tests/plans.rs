//! Property: every plan of Alg. 1 respects Eq. 4–6 and all-or-nothing jobs, whatever the
//! capacities, jobs and window.

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_ephemeral::job::{Job, JobSpec};
use frugal_ephemeral::plan::{NodeCapacity, Problem, violations};
use frugal_ephemeral::rffd;

fn problem() -> impl Strategy<Value = Problem> {
    let node = (
        5.0..400.0f64,
        prop::collection::vec(0.0..1.0f64, 4),
        prop::collection::vec(0.0..12.0f64, 4),
    )
        .prop_map(|(cpu, share, ram)| {
            NodeCapacity::new(cpu, share.iter().map(|s| s * cpu).collect(), ram)
        });
    let job = (1usize..12, 1usize..3, 1u32..64, 1.0..4.0f64);
    (
        prop::collection::vec(node, 1..5),
        prop::collection::vec(job, 1..4),
        60u32..720,
        prop_oneof![Just(1u32), Just(7), Just(180)],
    )
        .prop_map(|(nodes, jobs, window_s, plan_slot_s)| Problem {
            nodes,
            jobs: jobs
                .into_iter()
                .enumerate()
                .map(|(j, (maps, reduces, chunk_mib, ram_gib))| {
                    Job::new(
                        j,
                        JobSpec {
                            maps,
                            reduces,
                            chunk_mib,
                            ram_gib,
                            ..JobSpec::paper(128)
                        },
                    )
                })
                .collect(),
            window_s,
            plan_slot_s,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn alg1_plans_are_feasible(p in problem(), seed in any::<u64>()) {
        let plan = rffd::plan(&p, &mut ChaCha8Rng::seed_from_u64(seed));
        prop_assert_eq!(violations(&p, &plan), vec![]);
        prop_assert_eq!(plan.scheduled(), plan.0.iter().zip(&p.jobs)
            .filter(|(t, _)| t.iter().all(Option::is_some))
            .map(|(_, j)| j.tasks.len()).sum::<usize>());
    }
}

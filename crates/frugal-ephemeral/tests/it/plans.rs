//! Property: every plan of Alg. 1 respects Eq. 4–6 and all-or-nothing jobs, whatever the
//! capacities, jobs and window.

use crate::common;

use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_ephemeral::plan::violations;
use frugal_ephemeral::rffd;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn alg1_plans_are_feasible(p in common::problem_of_jobs(12), seed in any::<u64>()) {
        let plan = rffd::plan(&p, &mut ChaCha8Rng::seed_from_u64(seed));
        prop_assert_eq!(violations(&p, &plan), vec![]);
        prop_assert_eq!(plan.scheduled(), plan.0.iter().zip(&p.jobs)
            .filter(|(t, _)| t.iter().all(Option::is_some))
            .map(|(_, j)| j.tasks.len()).sum::<usize>());
    }
}

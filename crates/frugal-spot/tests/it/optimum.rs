//! The omniscient DP against brute force, its plan replayed by the simulator, and no policy
//! below it.

use proptest::prelude::*;

use crate::common;

use common::Script;
use frugal_spot::model::{Job, Mode, Prices};
use frugal_spot::optimum::{lookahead, lookahead_priced, omniscient, omniscient_priced};
use frugal_spot::policy::SpotPolicySpec;
use frugal_spot::sim::{LastTick, run};

const G: f64 = 600.0;
const P: Prices = Prices {
    spot_per_h: 1.0,
    on_demand_per_h: 3.1446,
};

/// The cheapest of every mode sequence over the horizon that finishes within it, each spot
/// tick at its price in `spot` when given.
fn brute_force(job: &Job, window: &[bool], spot: Option<&[f64]>) -> Option<f64> {
    let t = job.horizon_ticks(G);
    let mut best: Option<f64> = None;
    let mut modes = vec![Mode::Idle; t];
    let mut go = |modes: &Vec<Mode>| {
        if let Ok(o) = run(
            &mut Script(modes.clone()),
            job,
            &P,
            spot,
            window,
            G,
            LastTick::Whole,
        ) && o.finish_h * 3600.0 <= t as f64 * G + 1e-9
            && o.finish_h > 0.0
        {
            best = Some(best.map_or(o.cost_usd, |b: f64| b.min(o.cost_usd)));
        }
    };
    fn rec(i: usize, modes: &mut Vec<Mode>, window: &[bool], go: &mut dyn FnMut(&Vec<Mode>)) {
        if i == modes.len() {
            go(modes);
            return;
        }
        for m in [Mode::Idle, Mode::Spot, Mode::OnDemand] {
            if m == Mode::Spot && !window[i] {
                continue;
            }
            modes[i] = m;
            rec(i + 1, modes, window, go);
        }
    }
    rec(0, &mut modes, window, &mut go);
    best
}

fn case() -> impl Strategy<Value = (Job, Vec<bool>)> {
    (
        3usize..=7,
        1u32..=12,
        0u32..=4,
        proptest::collection::vec(any::<bool>(), 8),
    )
        .prop_map(|(ticks, work_units, d_units, avail)| {
            // Work in multiples of 150 s, d in multiples of 300 s (g = 600 s).
            let job = Job {
                work_s: 150.0 * f64::from(work_units),
                deadline_s: G * ticks as f64,
                changeover_s: 300.0 * f64::from(d_units),
                instances: 1,
            };
            (job, avail)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn the_dp_is_the_brute_force_optimum((job, window) in case()) {
        let dp = omniscient(&job, &P, &window, G).unwrap();
        let bf = brute_force(&job, &window, None);
        match (dp, bf) {
            (None, None) => {}
            (Some((cost, modes)), Some(best)) => {
                prop_assert!((cost - best).abs() < 1e-9, "dp {cost} brute force {best}");
                // The plan, replayed by the simulator, costs what the DP says and finishes.
                let o = run(&mut Script(modes), &job, &P, None, &window, G, LastTick::Whole).unwrap();
                prop_assert!((o.cost_usd - cost).abs() < 1e-9);
                prop_assert!(o.deadline_met);
            }
            (dp, bf) => prop_assert!(false, "dp {dp:?} brute force {bf:?}"),
        }
    }

    /// With a price per tick (a trace's `prices`), the DP is still the brute-force optimum
    /// of what the simulator bills, and no lookahead plan is below it.
    #[test]
    fn the_dp_prices_each_spot_tick_as_the_simulator_bills_it(
        (job, window) in case(),
        spot in proptest::collection::vec(0.2f64..4.0, 8),
    ) {
        let dp = omniscient_priced(&job, &P, &spot, &window, G).unwrap();
        let bf = brute_force(&job, &window, Some(&spot));
        match (dp, bf) {
            (None, None) => {}
            (Some((cost, modes)), Some(best)) => {
                prop_assert!((cost - best).abs() < 1e-9, "dp {cost} brute force {best}");
                let o = run(&mut Script(modes), &job, &P, Some(&spot), &window, G, LastTick::Whole)
                    .unwrap();
                prop_assert!((o.cost_usd - cost).abs() < 1e-9);
                if let Some((c, _)) = lookahead_priced(&job, &P, &spot, &window, G, 2).unwrap() {
                    prop_assert!(c >= cost - 1e-9, "lookahead {c} below the optimum {cost}");
                }
            }
            (dp, bf) => prop_assert!(false, "dp {dp:?} brute force {bf:?}"),
        }
    }

    #[test]
    fn no_policy_meeting_the_deadline_pays_less_than_the_optimum(
        ticks in 20usize..60,
        work_frac in 0.3f64..0.9,
        d_units in 0u32..4,
        avail in proptest::collection::vec(prop::bool::weighted(0.6), 80),
    ) {
        let job = Job {
            work_s: (ticks as f64 * G * work_frac / 60.0).round() * 60.0,
            deadline_s: ticks as f64 * G,
            changeover_s: 360.0 * f64::from(d_units),
            instances: 1,
        };
        prop_assume!(job.check(G).is_ok());
        let Some((best, _)) = omniscient(&job, &P, &avail, G).unwrap() else {
            return Ok(());
        };
        for p in SpotPolicySpec::ALL.into_iter().chain([SpotPolicySpec::TimeSliced(3)]) {
            let mut policy = p.build(&P);
            let o = run(policy.as_mut(), &job, &P, None, &avail, G, LastTick::Whole).unwrap();
            if o.deadline_met {
                prop_assert!(o.cost_usd >= best - 1e-9, "{p}: {} < {best}", o.cost_usd);
            }
        }
        // The lookahead optimum never beats the full one and is a plan of the same rules.
        if let Some((c, _)) = lookahead(&job, &P, &avail, G, 4).unwrap() {
            prop_assert!(c >= best - 1e-9);
        }
    }
}

#[test]
fn a_48_hour_window_takes_well_under_a_second() {
    let job = Job::from_hours(48.0, 60.0, 0.2);
    let window: Vec<bool> = (0..400).map(|i| (i / 7) % 3 != 0).collect();
    let start = std::time::Instant::now();
    let (cost, modes) = omniscient(&job, &Prices::PAPER, &window, G)
        .unwrap()
        .unwrap();
    assert!(start.elapsed().as_secs_f64() < 1.0 || cfg!(debug_assertions));
    assert_eq!(modes.len(), 360);
    // Never more than on-demand from the start.
    assert!(cost <= 147.90 + 1e-9);
}

#[test]
fn the_lookahead_always_finishes_a_job_on_demand_could_finish() {
    // 56 ticks, 8.13 h of work, d = 0.3 h, spot only in ticks 46–48: slices that idle
    // while their share is out of reach used to leave the last slice unable to finish (and
    // the policy then played on-demand from the start under the lookahead's name).
    let job = Job {
        work_s: 8.0 * 3600.0 + 480.0,
        deadline_s: 56.0 * G,
        changeover_s: 1080.0,
        instances: 1,
    };
    let avail: Vec<bool> = (0..80).map(|t| (46..49).contains(&t)).collect();
    let (cost, modes) = lookahead(&job, &P, &avail, G, 8).unwrap().unwrap();
    let o = run(
        &mut Script(modes),
        &job,
        &P,
        None,
        &avail,
        G,
        LastTick::Whole,
    )
    .unwrap();
    assert!(o.deadline_met && (o.cost_usd - cost).abs() < 1e-9);
    let (best, _) = omniscient(&job, &P, &avail, G).unwrap().unwrap();
    assert!(cost >= best - 1e-9);
}

//! Properties of every policy on random bags and machine sets: each task runs once, a
//! core runs its tasks one after another, every deadline is met, the fast forms equal
//! the reference searches, RA only helps, and bound ≤ optimum ≤ heuristics.

use frugal_bot::bound::rent_lower_bound;
use frugal_bot::experiment::Implementation::Fast;
use frugal_bot::experiment::{Measures, schedule, validate};
use frugal_bot::{MachineType, Policy, Setup, Task, ffd, ha};
use proptest::prelude::*;

fn machine(cores: u32, mhz: u64, price: Option<f64>) -> MachineType {
    MachineType {
        name: "m".into(),
        cores,
        mhz,
        price_per_hour: price,
        watts: (70.0, 110.0),
    }
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        prop::collection::vec((1u32..=4, 2001u64..=3200), 0..4),
        prop::collection::vec((1u32..=4, 2001u64..=3200, 1u32..=50), 1..3),
    )
        .prop_map(|(pms, vms)| Setup {
            pms: pms.into_iter().map(|(c, r)| machine(c, r, None)).collect(),
            vm_types: vms
                .into_iter()
                .map(|(c, r, cents)| machine(c, r, Some(f64::from(cents) / 100.0)))
                .collect(),
        })
}

fn bag(max: usize) -> impl Strategy<Value = Vec<Task>> {
    prop::collection::vec(1u64..=40_000, 1..max).prop_map(|w| {
        w.into_iter()
            .enumerate()
            .map(|(i, work)| Task { id: i as u64, work })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn schedules_are_complete_on_time_and_above_the_bound(
        setup in setup(), tasks in bag(80), alpha in 1u32..=4,
    ) {
        let bound = rent_lower_bound(&setup, &tasks, alpha);
        let mut base = None;
        for policy in Policy::PAPER {
            let (s, moves) = schedule(policy, &setup, &tasks, alpha, Fast).unwrap();
            prop_assert_eq!(validate(&s, &tasks), Ok(()));
            let m = Measures::of(&s, &setup, &tasks, alpha);
            prop_assert_eq!(m.deadline_misses, 0, "{:?}", policy);
            prop_assert!(m.rent_usd + 1e-9 >= bound.rent_usd, "{:?}: {} < {}", policy, m.rent_usd, bound.rent_usd);
            prop_assert!(m.utilisation <= 1.0 + 1e-12 && m.utilisation_pooled <= 1.0 + 1e-12);
            match policy {
                Policy::Ffd | Policy::Ha => { prop_assert_eq!(moves, 0); base = Some(m) }
                _ => {
                    let b = base.take().unwrap();
                    prop_assert_eq!(m.vms, b.vms);
                    prop_assert!(m.vm_hours <= b.vm_hours);
                    prop_assert!(m.makespan_s <= b.makespan_s);
                    prop_assert!(m.energy_kwh <= b.energy_kwh + 1e-12);
                }
            }
        }
    }

    #[test]
    fn fast_forms_equal_the_reference_searches(
        setup in setup(), tasks in bag(60), alpha in 1u32..=4,
    ) {
        prop_assert_eq!(ha::schedule(&setup, &tasks, alpha), ha::schedule_naive(&setup, &tasks, alpha));
        prop_assert_eq!(ffd::schedule(&setup, &tasks, alpha), ffd::schedule_naive(&setup, &tasks, alpha));
    }
}

proptest! {
    // The exact optimum is a small ILP per case; a few dozen cases keep the suite quick.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn bound_optimum_heuristics_are_ordered(
        pm in prop::option::of((1u32..=2, 2001u64..=3000)),
        vm in (1u32..=2, 2001u64..=3000, 1u32..=50),
        tasks in bag(6), alpha in 1u32..=3,
    ) {
        let setup = Setup {
            pms: pm.into_iter().map(|(c, r)| machine(c, r, None)).collect(),
            vm_types: vec![machine(vm.0, vm.1, Some(f64::from(vm.2) / 100.0))],
        };
        let bound = rent_lower_bound(&setup, &tasks, alpha).rent_usd;
        let (opt, _) = schedule(Policy::Optimal, &setup, &tasks, alpha, Fast).unwrap();
        prop_assert_eq!(validate(&opt, &tasks), Ok(()));
        let opt_m = Measures::of(&opt, &setup, &tasks, alpha);
        prop_assert_eq!(opt_m.deadline_misses, 0);
        prop_assert!(bound <= opt_m.rent_usd + 1e-9, "bound {} > optimum {}", bound, opt_m.rent_usd);
        for policy in Policy::PAPER {
            let (s, _) = schedule(policy, &setup, &tasks, alpha, Fast).unwrap();
            let rent = Measures::of(&s, &setup, &tasks, alpha).rent_usd;
            prop_assert!(opt_m.rent_usd <= rent + 1e-9, "{:?} {} beats the optimum {}", policy, rent, opt_m.rent_usd);
        }
    }
}

//! Numbers fixed by the logs shipped in `data/swf/` (paper 003 Table 2, spec §2.2).

use frugal_bot::bound::rent_lower_bound;
use frugal_bot::experiment::Implementation::Fast;
use frugal_bot::experiment::{Measures, schedule, validate};
use frugal_bot::{Bag, Policy, Setup, ha};

fn log(name: &str) -> Bag {
    let path = format!("{}/../../data/swf/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    frugal_bot::tasks::from_swf(&frugal_traces::swf::read(&bytes, &path).unwrap()).unwrap()
}

fn nasa() -> Bag {
    log("NASA-iPSC-1993-3.1-cln.swf.gz")
}

/// Table 2: 18,239 records, 173 without run time, 18,066 tasks, 71.11 % shorter than 1 h.
#[test]
fn nasa_matches_table_2() {
    let bag = nasa();
    assert_eq!(
        (bag.records, bag.dropped_run_time, bag.dropped_processors),
        (18_239, 173, 0)
    );
    assert_eq!(bag.tasks.len(), 18_066);
    assert_eq!(bag.shorter_than(3600), 12_847);
    assert_eq!(format!("{:.2}", 100.0 * 12_847.0 / 18_066.0), "71.11");
}

/// At α = 1 no core can take a second task under FFD (it would need w₁ ≤ w₂(r/2 − 1) with
/// r ≤ 2.7 GHz), so the 100 PM cores hold the 100 largest tasks and every other task
/// has a VM core of its own: ⌈(18,066 − 100)/2⌉ = 8,983 VMs.
#[test]
fn ffd_at_alpha_1_has_one_task_per_core() {
    let bag = nasa();
    let setup = Setup::paper003(1);
    let (s, _) = schedule(Policy::Ffd, &setup, &bag.tasks, 1, Fast).unwrap();
    validate(&s, &bag.tasks).unwrap();
    let m = Measures::of(&s, &setup, &bag.tasks, 1);
    assert_eq!(m.vms, 8_983);
    assert_eq!(m.vm_hours, 24_814);
    assert_eq!(format!("{:.2}", m.rent_usd), "2605.47");
    assert_eq!(format!("{:.1}", m.local_core_s / 3600.0), "15958.9");
    assert_eq!(format!("{:.1}", m.makespan_s / 3600.0), "309.7");
    assert_eq!(m.deadline_misses, 0);
    assert!(
        s.machines
            .iter()
            .flat_map(|m| &m.cores)
            .all(|c| c.tasks.len() <= 1)
    );
}

#[test]
fn kth_ffd_at_alpha_1() {
    let bag = log("KTH-SP2-1996-2.1-cln.swf.gz");
    assert_eq!(
        (bag.records, bag.dropped_run_time, bag.dropped_processors),
        (28_476, 8, 1)
    );
    assert_eq!(bag.tasks.len(), 28_467);
    let setup = Setup::paper003(1);
    let (s, _) = schedule(Policy::Ffd, &setup, &bag.tasks, 1, Fast).unwrap();
    let m = Measures::of(&s, &setup, &bag.tasks, 1);
    assert_eq!(m.vms, 14_184);
    assert_eq!(format!("{:.2}", m.rent_usd), "10082.73");
}

/// Every policy meets every deadline at every α, RA keeps the VMs and never raises the
/// rent, and no policy beats the lower bound.
#[test]
fn every_policy_on_nasa() {
    let bag = nasa();
    let setup = Setup::paper003(1);
    for alpha in 1..=4 {
        let bound = rent_lower_bound(&setup, &bag.tasks, alpha);
        let mut before = None;
        for policy in Policy::PAPER {
            let (s, _) = schedule(policy, &setup, &bag.tasks, alpha, Fast).unwrap();
            validate(&s, &bag.tasks).unwrap();
            let m = Measures::of(&s, &setup, &bag.tasks, alpha);
            assert_eq!(m.deadline_misses, 0, "{policy:?} α={alpha}");
            assert!(
                m.rent_usd >= bound.rent_usd,
                "{policy:?} α={alpha}: {} < {}",
                m.rent_usd,
                bound.rent_usd
            );
            match policy {
                Policy::Ffd | Policy::Ha => before = Some(m),
                _ => {
                    let b = before.take().unwrap();
                    assert_eq!(m.vms, b.vms);
                    assert!(m.rent_usd <= b.rent_usd + 1e-9);
                    assert!(m.makespan_s <= b.makespan_s);
                }
            }
        }
    }
}

/// The fast HA equals the paper's all-pairs search on a slice of the real log.
#[test]
fn fast_ha_equals_naive_on_nasa_prefix() {
    let bag = nasa().first(400);
    let setup = Setup::paper003(1);
    for alpha in 1..=4 {
        assert_eq!(
            ha::schedule(&setup, &bag.tasks, alpha).unwrap(),
            ha::schedule_naive(&setup, &bag.tasks, alpha).unwrap(),
            "α = {alpha}"
        );
    }
}

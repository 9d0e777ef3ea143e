//! The tick semantics (spec §1.1) and each policy's rules, on hand-computed cases.

use crate::common;

use common::Script;
use frugal_spot::model::{Job, Mode, Prices};
use frugal_spot::policy::SpotPolicySpec;
use frugal_spot::sim::{LastTick, WindowOutcome, run};

const G: f64 = 600.0;
const P: Prices = Prices {
    spot_per_h: 1.0,
    on_demand_per_h: 3.0,
};

fn job(work_s: f64, deadline_s: f64, changeover_s: f64) -> Job {
    Job {
        work_s,
        deadline_s,
        changeover_s,
        instances: 1,
    }
}

fn avail(s: &str) -> Vec<bool> {
    s.chars().map(|c| c == '1').collect()
}

fn play(modes: &[Mode], j: &Job, window: &[bool]) -> WindowOutcome {
    run(
        &mut Script(modes.to_vec()),
        j,
        &P,
        None,
        window,
        G,
        LastTick::Whole,
    )
    .unwrap()
}

fn spec(p: &str, j: &Job, window: &[bool]) -> WindowOutcome {
    let mut policy = p.parse::<SpotPolicySpec>().unwrap().build(&P);
    run(policy.as_mut(), j, &P, None, window, G, LastTick::Whole).unwrap()
}

const S: Mode = Mode::Spot;
const O: Mode = Mode::OnDemand;
const I: Mode = Mode::Idle;

#[test]
fn the_first_start_pays_the_changeover_and_the_last_tick_is_billed_whole() {
    // 1,200 s of work, d = 720 s: tick 0 pays 600 s of changeover, tick 1 pays 120 s and
    // makes 480, tick 2 makes 600, tick 3 makes the last 120 — four spot ticks billed.
    let j = job(1200.0, 6000.0, 720.0);
    let o = play(&[S, S, S, S], &j, &avail("1111111111"));
    assert_eq!(o.changeovers, 1);
    assert_eq!(o.spot_h, 4.0 * G / 3600.0);
    assert_eq!(o.cost_usd, 4.0 * G / 3600.0 * 1.0);
    assert!((o.spot_work_h * 3600.0 - 1200.0).abs() < 1e-9);
    assert_eq!(o.finish_h * 3600.0, 3.0 * G + 120.0);
    assert!(o.deadline_met);
    // Prorated, the last tick is billed for its 120 s only.
    let mut s = Script(vec![S, S, S, S]);
    let p = run(
        &mut s,
        &j,
        &P,
        None,
        &avail("1111111111"),
        G,
        LastTick::Prorated,
    )
    .unwrap();
    assert!((p.cost_usd - (3.0 * G + 120.0) / 3600.0).abs() < 1e-12);
}

#[test]
fn preemption_idles_the_job_free_and_the_next_start_pays_again() {
    // d = 300 s. Ticks 0–1 on spot (300 + 600 s of progress), spot lost at tick 2 (idle, not
    // billed), back on spot at tick 3 with a new changeover (300 s), done at tick 4 (300 s).
    let j = job(1500.0, 36000.0, 300.0);
    let o = play(&[S, S, I, S, S], &j, &avail("11011111"));
    assert_eq!((o.changeovers, o.preemptions), (2, 1));
    assert_eq!(o.spot_h, 4.0 * G / 3600.0);
    assert_eq!(o.finish_h * 3600.0, 4.0 * G + 300.0);
    // Changeover left when the spot is lost is lost with it: d = 900 s, preempted after one
    // tick (300 s of changeover unpaid); the restart pays 900 s again.
    let j = job(600.0, 36000.0, 900.0);
    let o = play(&[S, I, S, S, S], &j, &avail("1011111"));
    assert_eq!(o.spot_h, 4.0 * G / 3600.0);
    assert_eq!(o.finish_h * 3600.0, 4.0 * G + 300.0);
    assert_eq!(o.preemptions, 1);
}

#[test]
fn switching_between_spot_and_on_demand_bills_the_changeover_at_the_new_price() {
    // d = 300 s: spot (300 + 300 of progress over ticks 0–1 is 300 + 600), then on-demand from
    // tick 2: its changeover of 300 s is billed at the on-demand price.
    let j = job(1800.0, 36000.0, 300.0);
    let o = play(&[S, S, O, O], &j, &avail("1111"));
    assert_eq!(o.changeovers, 2);
    assert_eq!(
        (o.spot_h, o.on_demand_h),
        (2.0 * G / 3600.0, 2.0 * G / 3600.0)
    );
    assert!((o.cost_usd - (2.0 + 2.0 * 3.0) * G / 3600.0).abs() < 1e-12);
    assert!((o.on_demand_work_h * 3600.0 - 900.0).abs() < 1e-9);
}

#[test]
fn picking_spot_where_there_is_none_is_an_error() {
    let j = job(600.0, 6000.0, 0.0);
    let e = run(
        &mut Script(vec![S]),
        &j,
        &P,
        None,
        &avail("0"),
        G,
        LastTick::Whole,
    )
    .unwrap_err();
    assert!(e.to_string().contains("tick 0"), "{e}");
}

#[test]
fn on_demand_only_pays_work_plus_one_changeover_in_whole_ticks() {
    // The spec's example: 48 h, d = 0.2 h, g = 600 s, $3.06/h → 290 ticks, $147.90.
    let j = Job::from_hours(48.0, 60.0, 0.2);
    let mut p = SpotPolicySpec::OnDemand.build(&Prices::PAPER);
    let o = run(
        p.as_mut(),
        &j,
        &Prices::PAPER,
        None,
        &[],
        G,
        LastTick::Whole,
    )
    .unwrap();
    assert!((o.cost_usd - 147.90).abs() < 1e-9, "{}", o.cost_usd);
    assert_eq!(o.on_demand_h, 290.0 / 6.0);
}

#[test]
fn greedy_waits_for_spot_until_the_last_safe_moment_then_stays_on_demand() {
    // 3,000 s of work (5 ticks), d = 600 s, R(0) = 4,800 s (8 ticks), no spot. Tick 0: rem
    // = 8 ticks, need₂ = ⌈4200/600⌉ = 7 < 8: idle. Tick 1: rem = 7 ≤ need₂ = 7: on-demand,
    // one changeover tick and five of work, done at 7·600 = 4,200 s.
    let j = job(3000.0, 4800.0, 600.0);
    let o = spec("greedy", &j, &avail("00000000000"));
    assert_eq!(o.on_demand_h, 6.0 * G / 3600.0);
    assert_eq!(o.finish_h * 3600.0, 4200.0);
    // Spot at tick 2 (after the switch) does not lure greedy off on-demand.
    let o = spec("greedy", &j, &avail("00111111111"));
    assert_eq!((o.spot_h, o.changeovers), (0.0, 1));
}

#[test]
fn greedy_keeps_a_paid_spot_at_the_end_game_but_drops_one_still_paying_its_changeover() {
    // 1,200 s of work, d = 600 s, R(0) = 2,400 s (4 ticks). Spot at tick 0: need₂ = 4 ticks
    // ≥ rem = 4 and idle → on-demand (the net forbids the risk).
    let j = job(1200.0, 2400.0, 600.0);
    let o = spec("greedy", &j, &avail("1111"));
    assert_eq!(o.spot_h, 0.0);
    // With more room (R(0) = 3,600 s) greedy takes spot at tick 0 and keeps it.
    let j = job(1200.0, 3600.0, 600.0);
    let o = spec("greedy", &j, &avail("111111"));
    assert_eq!((o.spot_h, o.on_demand_h), (3.0 * G / 3600.0, 0.0));
}

#[test]
fn uniform_progress_goes_on_demand_when_behind_and_leaves_it_only_for_spot_well_ahead() {
    // 1,800 s of work in R(0) = 6,000 s (10 ticks): ep(t) = 0.3·t. d = 0.
    let j = job(1800.0, 6000.0, 0.0);
    // No spot at tick 0 (cp = ep = 0: not behind) → idle; tick 1 behind → on-demand; ticks
    // 2.. on on-demand without spot → stays; done after three ticks of on-demand.
    let o = spec("uniform-progress", &j, &avail("0000000000"));
    assert_eq!(
        (o.on_demand_h, o.finish_h),
        (3.0 * G / 3600.0, 4.0 * G / 3600.0)
    );
    // Spot from tick 2: cp = 600 > ep(2·600 + 0) = 360 → leaves on-demand for spot.
    let o = spec("uniform-progress", &j, &avail("0011111111"));
    assert_eq!(
        (o.on_demand_h, o.spot_h),
        (1.0 * G / 3600.0, 2.0 * G / 3600.0)
    );
    // With d = 300 s the hysteresis needs cp > ep(t + 600): at tick 2 (t = 1,200) cp = 300
    // (tick 1 paid 300 s of changeover) and ep(1,800) = 540: stay on on-demand.
    let j = job(1800.0, 6000.0, 300.0);
    // One tick later, cp = 900 > ep(2,400) = 720: spot.
    let o = spec("uniform-progress", &j, &avail("0011111111"));
    assert_eq!(
        (o.on_demand_h, o.spot_h),
        (2.0 * G / 3600.0, 2.0 * G / 3600.0)
    );
    // Plain UP (no hysteresis) leaves on-demand for the first spot.
    let plain = spec("uniform-progress-plain", &j, &avail("0011111111"));
    assert_eq!(plain.on_demand_h, 1.0 * G / 3600.0);
}

#[test]
fn the_oracle_skips_spot_too_short_to_pay_its_changeover() {
    // k = 3, d = 600 s: from idle spot is worth a changeover only if it lasts more than
    // k·d/(k − 1) = 900 s, from on-demand more than 1,800 s. 2,400 s of work, R(0) = 36,000 s.
    let j = job(2400.0, 36000.0, 600.0);
    // Tick 0: no spot, not behind: idle. Tick 1: behind; the one-tick spot (600 s) is not
    // worth it: on-demand. Tick 3: spot for ten ticks (6,000 s > 1,800 s): spot. Two
    // changeovers, done at tick 6.
    let window = avail("0101111111111");
    let o = spec("uniform-progress-oracle", &j, &window);
    assert_eq!(o.changeovers, 2);
    assert_eq!(o.finish_h * 3600.0, 7.0 * G);
    // UP takes the short spot at tick 1, loses it, goes on-demand, then back to spot.
    let up = spec("uniform-progress", &j, &window);
    assert_eq!(up.changeovers, 3);
}

#[test]
fn time_sliced_keeps_each_slice_on_schedule() {
    // 1,200 s of work in 12 ticks, 2 slices of 6 ticks, 600 s of work each; d = 0, no spot:
    // each slice goes on-demand at its own last safe moment (tick 5 and tick 11).
    let j = job(1200.0, 7200.0, 0.0);
    let o = spec("time-sliced:2", &j, &avail("000000000000"));
    assert_eq!(o.on_demand_h, 2.0 * G / 3600.0);
    assert_eq!(o.finish_h * 3600.0, 12.0 * G);
    // Greedy idles until its one last safe moment, ticks 10–11.
    let g = spec("greedy", &j, &avail("000000000000"));
    assert_eq!(g.finish_h * 3600.0, 12.0 * G);
}

#[test]
fn gangs_pay_for_every_instance() {
    let j = Job {
        instances: 4,
        ..job(600.0, 6000.0, 0.0)
    };
    let o = play(&[S], &j, &avail("1"));
    assert_eq!(o.cost_usd, 4.0 * G / 3600.0);
}

#[test]
fn a_spot_tick_is_billed_at_its_traces_price_and_on_demand_at_the_flat_one() {
    // 1,800 s of work, d = 0: spot, on-demand, spot. With per-tick prices $2, $5, $4/h the
    // spot ticks cost (2 + 4)·600/3600 = $1 and the on-demand tick 3·600/3600 = $0.5.
    let j = job(1800.0, 6000.0, 0.0);
    let window = avail("1111");
    let o = run(
        &mut Script(vec![S, O, S]),
        &j,
        &P,
        Some(&[2.0, 5.0, 4.0, 9.0]),
        &window,
        G,
        LastTick::Whole,
    )
    .unwrap();
    assert!((o.cost_usd - 1.5).abs() < 1e-12, "{}", o.cost_usd);
    assert_eq!(o.spot_h, 2.0 * G / 3600.0);
    // Past the series' end a spot tick is billed at the flat $1/h: (2 + 1 + 1)·600/3600.
    let o = run(
        &mut Script(vec![S, S, S]),
        &j,
        &P,
        Some(&[2.0]),
        &window,
        G,
        LastTick::Whole,
    )
    .unwrap();
    assert!((o.cost_usd - 4.0 / 6.0).abs() < 1e-12, "{}", o.cost_usd);
    // The omniscient plan prices each tick: with spot dear in tick 0 ($9/h, above the $3/h
    // on-demand) and cheap after, it waits a tick and runs three spot ticks at $1/h.
    let j = job(1800.0, 2400.0, 0.0);
    let mut opt = SpotPolicySpec::Omniscient.build(&P);
    let o = run(
        opt.as_mut(),
        &j,
        &P,
        Some(&[9.0, 1.0, 1.0, 1.0]),
        &window,
        G,
        LastTick::Whole,
    )
    .unwrap();
    assert!((o.cost_usd - 0.5).abs() < 1e-12, "{}", o.cost_usd);
}

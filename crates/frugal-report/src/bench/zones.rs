//! (j) one deadline job across many zones (paper 006): time per window for each multi-zone
//! policy on the published V100 (Fig 9b) and H100 (Fig 9a) windows, beside the artifact's
//! CPython simulator on the same windows (the wall times of its fresh run,
//! `data/skynomad/fresh-run.csv`, trace loading included), and the exact optimum's time on
//! each scenario's first window.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use frugal_core::spec::Choice;

use frugal_spot::zones::FinalTick;
use frugal_spot::zones::env::run;
use frugal_spot::zones::experiment::{ScenarioName, ZonePolicyName, published_arm};
use frugal_spot::zones::scenario::artifact_start_tick;

/// The artifact's fresh run: scenario, window, arm, zone, cost, wall seconds.
const FRESH: &str = include_str!("../../../../data/skynomad/fresh-run.csv");

/// The artifact's mean wall seconds per window for `arm` on `scenario`.
fn artifact_s(scenario: &str, arm: &str) -> Option<f64> {
    let walls: Vec<f64> = FRESH
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == 6 && f[0] == scenario && f[2] == arm)
                .then(|| f[5].parse().ok())
                .flatten()
        })
        .collect();
    (!walls.is_empty()).then(|| walls.iter().sum::<f64>() / walls.len() as f64)
}

/// Prints section (j): each policy run `reps` times over every window, one thread, and the
/// ratio of the artifact's time per window to frugal's.
pub fn bench(out: &mut impl Write) -> Result<()> {
    use ZonePolicyName as P;
    let reps = 20;
    writeln!(
        out,
        "\n(j) multi-zone spot (paper 006): per window, {reps} repetitions, one thread; the artifact: \
         CPython 3.11, one process, trace loading included (data/skynomad/fresh-run.csv)"
    )?;
    writeln!(
        out,
        "{:<20} {:<16} {:>12} {:>14} {:>10}",
        "scenario", "policy", "frugal ms", "artifact ms", "ratio"
    )?;
    for (name, policies) in [
        (
            ScenarioName::V100,
            [
                P::SkyNomadRate,
                P::SkyNomadORate,
                P::UpS,
                P::UpA,
                P::UpAp,
                P::Greedy,
            ],
        ),
        (
            ScenarioName::H100GlobalDiverse,
            [
                P::SkyNomad,
                P::SkyNomadO,
                P::UpS,
                P::UpA,
                P::UpAp,
                P::Greedy,
            ],
        ),
    ] {
        let sc = name.scenario();
        let traces = sc.embedded_traces()?;
        let settings: Vec<_> = sc
            .starts
            .iter()
            .map(|&s| {
                sc.setting(
                    &traces,
                    artifact_start_tick(s, traces[0].gap_s),
                    FinalTick::Omit,
                )
            })
            .collect();
        for p in policies {
            let start = Instant::now();
            let mut cost = 0.0;
            for _ in 0..reps {
                for s in &settings {
                    cost += run(p.build().as_mut(), s)?.cost_usd;
                }
            }
            std::hint::black_box(cost);
            let ms = 1e3 * start.elapsed().as_secs_f64() / (reps * settings.len()) as f64;
            let theirs = published_arm(sc, p)
                .and_then(|arm| artifact_s(sc.name, arm))
                .map(|s| s * 1e3);
            writeln!(
                out,
                "{:<20} {:<16} {:>12.3} {:>14} {:>10}",
                sc.name,
                p.name(),
                ms,
                theirs.map_or("–".into(), |t| format!("{t:.0}")),
                theirs.map_or("–".into(), |t| format!("{:.0}×", t / ms))
            )?;
        }
        let start = Instant::now();
        let o = run(P::Optimal.build().as_mut(), &settings[0])?;
        std::hint::black_box(o.cost_usd);
        let ms = 1e3 * start.elapsed().as_secs_f64();
        let theirs = artifact_s(sc.name, "artifact-optimal").map(|s| s * 1e3);
        writeln!(
            out,
            "{:<20} {:<16} {:>12.0} {:>14} {:>10}",
            sc.name,
            "optimal (1st)",
            ms,
            theirs.map_or("–".into(), |t| format!("{t:.0}")),
            "exact vs approximate DP"
        )?;
    }
    Ok(())
}

//! (i) spot with deadlines (paper 005): windows per second per core for each policy, and the
//! exact optimum of one 48-h window.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;

use frugal_spot::generator::two_week_set;
use frugal_spot::policy::SpotPolicySpec;
use frugal_spot::sim::{LastTick, run};
use frugal_spot::trace::window_starts;
use frugal_spot::{Job, Prices};

/// Prints section (i): the paper's setting (C(0) = 48 h, f = 0.8, d = 0.2 h, 10-min ticks)
/// on 2,400 windows of the synthetic 2-week set (300 per trace), one thread.
pub fn bench(out: &mut impl Write, seed: u64) -> Result<()> {
    let job = Job::from_hours(48.0, 60.0, 0.2);
    let prices = Prices::PAPER;
    let traces: Vec<_> = two_week_set(1, seed)
        .into_iter()
        .map(|t| t.truncated(1781))
        .collect();
    let mut windows: Vec<(Vec<bool>, usize)> = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        let avail = t.availability(1);
        for s in window_starts(t, i, 300, 120.0 * 3600.0, seed)? {
            windows.push((avail.clone(), s));
        }
    }
    writeln!(
        out,
        "\n(i) spot with deadlines (paper 005): 48-h job, f = 0.8, d = 0.2 h, 600-s ticks, \
         {} windows of the synthetic 2-week set, one thread",
        windows.len()
    )?;
    writeln!(
        out,
        "{:<26} {:>10} {:>16} {:>12}",
        "policy", "wall s", "windows/s/core", "µs/window"
    )?;
    for p in [
        SpotPolicySpec::Greedy,
        SpotPolicySpec::UniformProgress,
        SpotPolicySpec::TimeSliced(8),
        SpotPolicySpec::UniformProgressOracle,
        SpotPolicySpec::Omniscient,
        SpotPolicySpec::OmniscientLookahead(8),
    ] {
        let start = Instant::now();
        let mut cost = 0.0;
        for (avail, s) in &windows {
            let mut policy = p.build(&prices);
            cost += run(
                policy.as_mut(),
                &job,
                &prices,
                None,
                &avail[*s..],
                600.0,
                LastTick::Whole,
            )?
            .cost_usd;
        }
        let wall = start.elapsed().as_secs_f64();
        std::hint::black_box(cost);
        writeln!(
            out,
            "{:<26} {:>10.3} {:>16.0} {:>12.1}",
            p.to_string(),
            wall,
            windows.len() as f64 / wall,
            1e6 * wall / windows.len() as f64
        )?;
    }
    Ok(())
}

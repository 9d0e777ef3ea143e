//! (e) bags of tasks (paper 003): HA and FFD on the NASA log, on a million tasks, and the
//! whole default comparison of `frugal bag-of-tasks`.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};

use frugal_bot::experiment::{Implementation, schedule};
use frugal_bot::{Bag, Policy, Setup};

use super::measure;

fn nasa() -> Result<Bag> {
    let e = frugal_traces::swf::embedded("nasa").context("the NASA log is shipped")?;
    let log = frugal_traces::swf::read(e.bytes, e.file)?;
    Ok(frugal_bot::tasks::from_swf(&log)?)
}

/// Prints section (e).
pub fn bench(out: &mut impl Write) -> Result<()> {
    let bag = nasa()?;
    let setup = Setup::paper003(1);
    writeln!(
        out,
        "\n(e) bags of tasks (paper 003), 15 PMs + c3.large; wall seconds of one schedule (RA excluded)"
    )?;
    writeln!(
        out,
        "{:<34} {:>5} {:<6} {:>10} {:>14} {:>10}",
        "bag", "α", "policy", "wall s", "peak RSS MiB", "rent $"
    )?;
    let million = bag.replicated(1_000_000)?;
    let cases: [(&str, &Bag, &[u32], Implementation); 3] = [
        (
            "NASA, 18,066 tasks",
            &bag,
            &[1, 2, 3, 4],
            Implementation::Fast,
        ),
        (
            "NASA, 18,066 tasks, reference",
            &bag,
            &[1, 4],
            Implementation::Reference,
        ),
        (
            "NASA replicated, 1,000,000 tasks",
            &million,
            &[1, 4],
            Implementation::Fast,
        ),
    ];
    for (name, bag, alphas, implementation) in cases {
        for &alpha in alphas {
            for policy in [Policy::Ha, Policy::Ffd] {
                let (s, wall, rss) =
                    measure(|| schedule(policy, &setup, &bag.tasks, alpha, implementation));
                let (s, _) = s?;
                let rent = frugal_bot::Measures::of(&s, &setup, &bag.tasks, alpha).rent_usd;
                writeln!(
                    out,
                    "{name:<34} {alpha:>5} {:<6} {wall:>10.3} {rss:>14} {rent:>10.2}",
                    policy.name()
                )?;
            }
        }
    }
    drop(million);
    let exe = std::env::current_exe().context("locating the frugal executable")?;
    let t0 = Instant::now();
    let status = std::process::Command::new(exe)
        .args(["bag-of-tasks", "--format", "csv"])
        .stdout(std::process::Stdio::null())
        .status()
        .context("running `frugal bag-of-tasks`")?;
    anyhow::ensure!(status.success(), "`frugal bag-of-tasks` failed: {status}");
    writeln!(
        out,
        "whole default comparison (`frugal bag-of-tasks`: NASA, α = 1..4, 4 policies, 5 timed repeats each, \
         as a child process): {:.3} s",
        t0.elapsed().as_secs_f64()
    )?;
    Ok(())
}

//! A progress bar on stderr for long batches of runs: hidden for the first second (short
//! batches print nothing) and whenever stderr is not a terminal.

use std::sync::Once;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The libraries report their batches' runs through [`frugal_core::progress::Progress`].
impl frugal_core::progress::Progress for Progress {
    /// `runs` more runs to wait for (batches that plan their runs as they go).
    fn add(&self, runs: usize) {
        self.bar.inc_length(runs as u64);
    }

    /// One more run finished.
    fn tick(&self) {
        if self.started.elapsed() > Duration::from_secs(1) {
            self.shown
                .call_once(|| self.bar.set_draw_target(ProgressDrawTarget::stderr()));
        }
        self.bar.inc(1);
    }
}

/// Counts finished runs of a batch; safe to tick from worker threads.
pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    shown: Once,
}

impl Progress {
    /// A bar for `runs` runs (more can be announced by `add`).
    pub fn new(runs: usize) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::hidden())
            .with_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {elapsed} (eta {eta})")
                    .expect("a valid template"),
            );
        Progress {
            bar,
            started: Instant::now(),
            shown: Once::new(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

//! What the two metaheuristics share: their budget and how they stopped.
//!
//! Budgets are deterministic by default — a number of evaluated candidates, so the same
//! inputs and seed give the same plan on any machine (spec A25) — with the paper's
//! wall-clock limit (30 s, §IV) as an option that trades that for the paper's setting.

use std::time::{Duration, Instant};

use serde::Serialize;

/// When a search stops: whichever limit comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// Candidates evaluated (moves for local search, decoded children for the GA).
    pub evaluations: u64,
    /// Wall-clock limit; `None` keeps the run deterministic.
    pub wall_clock: Option<Duration>,
    /// Stop after this many steps (LS) or generations (GA) without a better plan
    /// (spec A14's rule for the solving-time comparison of Fig. 4).
    pub patience: Option<u64>,
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// The evaluation budget is spent.
    Evaluations,
    /// The wall-clock limit passed.
    WallClock,
    /// No better plan for [`Budget::patience`] steps or generations.
    Patience,
    /// Nothing to search (no scheduled task to move).
    Nothing,
}

impl Stop {
    /// The name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Evaluations => "evaluations",
            Stop::WallClock => "wall-clock",
            Stop::Patience => "patience",
            Stop::Nothing => "nothing",
        }
    }
}

/// How a search went.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SearchStats {
    /// Candidates evaluated.
    pub evaluations: u64,
    /// Steps (LS) or generations (GA) done.
    pub iterations: u64,
    /// Why it stopped.
    pub stop: Stop,
}

/// Tracks a budget while a search runs.
pub(crate) struct Meter {
    budget: Budget,
    started: Instant,
    pub(crate) evaluations: u64,
    pub(crate) iterations: u64,
    since_best: u64,
}

impl Meter {
    pub(crate) fn new(budget: Budget) -> Meter {
        Meter {
            budget,
            started: Instant::now(),
            evaluations: 0,
            iterations: 0,
            since_best: 0,
        }
    }

    /// Ends an iteration; `improved` says whether it found a better plan.
    pub(crate) fn iterate(&mut self, improved: bool) {
        self.iterations += 1;
        self.since_best = if improved { 0 } else { self.since_best + 1 };
    }

    /// Whether another evaluation is allowed.
    pub(crate) fn can_evaluate(&self) -> bool {
        self.evaluations < self.budget.evaluations
    }

    /// Why to stop before the next iteration, if at all.
    pub(crate) fn stop(&self) -> Option<Stop> {
        if !self.can_evaluate() {
            Some(Stop::Evaluations)
        } else if self.budget.patience.is_some_and(|p| self.since_best >= p) {
            Some(Stop::Patience)
        } else if self
            .budget
            .wall_clock
            .is_some_and(|w| self.started.elapsed() >= w)
        {
            Some(Stop::WallClock)
        } else {
            None
        }
    }

    pub(crate) fn stats(&self, stop: Stop) -> SearchStats {
        SearchStats {
            evaluations: self.evaluations,
            iterations: self.iterations,
            stop,
        }
    }
}

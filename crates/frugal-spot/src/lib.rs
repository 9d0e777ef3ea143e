//! frugal-spot: one deadline job on spot and on-demand capacity — Z. Wu, W.-L. Chiang,
//! Z. Mao, Z. Yang, E. Friedman, S. Shenker, I. Stoica, *Can't Be Late: Optimizing Spot
//! Instance Savings under Deadlines*, USENIX NSDI 2024
//! (<https://www.usenix.org/conference/nsdi24/presentation/wu-zhanghao>).
//!
//! A job needs C(0) hours of compute and must finish within R(0) hours; spot capacity is
//! cheap but comes and goes, on-demand capacity costs k times more and is always there, and
//! every (re)start pays a changeover delay d. Entry points:
//!
//! - [`sim::run`]: one policy on one window of availability, under the authors' simulator's
//!   discrete-time rules (the module doc states them);
//! - [`policy`]: the [`SpotPolicy`] trait and every policy of the paper behind one
//!   [`SpotPolicySpec`] (on-demand, greedy, Time Sliced, Uniform Progress and its variants);
//! - [`optimum::omniscient`] and [`optimum::lookahead`]: the exact optimum (a DP over ticks)
//!   and the partial-lookahead optimum;
//! - [`trace`] (the public trace format) and [`generator`] (synthetic stand-ins);
//! - [`experiment::run`]: a [`SpotSpec`] → one [`SpotRow`] per (window, policy), what every
//!   face runs; [`summary`] aggregates them as the paper does.
//!
//! Units: time in seconds inside the model (hours in specs and rows, named `_h`), money in
//! dollars, prices in dollars per instance-hour.

#![warn(missing_docs)]

pub mod experiment;
pub mod generator;
pub mod model;
pub mod optimum;
pub mod policy;
pub mod quick;
pub mod sim;
pub mod summary;
pub mod trace;
pub mod zones;

pub use experiment::{SpotRow, SpotSpec};
pub use model::{Job, Mode, Prices};
pub use policy::{Observation, SpotPolicy, SpotPolicySpec};
pub use sim::{LastTick, WindowOutcome};
pub use trace::Trace;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum SpotError {
    /// Input that cannot be used as given: a spec field, a trace file (named in the text).
    #[error("{0}")]
    Input(String),
    /// A policy broke the rules (spot where there is none, never finishing).
    #[error("{0}")]
    Policy(String),
}

//! Reproduction reports: experiment files (one per published figure or table), the
//! published claims they carry and their verdicts on frugal's runs, plots (SVG and PNG)
//! and a one-file HTML report.
//!
//! The runs themselves belong to each system (`frugal-sim`, `frugal-bot`,
//! `frugal-ephemeral`, `frugal-agents`): the [`runner`] parses each configuration with its
//! system's options and runs it through the function the CLI and Python call, then gathers
//! the rows as a [`Table`]. Entry points: [`Experiment::read`], [`runner::run`] and
//! [`runner::write`] (also split into shards and merged), [`Claim::evaluate`],
//! [`PlotSpec::figure`] and [`PlotSpec::render`], [`html::html`] and [`html::markdown`].

pub mod bench;
#[cfg(test)]
mod best_over_agrees;
pub mod citation;
pub mod claim;
pub mod embedded;
pub mod experiment;
pub mod html;
pub mod live;
pub mod loadtest;
pub mod marks;
pub mod names;
pub mod plot;
pub mod runner;
pub mod systems;
pub mod table;
pub mod verdict;

pub use claim::{Claim, ClaimOutcome, Verdict};
pub use experiment::{Configuration, Experiment, System};
pub use plot::{Figure, Marks, PlotKind, PlotSpec};
pub use table::Table;

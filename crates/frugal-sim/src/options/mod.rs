//! The spec of a policy comparison (`frugal simulate`, the `simulate` experiments, the
//! Python package's `simulate`): a typed [`SimulateSpec`] that every face builds — the CLI
//! from its flags, an experiment file from its keys, Python from its keywords — checked
//! (errors name the field) into a [`Plan`] before anything runs, and run into tidy rows by
//! [`compute`].

pub mod choices;
mod plan;
mod run;

mod spec;

use frugal_core::choice;

pub use plan::{Input, MILP_DEFAULT_MAX_VMS, Plan, Workload, plan, sha256_hex};
pub use run::{Runs, aggregate, compute, slug, write_out};

pub use spec::{MAX_JOBS, SimulateSpec, TraceHour};

choice! {
    /// Load levels of the default SWIM replay and of the synthetic generator.
    pub enum Loads {
        Light = "light": "Trace: first 50 jobs of hour 0; synthetic: mean gap 100 s (paper 000 §6.1)",
        High = "high": "Trace: first 100 jobs of hour 6; synthetic: mean gap 5 s",
        Both = "both": "Both, one table each",
    }
}

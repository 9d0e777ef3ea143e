//! frugal-env: a reinforcement-learning environment for executor placement (paper 002
//! §4–6), a thin stepping interface over the frugal simulator, so time, billing and job
//! durations are exactly those of `frugal simulate`.
//!
//! Each step places one executor of the current job on a VM (actions 1..=N) or waits
//! (action 0) until the next arrival or completion — simulated time advances and running
//! VMs keep billing. Jobs are offered first come, first served.

#![warn(missing_docs)]

mod env;
pub mod observation;
mod reward;
pub mod workloads;

pub use env::{EnvConfig, EnvError, Mode, SparkPlacementEnv, Step};
pub use reward::{EpisodeKpis, episodic_reward};

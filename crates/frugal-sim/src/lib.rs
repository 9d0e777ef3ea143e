//! frugal-sim: a deterministic discrete-event simulator of cost- and deadline-aware
//! executor placement on cloud and hybrid clusters, with the workloads of the papers.

#![warn(missing_docs)]

pub mod engine;
pub mod experiment;
pub mod metrics;
pub mod offline;
pub mod options;
pub mod output;
pub mod stats;
pub mod workload;

pub use engine::{Batch, SimConfig, Simulation, simulate};
pub use metrics::{JobRecord, JobStatus, RunResult, Summary, VmRecord};

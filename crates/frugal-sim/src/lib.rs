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

pub use engine::{
    Batch, Inputs, RunTime, SimConfig, Simulation, VmEvent, VmEventKind, simulate, simulate_with,
};
pub use metrics::{JobResult, RunResult, Summary, VmRecord};

//! frugal-bot: deadline-constrained bags of tasks on a hybrid cloud — paper 003 (Wang,
//! Song, Sun, Liu, "Managing Deadline-constrained Bag-of-Tasks Jobs on Hybrid Clouds",
//! KSII TIIS 10(7), 2016).
//!
//! An organisation owns physical machines (PMs, free to use, drawing power) and rents
//! cloud VMs by the started hour; every task of a bag must finish by its own deadline at
//! the lowest rent. Entry points: [`tasks::from_swf`] (a bag from an SWF log),
//! [`Setup::paper003`] (the paper's machines), [`Policy`] and [`run`] (schedule a bag and
//! measure it), [`bound::rent_lower_bound`] (how far from optimal a schedule can be) and
//! [`optimal::schedule`] (the exact optimum of a small bag), and [`options`] (a whole
//! comparison from its options: what the CLI, experiment files and Python run).
//!
//! Units: work in GHz·s (one second on a 1 GHz core; [`tasks`]), clock speeds in MHz,
//! times in seconds, rent in dollars, energy in kWh. Decisions use integers only.

#![warn(missing_docs)]

pub mod bound;
pub mod compare;
pub mod comparison;
pub mod experiment;
pub mod ffd;
pub mod ha;
pub mod machines;
pub mod model;
pub mod optimal;
pub mod ra;
pub mod spec;
pub mod tasks;

pub use experiment::{BotRow, Implementation, Measures, Policy, RunSpec, run};
pub use model::{MachineType, Schedule, Setup};
pub use spec::BagOfTasksSpec;
pub use tasks::{Bag, Task};

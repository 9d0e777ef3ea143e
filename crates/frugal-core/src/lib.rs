//! frugal-core: the domain model, queue disciplines, admission control and placement
//! policies of frugal, shared by the simulator, the RL environment and the service.
//!
//! Units: time in seconds (`f64`), cores as whole cores, memory in MiB, prices in dollars
//! per second of VM on-time.

#![warn(missing_docs)]

pub mod billing;
pub mod budget;
pub mod cluster;
pub mod config;
pub mod contention;
pub mod control;
pub mod duration;
#[cfg(feature = "clap")]
pub mod flags;
pub mod fleet;
pub mod index;
pub mod job;
pub mod lifecycle;
pub mod placement;
pub mod policy;
pub mod progress;
pub mod queue;
pub mod reading;
pub mod resources;
pub mod rut;
pub mod scheduler;
pub mod spec;
pub mod testing;
pub mod text_serde;

pub use billing::BillingGranularity;
pub use cluster::{Cluster, InstanceType, PowerState, Site, Vm, VmId};
pub use config::{Capacity, ClusterConfig, Preset, PricingModel};
pub use contention::ContentionModel;
pub use control::{ControlConfig, Controller, Effect, Event, JobRecord};
pub use duration::{DurationModel, HybridRule};
pub use fleet::{Fleet, KeepAlive};
pub use job::{Job, JobKind};
pub use lifecycle::{DeadlineCount, DeadlineOutcome, JobState, deadline_outcome};
pub use placement::Placement;
pub use policy::{PlacementPolicy, PolicyKind, PolicyParams, PolicyQueue, PolicySpec};
pub use queue::QueueDiscipline;
pub use reading::Reading;
pub use resources::Resources;
pub use rut::Rut;
pub use scheduler::{Backfill, Decision, DecisionCost, Hold, Scheduler, SchedulerConfig};

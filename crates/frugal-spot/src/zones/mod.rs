//! One deadline job on spot and on-demand capacity across many zones: SkyNomad (Z. Li,
//! T. Xia, Z. Mao, Z. Zhou, E. J. Jackson, J. Kerney, Z. Wu, P. Mishra, Y. Xu, Y. Qiao,
//! S. Shenker, I. Stoica, *SkyNomad: On Using Multi-Region Spot Instances to Minimize AI
//! Batch Job Cost*, NSDI '27; spec `multi-region-spot-spec.md`).
//!
//! The single-zone model of Can't Be Late is the one-zone case of this one: the same ticks,
//! cold start per start, whole-tick billing and progress max(0, g − r) ([`model`]); what
//! is new is the zone, the checkpoint's location and its egress, probes, and a policy that
//! acts several times per tick with launch feedback ([`env`]).
//!
//! - [`experiment`]: a [`ZonesSpec`](experiment::ZonesSpec) → one row per (window, policy);
//! - [`model`]: zones, regions, the egress table, the setting of one window;
//! - [`env`]: the tick environment, the [`ZonePolicy`] port and plan replay;
//! - [`optimum`]: the exact offline optimum over (tick, mode, progress);
//! - [`policy`]: the online policies (Uniform Progress variants);
//! - [`scenario`]: the published experiments' settings;
//! - [`trace`]: the artifact's zone traces (`data/skynomad/`).

pub mod env;
pub mod experiment;
pub mod model;
pub mod optimum;
pub mod policy;
pub mod scenario;
pub mod trace;

pub use env::{Env, Plan, ZoneOutcome, ZonePolicy};
pub use model::{FinalTick, Setting, Zone};
pub use trace::ZoneTrace;

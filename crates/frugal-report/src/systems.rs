//! The systems an experiment file can run, in one table ([`SYSTEMS`]): each one's
//! subcommand words, the keys of its spec that name files, and its spec type, which reads
//! a configuration's table, checks it and runs it ([`SystemSpec`]) — the function its own
//! subcommand calls. The runner and the experiment files know a system only through its
//! entry here.

use std::marker::PhantomData;

use anyhow::{Result, anyhow, bail};
use serde::de::DeserializeOwned;

use frugal_core::progress::Progress;

use crate::plot::PlotSpec;
use crate::runner::{InputError, shorten_checkpoints, tidy};
use crate::{Figure, PlotKind, System, Table};

/// What a configuration's run draws on besides its spec: the experiment's plots, the
/// configuration's labels and the progress to tick.
pub struct Setting<'a> {
    /// The experiment's plots (a timeline plot takes a run's VMs).
    pub plots: &'a [PlotSpec],
    /// The configuration's labels (case, swept keys), in front of its rows.
    pub labels: &'a [(String, String)],
    /// Ticked once per run.
    pub progress: &'a dyn Progress,
}

/// A configuration's rows, and the timelines its runs draw (by plot index).
pub type Ran = (Table, Vec<(usize, Figure)>);

/// A system's spec as the runner uses it: read from a configuration's table (its keys
/// are the spec's fields), checked, run.
pub trait SystemSpec: DeserializeOwned {
    /// The spec's own check (ranges, settings that go together).
    ///
    /// # Errors
    /// The spec's error, naming the field.
    fn check(&self) -> Result<()>;

    /// Runs it through the function the system's subcommand calls: its rows, and the
    /// timelines its runs draw for the experiment's timeline plots whose `where` matches a
    /// row (with the configuration's labels in front).
    ///
    /// # Errors
    /// The run's error.
    fn run(&self, at: &Setting) -> Result<Ran>;
}

/// A system as the table holds it: a spec type behind a configuration's table.
pub trait Runs: Sync {
    /// Reads `table` as the spec and checks it.
    ///
    /// # Errors
    /// [`InputError`] naming the key at fault and what is wrong.
    fn check(&self, table: &toml::Table) -> Result<(), InputError>;

    /// Reads, checks and runs `table` (see [`SystemSpec::run`]).
    ///
    /// # Errors
    /// As [`Runs::check`]; the run's error.
    fn run(&self, table: &toml::Table, at: &Setting) -> Result<Ran>;
}

/// The [`Runs`] of spec type `T`.
pub struct Typed<T>(PhantomData<fn() -> T>);

impl<T: SystemSpec> Typed<T> {
    /// The table's entry of `T`.
    pub const NEW: Typed<T> = Typed(PhantomData);

    /// `table` as a `T`, checked.
    ///
    /// # Errors
    /// [`InputError`] naming the key that is unknown, whose value the spec does not take
    /// or that its check refuses.
    pub fn read(table: &toml::Table) -> Result<T, InputError> {
        let spec: T = toml::Value::Table(table.clone())
            .try_into()
            .map_err(|e: toml::de::Error| InputError(anyhow!("{}", e.message().trim())))?;
        spec.check().map_err(InputError)?;
        Ok(spec)
    }
}

impl<T: SystemSpec> Runs for Typed<T> {
    fn check(&self, table: &toml::Table) -> Result<(), InputError> {
        Self::read(table).map(|_| ())
    }

    fn run(&self, table: &toml::Table, at: &Setting) -> Result<Ran> {
        Self::read(table)?.run(at)
    }
}

/// One system's entry.
pub struct Entry {
    /// The system (its name in experiment files: `system = "…"`).
    pub system: System,
    /// Its subcommand words.
    pub words: &'static [&'static str],
    /// The keys of its spec that name a file or folder (read relative to the experiment
    /// file when one is beside it: [`crate::Experiment::resolve_agents`]).
    pub path_keys: &'static [&'static str],
    /// Its spec type.
    pub runs: &'static dyn Runs,
}

/// Every system, once.
pub const SYSTEMS: &[Entry] = &[
    Entry {
        system: System::Simulate,
        words: &["simulate"],
        path_keys: &[
            "trace",
            "jobs-csv",
            "vm-events",
            "cluster",
            "swf",
            "alibaba",
        ],
        runs: &Typed::<frugal_sim::options::SimulateSpec>::NEW,
    },
    Entry {
        system: System::BagOfTasks,
        words: &["bag-of-tasks"],
        path_keys: &["machines", "trace"],
        runs: &Typed::<frugal_bot::BagOfTasksSpec>::NEW,
    },
    Entry {
        system: System::Ephemeral,
        words: &["ephemeral"],
        path_keys: &["hosts", "utilisation"],
        runs: &Typed::<frugal_ephemeral::options::EphemeralSpec>::NEW,
    },
    Entry {
        system: System::EphemeralPlanners,
        words: &["ephemeral", "planners"],
        path_keys: &["hosts", "utilisation"],
        runs: &Typed::<frugal_ephemeral::options::PlannersSpec>::NEW,
    },
    Entry {
        system: System::LearningCurves,
        words: &["learning-curves"],
        path_keys: &[],
        runs: &Typed::<frugal_agents::curves::CurvesSpec>::NEW,
    },
    Entry {
        system: System::Spot,
        words: &["spot"],
        path_keys: &["traces"],
        runs: &Typed::<frugal_spot::SpotSpec>::NEW,
    },
    Entry {
        system: System::Zones,
        words: &["zones"],
        path_keys: &[],
        runs: &Typed::<frugal_spot::zones::experiment::ZonesSpec>::NEW,
    },
    Entry {
        system: System::Live,
        words: &["live"],
        path_keys: &["jobs-csv", "cluster", "contention"],
        runs: &Typed::<crate::live::LiveSpec>::NEW,
    },
];

impl System {
    /// Its entry in [`SYSTEMS`].
    pub fn entry(self) -> &'static Entry {
        SYSTEMS
            .iter()
            .find(|e| e.system == self)
            .expect("every system has an entry (test systems::every_system_once)")
    }
}

/// [`SystemSpec`] for specs whose runs draw no timelines: the spec's own check, and its
/// rows from `rows` (with the spec as `$s` and the progress as `$p`).
macro_rules! rows_only {
    ($($spec:ty => |$s:ident, $p:ident| $rows:expr;)*) => {$(
        impl SystemSpec for $spec {
            fn check(&self) -> Result<()> {
                Ok(<$spec>::check(self)?)
            }

            fn run(&self, at: &Setting) -> Result<Ran> {
                let ($s, $p) = (self, at.progress);
                Ok((tidy(&$rows)?, Vec::new()))
            }
        }
    )*};
}

rows_only! {
    frugal_bot::BagOfTasksSpec => |s, p| frugal_bot::comparison::compute(s, 0, p)?.rows;
    frugal_ephemeral::options::EphemeralSpec =>
        |s, p| frugal_ephemeral::options::compute(s, 0, p)?.rows;
    frugal_ephemeral::options::PlannersSpec => |s, p| {
        let rows = frugal_ephemeral::options::planners(s)?;
        p.add(rows.len());
        rows.iter().for_each(|_| p.tick());
        rows
    };
    frugal_spot::SpotSpec => |s, p| frugal_spot::experiment::run(s, p)?;
    frugal_spot::zones::experiment::ZonesSpec => |s, p| {
        p.add(1);
        let rows = frugal_spot::zones::experiment::run_spec(s)?;
        p.tick();
        rows
    };
}

impl SystemSpec for frugal_sim::options::SimulateSpec {
    fn check(&self) -> Result<()> {
        Ok(frugal_sim::options::SimulateSpec::check(self)?)
    }

    /// A timeline per timeline plot: the first run whose labelled row matches the plot's
    /// `where`.
    fn run(&self, at: &Setting) -> Result<Ran> {
        let runs = frugal_sim::options::compute(self, 0, at.progress, &frugal_agents::load_policy)?;
        let mut t = tidy(&runs.rows)?;
        shorten_checkpoints(&mut t);
        let mut timelines = Vec::new();
        let mut labelled = Table::default();
        for (p, spec) in at.plots.iter().enumerate() {
            if spec.kind != PlotKind::Timeline {
                continue;
            }
            if labelled.header.is_empty() {
                labelled
                    .append(at.labels, t.clone())
                    .map_err(|m| anyhow!(m))?;
            }
            let matching = labelled.matching(&spec.filter).map_err(|m| anyhow!(m))?;
            if let Some(&i) = matching.first() {
                let r = &runs.results[i];
                let vms = r
                    .vms
                    .iter()
                    .filter(|v| !v.intervals.is_empty())
                    .map(|v| (format!("{} {}", v.id, v.instance_type), v.intervals.clone()))
                    .collect();
                let cost = r.cumulative_cost();
                timelines.push((p, Figure::Timeline { vms, cost }));
            }
        }
        Ok((t, timelines))
    }
}

impl SystemSpec for frugal_agents::curves::CurvesSpec {
    /// Every field's value is checked as it is read.
    fn check(&self) -> Result<()> {
        Ok(())
    }

    fn run(&self, _: &Setting) -> Result<Ran> {
        let mut t = tidy(&frugal_agents::curves::curve_rows(self)?)?;
        shorten_checkpoints(&mut t);
        Ok((t, Vec::new()))
    }
}

impl SystemSpec for crate::live::LiveSpec {
    fn check(&self) -> Result<()> {
        Ok(crate::live::LiveSpec::check(self)?)
    }

    /// Live runs are never made by the runner: they need root and take up to hours, so
    /// the rows recorded for them stand in (`frugal reproduce --live` makes them again,
    /// with [`crate::runner::record_live`]).
    fn run(&self, _: &Setting) -> Result<Ran> {
        bail!("live runs are made by `frugal reproduce --live`, not by the runner")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_system_once() {
        let all: Vec<System> = SYSTEMS.iter().map(|e| e.system).collect();
        for s in &all {
            assert_eq!(all.iter().filter(|t| *t == s).count(), 1, "{s:?}");
        }
        // Every variant: the names experiment files use, read back.
        for name in [
            "simulate",
            "bag-of-tasks",
            "ephemeral",
            "ephemeral-planners",
            "learning-curves",
            "spot",
            "zones",
            "live",
        ] {
            let s: System = toml::Value::String(name.into()).try_into().unwrap();
            assert!(all.contains(&s), "{name}");
        }
        assert_eq!(all.len(), 8);
    }
}

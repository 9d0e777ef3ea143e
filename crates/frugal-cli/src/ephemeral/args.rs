//! The flags of `frugal ephemeral` that describe the comparison: each sets the
//! [`EphemeralSpec`] field of its name, which checks them, so the command line, experiment
//! files and Python refuse the same things.

use std::path::PathBuf;

use clap::{ArgMatches, Args};

use frugal_ephemeral::DataCentre;
use frugal_ephemeral::ForecasterKind;
use frugal_ephemeral::PrimaryWorkload;
use frugal_ephemeral::Strategy;
use frugal_ephemeral::options::EphemeralSpec;
use frugal_ephemeral::planner::Effort;

use crate::values::{choice, given};

/// The comparison's flags (`EphemeralSpec`'s fields).
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ComparisonArgs {
    /// Data centres.
    #[arg(long, value_parser = choice::<DataCentre>(), value_delimiter = ',', default_value = "university")]
    pub dc: Vec<DataCentre>,
    /// Chunk sizes, MiB (the paper: 128 and 256; RAM per task is 3 GiB up to 128 MiB, 4
    /// GiB above).
    #[arg(long, value_delimiter = ',', default_value = "256")]
    pub chunk_mib: Vec<u32>,
    /// Safety margins S, percent of each host's CPU and RAM.
    #[arg(long, value_delimiter = ',', default_value = "0,5,10,15,20,25,30")]
    pub margins: Vec<u32>,
    /// Runs per configuration: the job is submitted at day 5 00:00 + h hours for h = 0 …
    /// N − 1.
    #[arg(long, value_name = "N", default_value_t = 48)]
    pub start_hours: u32,
    /// Strategies to compare.
    #[arg(
        long,
        value_parser = choice::<Strategy>(),
        value_delimiter = ',',
        default_value = "cuckoo,salamander-rffd,salamander-exact,salamander-exact-network"
    )]
    pub strategies: Vec<Strategy>,
    /// Forecasters of the primary workload (each run plans with one; the rows name it).
    #[arg(
        long,
        value_parser = choice::<ForecasterKind>(),
        value_delimiter = ',',
        default_value = "seasonal-quantile"
    )]
    pub forecaster: Vec<ForecasterKind>,
    /// Volatility factors of the primary workload, each in [0, 4]: every host's load
    /// becomes its mean + factor × its deviation from the mean (clipped to [0, 1]); 1 is
    /// the trace as recorded, 0 a constant load, 2 twice every swing.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub volatility: Vec<f64>,
    /// Tasks in the job, split 16:1 between maps and reduces [default: 640 maps + 40
    /// reduces].
    #[arg(long, value_name = "N")]
    pub tasks: Option<u32>,
    /// Jobs of that shape submitted together at each start hour, every strategy planning
    /// and running all of them on the same hosts (the paper's experiments: 1); job time
    /// is then the mean over the jobs.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: u32,
    /// Map output bytes per input byte (the shuffle volume; not stated in the paper).
    #[arg(long, default_value_t = 1.0)]
    pub map_output_ratio: f64,
    /// Simulate the client's upload of the input over its 50 Mbit/s link (one chunk at a
    /// time) instead of starting with every chunk in place.
    #[arg(long)]
    pub upload: bool,
    /// Seconds between extra checks of every host by the run-time controller, in
    /// [0.1, 180] [default: none: it checks when the primary load is injected, every 180 s].
    /// The paper's controller polls every 100 ms.
    #[arg(long, value_name = "S")]
    pub control_step: Option<f64>,
    /// Round plan durations up to a multiple of this many seconds (180 = Table I's
    /// 3-minute grid) [default: 1]. Applies to Salamander strategies only.
    #[arg(long, value_name = "S")]
    pub plan_slot_s: Option<u32>,
    /// Search effort of salamander-ga and salamander-ls: `full` (about 30 s per plan of 680
    /// tasks on one core, the paper's budget), `quick` (about 1 s) or a number of evaluated
    /// candidates. Counted, not timed, so results are reproducible [default: full].
    #[arg(long, value_name = "EFFORT")]
    pub budget: Option<Effort>,
    /// Stop salamander-ga and salamander-ls after this many seconds as well (the paper's
    /// 30 s wall-clock limit); results then depend on the machine.
    #[arg(long, value_name = "S")]
    pub wall_clock_s: Option<f64>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Host capacities (CSV `host,dc,configuration,cpu_gflops,ram_gib`) [default: the
    /// shipped data/ephemeral/hosts.csv].
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Which shipped primary workload to replay.
    #[arg(long, value_parser = choice::<PrimaryWorkload>(), default_value = "gcd")]
    pub primary_workload: PrimaryWorkload,
    /// Primary-workload utilisation (CSV, plain or gzip, `host,day,sample,cpu_pct,mem_pct`
    /// with 7 days × 288 five-minute samples per host) instead of a shipped one; an error
    /// with --primary-workload.
    #[arg(long, value_name = "FILE")]
    pub utilisation: Option<PathBuf>,
}

impl ComparisonArgs {
    /// The spec these flags set; `matches` (the subcommand's) tells which flags were given.
    pub fn spec(&self, matches: Option<&ArgMatches>) -> EphemeralSpec {
        let given = |id: &str| given(matches, id);
        EphemeralSpec {
            dc: self.dc.clone(),
            chunk_mib: self.chunk_mib.clone(),
            margins: self.margins.clone(),
            start_hours: self.start_hours,
            strategies: self.strategies.clone(),
            forecaster: self.forecaster.clone(),
            volatility: self.volatility.clone(),
            tasks: self.tasks,
            jobs: self.jobs,
            map_output_ratio: self.map_output_ratio,
            upload: self.upload,
            control_step: self.control_step,
            plan_slot_s: self.plan_slot_s,
            budget: self.budget,
            wall_clock_s: self.wall_clock_s,
            seed: self.seed,
            hosts: self.hosts.clone(),
            primary_workload: given("primary_workload").then_some(self.primary_workload),
            utilisation: self.utilisation.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;

    /// The flags' defaults are the spec's; `--primary-workload` given with its default
    /// value is given.
    #[test]
    fn the_flags_map_onto_the_spec() {
        let spec = |argv: &[&str]| {
            let (a, m) = parsed::<ComparisonArgs>(argv);
            a.spec(Some(&m))
        };
        assert_eq!(spec(&["ephemeral"]), EphemeralSpec::default());
        let s = spec(&["ephemeral", "--primary-workload", "gcd"]);
        assert_eq!(s.primary_workload, Some(PrimaryWorkload::Gcd));
    }
}

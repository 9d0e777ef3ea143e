//! The published experiments' settings (spec §4; the artifact's sweep configs): which zones
//! in which order, the deadline, the job, the windows.

use std::path::Path;

use crate::SpotError;
use crate::model::Job;
use crate::zones::model::{FinalTick, Setting};
use crate::zones::trace::ZoneTrace;

/// One published scenario: zones (in the artifact's order), the deadline in ticks, the
/// deadline ratio T/P, and the window start ticks.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Its name (`v100`, `h100-global-diverse`).
    pub name: &'static str,
    /// The trace set's folder under `data/skynomad/`.
    pub set: &'static str,
    /// The zone folders, in the scenario's order (every tie goes to the lower index).
    pub zones: &'static [&'static str],
    /// T in ticks (the artifact takes it from its window files: (length − 1)·g).
    pub deadline_ticks: usize,
    /// T/P.
    pub ratio: f64,
    /// d, seconds (0.2 h in every published sweep).
    pub changeover_s: f64,
    /// S, GB.
    pub checkpoint_gb: f64,
    /// The windows' first ticks as the sweep names them.
    pub starts: &'static [usize],
    /// The SkyNomad arms its sweep published: the rate-ratio V with virtual availability
    /// and uncapped lifetimes (Fig. 9b's config), else the reference-cost V.
    pub skynomad_rate_ratio: bool,
}

/// Fig 9b: three AWS V100 zones at 195-s ticks, ratio 1.5, five windows (tiles 3, 5, 7, 8
/// and 14 of 1,106 ticks).
pub const V100: Scenario = Scenario {
    name: "v100",
    set: "v100",
    zones: &[
        "us-east-1c_v100_1",
        "us-east-2b_v100_1",
        "us-west-2a_v100_1",
    ],
    deadline_ticks: 1106,
    ratio: 1.5,
    changeover_s: 720.0,
    checkpoint_gb: 50.0,
    starts: &[3318, 5530, 7742, 8848, 15484],
    skynomad_rate_ratio: true,
};

/// Fig 9a: "Global Diverse (6)" GCP H100 zones at 600-s ticks, ratio 1.5, the six
/// sequential tiles of 311 ticks.
pub const H100_GLOBAL_DIVERSE: Scenario = Scenario {
    name: "h100-global-diverse",
    set: "h100",
    zones: &[
        "us-central1-a_h100_16",
        "us-west1-a_h100_16",
        "europe-west1-c_h100_16",
        "europe-west3-c_h100_16",
        "asia-southeast1-b_h100_16",
        "asia-south2-b_h100_16",
    ],
    deadline_ticks: 311,
    ratio: 1.5,
    changeover_s: 720.0,
    checkpoint_gb: 50.0,
    starts: &[0, 311, 622, 933, 1244, 1555],
    skynomad_rate_ratio: false,
};

/// The tick the artifact's simulator starts a window at: it passes the start as hours and
/// takes ⌈hours·3600/g⌉ in floating point, so a start can move one tick later (H100 tick
/// 1,555 becomes 1,556). Reproduced bit for bit to judge its numbers on its own windows.
pub fn artifact_start_tick(start: usize, gap_s: f64) -> usize {
    let hours = start as f64 * gap_s / 3600.0;
    (hours * 3600.0 / gap_s).ceil() as usize
}

/// The traces of the published scenarios, embedded so that a clone with nothing beside it,
/// and an installed binary, run them (`data/skynomad/`, Apache-2.0; see its NOTICE).
const EMBEDDED: &[(&str, &str, &str)] = &[
    (
        "v100",
        "us-east-1c_v100_1",
        include_str!("../../../../data/skynomad/v100/us-east-1c_v100_1/full.json"),
    ),
    (
        "v100",
        "us-east-2b_v100_1",
        include_str!("../../../../data/skynomad/v100/us-east-2b_v100_1/full.json"),
    ),
    (
        "v100",
        "us-west-2a_v100_1",
        include_str!("../../../../data/skynomad/v100/us-west-2a_v100_1/full.json"),
    ),
    (
        "h100",
        "us-central1-a_h100_16",
        include_str!("../../../../data/skynomad/h100/us-central1-a_h100_16/full.json"),
    ),
    (
        "h100",
        "us-west1-a_h100_16",
        include_str!("../../../../data/skynomad/h100/us-west1-a_h100_16/full.json"),
    ),
    (
        "h100",
        "europe-west1-c_h100_16",
        include_str!("../../../../data/skynomad/h100/europe-west1-c_h100_16/full.json"),
    ),
    (
        "h100",
        "europe-west3-c_h100_16",
        include_str!("../../../../data/skynomad/h100/europe-west3-c_h100_16/full.json"),
    ),
    (
        "h100",
        "asia-southeast1-b_h100_16",
        include_str!("../../../../data/skynomad/h100/asia-southeast1-b_h100_16/full.json"),
    ),
    (
        "h100",
        "asia-south2-b_h100_16",
        include_str!("../../../../data/skynomad/h100/asia-south2-b_h100_16/full.json"),
    ),
];

impl Scenario {
    /// The scenario's traces from the copies embedded in the binary.
    ///
    /// # Errors
    /// A zone without an embedded trace; a trace that does not parse (a build defect).
    pub fn embedded_traces(&self) -> Result<Vec<ZoneTrace>, SpotError> {
        self.zones
            .iter()
            .map(|z| {
                let (_, _, text) = EMBEDDED
                    .iter()
                    .find(|(set, name, _)| *set == self.set && name == z)
                    .ok_or_else(|| {
                        SpotError::Input(format!("{}/{z}: no embedded trace", self.set))
                    })?;
                let zone = z.split('_').next().unwrap_or(z);
                ZoneTrace::parse(zone, text)
                    .map_err(|m| SpotError::Input(format!("data/skynomad/{}/{z}: {m}", self.set)))
            })
            .collect()
    }

    /// Reads the scenario's traces from `root` (the `data/skynomad` folder).
    ///
    /// # Errors
    /// A trace that cannot be read ([`ZoneTrace::read`]); traces of different tick lengths.
    pub fn traces(&self, root: &Path) -> Result<Vec<ZoneTrace>, SpotError> {
        let traces = self
            .zones
            .iter()
            .map(|z| ZoneTrace::read(&root.join(self.set).join(z)))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(t) = traces.iter().find(|t| t.gap_s != traces[0].gap_s) {
            return Err(SpotError::Input(format!(
                "{}: ticks of {} s where {} has {} s",
                t.zone.name, t.gap_s, traces[0].zone.name, traces[0].gap_s
            )));
        }
        Ok(traces)
    }

    /// The setting of the window starting at `start` (a tick of the traces).
    pub fn setting(&self, traces: &[ZoneTrace], start: usize, final_tick: FinalTick) -> Setting {
        let gap_s = traces[0].gap_s;
        // In hours first, then seconds, as the artifact computes them (deadline_hours =
        // ticks·g/3600; duration = deadline_hours/ratio), so that its floor and ceil
        // arithmetic sees the same floating-point values.
        let deadline_h = self.deadline_ticks as f64 * gap_s / 3600.0;
        Setting {
            zones: traces.iter().map(|t| t.window(start)).collect(),
            gap_s,
            job: Job {
                work_s: deadline_h / self.ratio * 3600.0,
                deadline_s: deadline_h * 3600.0,
                changeover_s: self.changeover_s,
                instances: 1,
            },
            checkpoint_gb: self.checkpoint_gb,
            final_tick,
            artifact_probe_billing: false,
        }
    }
}

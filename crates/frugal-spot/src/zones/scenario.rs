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
    /// Other windows at other ratios (Table 2's sampler draws its windows per ratio): a
    /// ratio listed here runs its own windows, any other the `starts`.
    pub starts_by_ratio: &'static [(f64, &'static [usize])],
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
    starts_by_ratio: &[],
    skynomad_rate_ratio: true,
};

/// Table 2's V100 cell (§A.7; `v_ablation_v100_4node`): three AWS zones of a 4-node
/// capture at 600-s ticks (available when at least one of four nodes was up; one constant
/// spot price per zone), T = 310 ticks, the twelve stratified windows the artifact's
/// sampler draws at ratio 1.5 (and its own twelve at 2.0: `starts_by_ratio`).
pub const V100_4NODE: Scenario = Scenario {
    name: "v100-4node",
    set: "v100-4node",
    zones: &[
        "us-east-1f_v100_1",
        "us-east-2a_v100_1",
        "us-west-2c_v100_1",
    ],
    deadline_ticks: 310,
    ratio: 1.5,
    changeover_s: 720.0,
    checkpoint_gb: 50.0,
    starts: &[57, 150, 283, 342, 511, 526, 639, 767, 849, 1042, 1095, 1203],
    starts_by_ratio: &[(
        2.0,
        &[99, 169, 258, 378, 493, 568, 666, 786, 861, 1017, 1068, 1178],
    )],
    skynomad_rate_ratio: true,
};

/// Table 2's H100 cell (`v_ablation_h100`): Fig 2's eight GCP H100 zones, T = 311 ticks,
/// the twelve stratified windows at ratio 1.5 (and at 2.0: `starts_by_ratio`).
pub const H100_8ZONE: Scenario = Scenario {
    name: "h100-8zone",
    set: "h100",
    zones: &[
        "asia-south2-b_h100_16",
        "asia-southeast1-b_h100_16",
        "asia-southeast1-c_h100_16",
        "europe-west1-c_h100_16",
        "us-central1-a_h100_16",
        "us-east4-b_h100_16",
        "us-west1-a_h100_16",
        "us-west1-b_h100_16",
    ],
    deadline_ticks: 311,
    ratio: 1.5,
    changeover_s: 720.0,
    checkpoint_gb: 50.0,
    starts: &[
        146, 158, 310, 515, 652, 763, 948, 1076, 1210, 1428, 1556, 1653,
    ],
    starts_by_ratio: &[(
        2.0,
        &[
            76, 284, 418, 588, 708, 856, 904, 1138, 1323, 1464, 1504, 1665,
        ],
    )],
    skynomad_rate_ratio: true,
};

/// Fig 9a: "Global Diverse (6)" GCP H100 zones at 600-s ticks, ratio 1.5, the six
/// sequential tiles of 311 ticks.
pub const H100_GLOBAL_DIVERSE: Scenario = h100(
    "h100-global-diverse",
    &[
        "us-central1-a_h100_16",
        "us-west1-a_h100_16",
        "europe-west1-c_h100_16",
        "europe-west3-c_h100_16",
        "asia-southeast1-b_h100_16",
        "asia-south2-b_h100_16",
    ],
    1.5,
);

/// Fig 10b: the 13 H100 zones in the order the region-scaling sweep adds them (by
/// single-zone UP cost, high to low: the code's order, where the text says "by average
/// availability"), ratio 1.2; the figure's n zones are the first n
/// ([`ZonesSpec::first_zones`](crate::zones::experiment::ZonesSpec::first_zones)).
pub const H100_PROGRESSIVE: Scenario = h100(
    "h100-progressive",
    &[
        "asia-southeast1-c_h100_16",
        "asia-south2-b_h100_16",
        "us-west1-b_h100_16",
        "europe-west3-c_h100_16",
        "us-west1-a_h100_16",
        "us-east4-a_h100_16",
        "europe-west1-c_h100_16",
        "us-central1-c_h100_16",
        "us-central1-b_h100_16",
        "asia-southeast1-b_h100_16",
        "us-central1-a_h100_16",
        "us-east5-a_h100_16",
        "us-east4-b_h100_16",
    ],
    1.2,
);

/// Fig 15 "US Only (8)" (the text says 3 regions; the legend and the code have these 8
/// zones), ratio 1.2.
pub const H100_US: Scenario = h100(
    "h100-us",
    &[
        "us-central1-a_h100_16",
        "us-central1-b_h100_16",
        "us-central1-c_h100_16",
        "us-east4-a_h100_16",
        "us-east4-b_h100_16",
        "us-east5-a_h100_16",
        "us-west1-a_h100_16",
        "us-west1-b_h100_16",
    ],
    1.2,
);

/// Fig 15 "Europe Only (2)", ratio 1.2.
pub const H100_EUROPE: Scenario = h100(
    "h100-europe",
    &["europe-west1-c_h100_16", "europe-west3-c_h100_16"],
    1.2,
);

/// Fig 15 "Asia Only (3)", ratio 1.2.
pub const H100_ASIA: Scenario = h100(
    "h100-asia",
    &[
        "asia-south2-b_h100_16",
        "asia-southeast1-b_h100_16",
        "asia-southeast1-c_h100_16",
    ],
    1.2,
);

/// Fig 15 "Global (13)": every H100 zone in alphabetical order (the sweep's; ties go to the
/// lower index, so the order can change a cost), ratio 1.2.
pub const H100_GLOBAL: Scenario = h100(
    "h100-global",
    &[
        "asia-south2-b_h100_16",
        "asia-southeast1-b_h100_16",
        "asia-southeast1-c_h100_16",
        "europe-west1-c_h100_16",
        "europe-west3-c_h100_16",
        "us-central1-a_h100_16",
        "us-central1-b_h100_16",
        "us-central1-c_h100_16",
        "us-east4-a_h100_16",
        "us-east4-b_h100_16",
        "us-east5-a_h100_16",
        "us-west1-a_h100_16",
        "us-west1-b_h100_16",
    ],
    1.2,
);

/// An H100 scenario of the published sweeps (spec §4): 600-s ticks, T = 311 ticks, d =
/// 0.2 h, S = 50 GB, the six sequential tiles of 311 ticks, the reference-cost SkyNomad.
const fn h100(name: &'static str, zones: &'static [&'static str], ratio: f64) -> Scenario {
    Scenario {
        name,
        set: "h100",
        zones,
        deadline_ticks: 311,
        ratio,
        changeover_s: 720.0,
        checkpoint_gb: 50.0,
        starts: &[0, 311, 622, 933, 1244, 1555],
        starts_by_ratio: &[],
        skynomad_rate_ratio: false,
    }
}

/// The tick the artifact's simulator starts a window at: it passes the start as hours and
/// takes ⌈hours·3600/g⌉ in floating point, so a start can move one tick later (H100 tick
/// 1,555 becomes 1,556). Reproduced bit for bit to judge its numbers on its own windows.
pub fn artifact_start_tick(start: usize, gap_s: f64) -> usize {
    let hours = start as f64 * gap_s / 3600.0;
    (hours * 3600.0 / gap_s).ceil() as usize
}

/// One embedded trace: (set, zone folder, its `full.json`).
macro_rules! embed {
    ($set:literal, $zone:literal) => {
        (
            $set,
            $zone,
            include_str!(concat!(
                "../../../../data/skynomad/",
                $set,
                "/",
                $zone,
                "/full.json"
            )),
        )
    };
}

/// The traces of the published scenarios, embedded so that a clone with nothing beside it,
/// and an installed binary, run them (`data/skynomad/`, Apache-2.0; see its NOTICE): the
/// three V100 zones, the three V100 4-node zones and all 13 H100 zones.
const EMBEDDED: &[(&str, &str, &str)] = &[
    embed!("v100", "us-east-1c_v100_1"),
    embed!("v100", "us-east-2b_v100_1"),
    embed!("v100", "us-west-2a_v100_1"),
    embed!("v100-4node", "us-east-1f_v100_1"),
    embed!("v100-4node", "us-east-2a_v100_1"),
    embed!("v100-4node", "us-west-2c_v100_1"),
    embed!("h100", "asia-south2-b_h100_16"),
    embed!("h100", "asia-southeast1-b_h100_16"),
    embed!("h100", "asia-southeast1-c_h100_16"),
    embed!("h100", "europe-west1-c_h100_16"),
    embed!("h100", "europe-west3-c_h100_16"),
    embed!("h100", "us-central1-a_h100_16"),
    embed!("h100", "us-central1-b_h100_16"),
    embed!("h100", "us-central1-c_h100_16"),
    embed!("h100", "us-east4-a_h100_16"),
    embed!("h100", "us-east4-b_h100_16"),
    embed!("h100", "us-east5-a_h100_16"),
    embed!("h100", "us-west1-a_h100_16"),
    embed!("h100", "us-west1-b_h100_16"),
];

impl Scenario {
    /// The windows' first ticks at the scenario's ratio.
    pub fn windows(&self) -> &'static [usize] {
        self.starts_by_ratio
            .iter()
            .find(|(r, _)| (r - self.ratio).abs() < 1e-9)
            .map_or(self.starts, |(_, w)| w)
    }

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

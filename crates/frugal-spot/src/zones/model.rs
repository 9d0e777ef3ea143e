//! The multi-zone setting of SkyNomad (Li et al., NSDI '27, §3.1; spec
//! `multi-region-spot-spec.md` §1.1): zones with their own spot availability and price per
//! tick and on-demand price, one instance anywhere at a time, a checkpoint that lives in
//! the zone of the last instance that ran, and an egress fee when a start moves it to
//! another cloud region.

use crate::SpotError;
use crate::model::{Job, Mode, ceil_ticks};

/// One availability zone over the scenario's ticks (all zones share the tick length and are
/// aligned tick for tick).
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    /// The zone's name as the cloud spells it (`us-east-1c`, `europe-west1-c`).
    pub name: String,
    /// a_z(i): whether one spot instance could be had in tick i.
    pub available: Vec<bool>,
    /// s_z(i): the spot price of tick i, $/h (one entry per tick).
    pub spot_per_h: Vec<f64>,
    /// o_z: the on-demand price, $/h.
    pub on_demand_per_h: f64,
}

impl Zone {
    /// The cloud region: the name without its zone suffix (GCP `us-central1-a` →
    /// `us-central1`; AWS `us-east-1c` → `us-east-1`; spec §1.1).
    pub fn region(&self) -> &str {
        region_of(&self.name)
    }

    /// Whether spot can be had in tick `i` (never past the trace).
    pub fn spot_at(&self, i: usize) -> bool {
        self.available.get(i).copied().unwrap_or(false)
    }

    /// The price of `mode` in tick `i`, $/h (0 when idle; past the trace the last spot
    /// price, though spot is never available there).
    pub fn price(&self, mode: Mode, i: usize) -> f64 {
        match mode {
            Mode::Idle => 0.0,
            Mode::OnDemand => self.on_demand_per_h,
            Mode::Spot => self
                .spot_per_h
                .get(i)
                .or(self.spot_per_h.last())
                .copied()
                .unwrap_or(0.0),
        }
    }
}

/// The region of a zone name: a GCP name loses its `-x` suffix, an AWS name its last letter
/// (`us-east-1c`); a name that has neither is its own region.
pub fn region_of(zone: &str) -> &str {
    if let Some((head, tail)) = zone.rsplit_once('-') {
        if tail.len() == 1 && tail.chars().all(|c| c.is_ascii_lowercase()) {
            return head; // GCP: us-central1-a
        }
        let mut chars = tail.chars();
        if let Some(last) = chars.next_back()
            && last.is_ascii_lowercase()
            && !chars.as_str().is_empty()
            && chars.as_str().chars().all(|c| c.is_ascii_digit())
        {
            return &zone[..zone.len() - 1]; // AWS: us-east-1c
        }
    }
    zone
}

/// Egress, $ per GB, of moving a checkpoint from cloud region `from` to `to`: 0 inside a
/// region, else the artifact's table of AWS S3 data transfer out (November 2024; spec §1.1),
/// whose last rule, $0.02, covers every GCP name.
pub fn egress_per_gb(from: &str, to: &str) -> f64 {
    if from == to {
        return 0.0;
    }
    let east = |r: &str| r == "us-east-1" || r == "us-east-2";
    let me_af_il = |r: &str| r.starts_with("me-") || r.starts_with("af-") || r == "il-central-1";
    if east(from) && east(to) {
        return 0.01;
    }
    if from.starts_with("us-gov-") {
        return 0.03;
    }
    match from {
        "us-east-1" | "us-east-2" | "us-west-1" | "us-west-2" | "ca-central-1" => 0.02,
        "ca-west-1" if to.starts_with("eu-") => 0.05,
        "ca-west-1" | "mx-central-1" if me_af_il(to) => 0.14,
        "ca-west-1" | "mx-central-1" => 0.02,
        "il-central-1" if to.starts_with("ap-") => 0.15,
        "il-central-1" => 0.02,
        f if f.starts_with("eu-") => match to {
            "ca-west-1" | "mx-central-1" => 0.05,
            "ap-southeast-7" => 0.08,
            _ => 0.02,
        },
        f if f.starts_with("ap-") => {
            if to.starts_with("ap-") {
                0.08
            } else if me_af_il(to) {
                0.11
            } else {
                0.02
            }
        }
        f if f.starts_with("me-") => 0.085,
        f if f.starts_with("sa-") => 0.138,
        f if f.starts_with("af-") => 0.147,
        _ => 0.02,
    }
}

frugal_core::choice! {
    /// What a run reports as its cost (spec §1.2, "reporting quirk"): `bill`, the true bill
    /// (the default), or `omit`, what the artifact's figure sweeps (Figs 9, 10, 12, 15)
    /// report: the cost read before the tick in which the job finished is settled, so that
    /// tick's instance bill, its probes and any egress of a start in it are left out.
    pub enum FinalTick {
        Bill = "bill": "the true bill: the tick the job finishes in is billed whole",
        Omit = "omit": "as the artifact's figures report: the tick the job finishes in left out",
    }
}

#[allow(clippy::derivable_impls)] // the enum comes from `choice!`, which derives no Default
impl Default for FinalTick {
    fn default() -> FinalTick {
        FinalTick::Bill
    }
}

/// One window of a multi-zone scenario: the zones from the window's first tick, the job
/// and the checkpoint that moves with it.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The zones, in the scenario's order (every tie goes to the lower index).
    pub zones: Vec<Zone>,
    /// g: seconds per tick.
    pub gap_s: f64,
    /// P (`work_s`), T (`deadline_s`) and d (`changeover_s`, the cold start of every
    /// start); `instances` is 1.
    pub job: Job,
    /// S: the checkpoint's size, GB.
    pub checkpoint_gb: f64,
    /// What the cost reports.
    pub final_tick: FinalTick,
    /// Bill a probe of the zone where the job's own instance runs as the artifact's
    /// environment does (a reporting quirk, off by default; see
    /// [`Env::probe`](crate::zones::Env::probe)).
    pub artifact_probe_billing: bool,
}

impl Setting {
    /// The ticks the job may use: tick i with i·g < T, ⌈T/g⌉ of them (the artifact's run
    /// fails at the first tick that starts at or after T; spot is unavailable from it on).
    pub fn horizon_ticks(&self) -> usize {
        ceil_ticks(self.job.deadline_s, self.gap_s)
    }

    /// E(from → to): the egress of a start in zone `to` with the checkpoint in zone `from`
    /// (S × the per-GB rate; 0 inside a cloud region), dollars.
    pub fn egress(&self, from: usize, to: usize) -> f64 {
        self.checkpoint_gb * egress_per_gb(self.zones[from].region(), self.zones[to].region())
    }

    /// The same window with zone `z` alone.
    pub fn only(&self, z: usize) -> Setting {
        Setting {
            zones: vec![self.zones[z].clone()],
            ..self.clone()
        }
    }

    /// Checks the setting.
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the field: no zone, zones of other lengths than the
    /// first, a price that is negative or not finite, a checkpoint size that is negative
    /// or not finite, or a job that [`Job::check`] refuses.
    pub fn check(&self) -> Result<(), SpotError> {
        let bad = |why: String| Err(SpotError::Input(why));
        let Some(first) = self.zones.first() else {
            return bad("zones: at least one".into());
        };
        for z in &self.zones {
            if z.available.len() != first.available.len() || z.spot_per_h.len() != z.available.len()
            {
                return bad(format!(
                    "zones: {} has {} ticks ({} prices) where {} has {}",
                    z.name,
                    z.available.len(),
                    z.spot_per_h.len(),
                    first.name,
                    first.available.len()
                ));
            }
            let price_ok = |p: f64| p.is_finite() && p >= 0.0;
            if !price_ok(z.on_demand_per_h) || !z.spot_per_h.iter().all(|&p| price_ok(p)) {
                return bad(format!(
                    "{}: prices must be finite and at least 0 $/h",
                    z.name
                ));
            }
        }
        if !(self.checkpoint_gb.is_finite() && self.checkpoint_gb >= 0.0) {
            return bad(format!(
                "checkpoint_gb: {} must be at least 0",
                self.checkpoint_gb
            ));
        }
        self.job.check(self.gap_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_egress_follow_the_artifacts_table() {
        assert_eq!(region_of("us-central1-a"), "us-central1");
        assert_eq!(region_of("us-east-1c"), "us-east-1");
        assert_eq!(region_of("asia-southeast1-b"), "asia-southeast1");
        assert_eq!(region_of("local"), "local");
        // Spec §1.1: $0.50 us-east-1 ↔ us-east-2 at 50 GB, $1.00 for the other V100 pairs
        // and for every cross-region GCP move.
        assert_eq!(50.0 * egress_per_gb("us-east-1", "us-east-2"), 0.5);
        assert_eq!(50.0 * egress_per_gb("us-east-2", "us-west-2"), 1.0);
        assert_eq!(50.0 * egress_per_gb("us-central1", "europe-west1"), 1.0);
        assert_eq!(egress_per_gb("us-east4", "us-east4"), 0.0);
        assert_eq!(egress_per_gb("ap-south-1", "ap-northeast-1"), 0.08);
        assert_eq!(egress_per_gb("ap-south-1", "me-south-1"), 0.11);
        assert_eq!(egress_per_gb("eu-west-1", "ap-southeast-7"), 0.08);
        assert_eq!(egress_per_gb("sa-east-1", "us-east-1"), 0.138);
    }
}

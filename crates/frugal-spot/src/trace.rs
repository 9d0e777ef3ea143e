//! Spot availability traces in the public format of the paper's data (spec §5 items 1, 15,
//! 17), and windows drawn from them (spec §5 item 11).
//!
//! A file is one JSON object `{"metadata": {"gap_seconds": g}, "data": [v, …], "prices": [p,
//! …]}`: tick i covers [i·g, (i+1)·g) and `v` is the number of spot instances that could be
//! had in it (1 = available for a single-node file; 0..N for an N-node file; `prices`, in
//! $/h, is optional). The authors' own simulator files use the opposite encoding (1 =
//! preempted); frugal reads the public one. For a gang of N instances, spot is available in
//! a tick iff at least N instances could be had (the paper's all-or-none rule, §5.5: on an
//! N-node trace, value N; a 1-instance job on a 4-node trace has spot whenever any of the
//! 4 could be had). The gap is taken as written, never resampled.

use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::SpotError;

/// One zone's availability record.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Where it comes from: the file stem (`us-west-2a_v100_1`) or the generator's zone.
    pub name: String,
    /// g: seconds per tick (`metadata.gap_seconds`).
    pub gap_s: f64,
    /// Spot instances available per tick.
    pub values: Vec<u32>,
    /// Spot price per tick, $/h, when the file has one.
    pub prices: Option<Vec<f64>>,
}

impl Trace {
    /// Reads one trace file.
    ///
    /// # Errors
    /// [`SpotError::Input`] naming the file and the field: unreadable, not JSON, no
    /// `metadata.gap_seconds` or not a positive number, no `data` or a value that is not a
    /// whole number ≥ 0, `prices` of another length or with a negative or non-numeric entry.
    pub fn read(path: &Path) -> Result<Trace, SpotError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpotError::Input(format!("{}: {e}", path.display())))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Trace::parse(&name, &text).map_err(|m| SpotError::Input(format!("{}: {m}", path.display())))
    }

    /// Parses the text of a trace file; errors name the field (without the file).
    ///
    /// # Errors
    /// As [`Trace::read`].
    pub fn parse(name: &str, text: &str) -> Result<Trace, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let gap = v
            .get("metadata")
            .and_then(|m| m.get("gap_seconds"))
            .ok_or("metadata.gap_seconds: missing")?;
        let gap_s = gap
            .as_f64()
            .ok_or_else(|| format!("metadata.gap_seconds: {gap} is not a number"))?;
        if !(gap_s > 0.0 && gap_s.is_finite()) {
            return Err(format!("metadata.gap_seconds: {gap_s} must be positive"));
        }
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .ok_or("data: missing or not a list")?;
        if data.is_empty() {
            return Err("data: no ticks".into());
        }
        let values = data
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| format!("data[{i}]: {x} is not a count of instances (≥ 0)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let prices = match v.get("prices") {
            None | Some(Value::Null) => None,
            Some(Value::Array(p)) => {
                if p.len() != values.len() {
                    return Err(format!(
                        "prices: {} entries for {} ticks of data",
                        p.len(),
                        values.len()
                    ));
                }
                Some(
                    p.iter()
                        .enumerate()
                        .map(|(i, x)| match x.as_f64() {
                            Some(f) if f >= 0.0 && f.is_finite() => Ok(f),
                            _ => Err(format!("prices[{i}]: {x} is not a price ≥ 0 in $/h")),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            Some(other) => return Err(format!("prices: {other} is not a list")),
        };
        Ok(Trace {
            name: name.to_string(),
            gap_s,
            values,
            prices,
        })
    }

    /// Reads every `*.json` file of `dir`, in name order.
    ///
    /// # Errors
    /// [`SpotError::Input`] for an unreadable folder, a folder without trace files, or a bad
    /// file (named).
    pub fn read_dir(dir: &Path) -> Result<Vec<Trace>, SpotError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| SpotError::Input(format!("traces {}: {e}", dir.display())))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(SpotError::Input(format!(
                "traces {}: no .json trace file",
                dir.display()
            )));
        }
        files.iter().map(|f| Trace::read(f)).collect()
    }

    /// The first `ticks` ticks only (the paper's 2-week set is the first 1,781 ticks).
    pub fn truncated(mut self, ticks: usize) -> Trace {
        self.values.truncate(ticks);
        if let Some(p) = &mut self.prices {
            p.truncate(ticks);
        }
        self
    }

    /// Spot availability of a gang of `instances` per tick: value ≥ N (spec §5 item 15's
    /// value == N on an N-node trace, whose values never exceed N).
    pub fn availability(&self, instances: u32) -> Vec<bool> {
        self.values.iter().map(|&v| v >= instances).collect()
    }

    /// Fraction of ticks with spot available to a gang of `instances`.
    pub fn available_fraction(&self, instances: u32) -> f64 {
        let a = self.availability(instances);
        a.iter().filter(|&&x| x).count() as f64 / a.len() as f64
    }

    /// The trace's spot fraction as the authors compute it for figure titles: mean
    /// available run / (mean available run + mean wait), in ticks (spec §5 item 12).
    pub fn spot_fraction_by_runs(&self, instances: u32) -> f64 {
        let a = self.availability(instances);
        let (mut runs, mut waits) = (Vec::new(), Vec::new());
        let mut start = 0;
        for i in 1..=a.len() {
            if i == a.len() || a[i] != a[start] {
                if a[start] { &mut runs } else { &mut waits }.push((i - start) as f64);
                start = i;
            }
        }
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let (r, w) = (mean(&runs), mean(&waits));
        if r + w == 0.0 { 0.0 } else { r / (r + w) }
    }
}

/// The window of `trace` that starts `start_s` seconds into it: its first tick,
/// ⌊start_s/g⌋.
///
/// # Errors
/// [`SpotError::Input`] naming `start_h` when less than `min_left_s` seconds of trace
/// follow it.
pub fn start_at(trace: &Trace, start_s: f64, min_left_s: f64) -> Result<usize, SpotError> {
    let tick = crate::model::floor_ticks(start_s, trace.gap_s);
    let need = crate::model::ceil_ticks(min_left_s, trace.gap_s);
    if tick.saturating_add(need) > trace.values.len() {
        return Err(SpotError::Input(format!(
            "start_h: {} h into trace {} leaves {} of its {} ticks of {} s, but a window needs \
             {need} ({:.1} h; min_trace_left_h)",
            start_s / 3600.0,
            trace.name,
            trace.values.len().saturating_sub(tick),
            trace.values.len(),
            trace.gap_s,
            min_left_s / 3600.0
        )));
    }
    Ok(tick)
}

/// How windows are drawn from a trace: `count` start ticks, uniform over the ticks that
/// leave at least `min_left_s` seconds of trace (spec §5 item 11: max(R(0), 5 days)),
/// from a ChaCha8 stream seeded by `seed` and the trace's position.
///
/// # Errors
/// [`SpotError::Input`] when the trace is shorter than `min_left_s`.
pub fn window_starts(
    trace: &Trace,
    position: usize,
    count: usize,
    min_left_s: f64,
    seed: u64,
) -> Result<Vec<usize>, SpotError> {
    let need = crate::model::ceil_ticks(min_left_s, trace.gap_s);
    if trace.values.len() < need {
        return Err(SpotError::Input(format!(
            "trace {}: {} ticks of {} s, but a window needs {need} ({:.1} h)",
            trace.name,
            trace.values.len(),
            trace.gap_s,
            min_left_s / 3600.0
        )));
    }
    let last = trace.values.len() - need;
    // One stream per (seed, trace): adding a trace does not move the others' windows.
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ (position as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Ok((0..count).map(|_| rng.random_range(0..=last)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_public_format_and_names_bad_fields() {
        let t = Trace::parse(
            "z",
            r#"{"metadata": {"gap_seconds": 600}, "data": [1, 0, 1]}"#,
        )
        .unwrap();
        assert_eq!(t.gap_s, 600.0);
        assert_eq!(t.availability(1), [true, false, true]);
        let bad = |s: &str| Trace::parse("z", s).unwrap_err();
        assert!(bad(r#"{"data": [1]}"#).contains("metadata.gap_seconds: missing"));
        assert!(
            bad(r#"{"metadata": {"gap_seconds": 0}, "data": [1]}"#).contains("must be positive")
        );
        assert!(bad(r#"{"metadata": {"gap_seconds": 60}, "data": [1, -1]}"#).contains("data[1]"));
        assert!(bad(r#"{"metadata": {"gap_seconds": 60}, "data": [1, 0.5]}"#).contains("data[1]"));
        assert!(
            bad(r#"{"metadata": {"gap_seconds": 60}, "data": [1], "prices": [-0.1]}"#)
                .contains("prices[0]")
        );
        assert!(bad("[1").contains("not JSON"));
    }

    #[test]
    fn gangs_need_every_instance_and_runs_give_the_spot_fraction() {
        let t = Trace::parse(
            "z",
            r#"{"metadata": {"gap_seconds": 300}, "data": [4, 3, 4, 4, 0, 4]}"#,
        )
        .unwrap();
        assert_eq!(t.availability(4), [true, false, true, true, false, true]);
        // One instance has spot whenever any of the four could be had.
        assert_eq!(t.availability(1), [true, true, true, true, false, true]);
        assert_eq!(t.availability(3), [true, true, true, true, false, true]);
        // Runs 1, 2, 1 (mean 4/3); waits 1, 1 (mean 1): 4/7.
        assert!((t.spot_fraction_by_runs(4) - 4.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn window_starts_are_seeded_and_leave_room() {
        let t = Trace {
            name: "z".into(),
            gap_s: 600.0,
            values: vec![1; 1000],
            prices: None,
        };
        let a = window_starts(&t, 0, 50, 600.0 * 900.0, 7).unwrap();
        assert_eq!(a, window_starts(&t, 0, 50, 600.0 * 900.0, 7).unwrap());
        assert_ne!(a, window_starts(&t, 1, 50, 600.0 * 900.0, 7).unwrap());
        assert!(a.iter().all(|&s| s <= 100));
        assert!(window_starts(&t, 0, 1, 600.0 * 1001.0, 7).is_err());
    }
}

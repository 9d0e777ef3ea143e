//! The primary workload: per-host CPU and RAM utilisation, replayed every 3 minutes
//! (paper 001 §IV-A "injection phase").
//!
//! The paper's 70-day, 3-minute traces of its 42 hosts are not public. frugal derives a
//! substitute from the Google cluster data "GCD_VMs" set (1,600 VMs × 288 five-minute
//! samples of CPU % and memory %) by a fixed recipe ([`derive_from_gcd`], spec §2.2):
//! 1. drop the job ids that have any memory sample > 100 %; keep those with ≥ 7 VMs; take
//!    the first 42 in ascending numeric order: 9 → PC-1, 27 → PC-2, 6 → University;
//! 2. a host's day d (1–7) is its job's d-th VM in ascending VM number;
//! 3. 5-minute samples are resampled to 3-minute steps by sample-and-hold: step `j` of a
//!    day takes sample `⌊3j/5⌋` (480 steps a day).
//!
//! Days 1–4 train the forecaster; runs start inside days 5–7 (see [`crate::experiment`]).
//! Beyond the end of day 7 the series wraps to the start of day 5, so a run that outlasts
//! the trace keeps replaying test days, never training days. The derived samples ship as
//! `data/ephemeral/utilisation.csv.gz` (5-minute values, unchanged) with a manifest naming
//! the source file of every host-day.
//!
//! A second, CPU-stressed variant ([`derive_planetlab`], spec §2.2 step 5) takes each
//! host-day's CPU from one PlanetLab VM of 3 March 2011 (mean 12 % but far burstier than
//! GCD's job sums) and its RAM from the same host-day of the GCD trace (PlanetLab records
//! no memory). It ships as `data/ephemeral/utilisation-planetlab.csv.gz`
//! ([`PrimaryWorkload::Planetlab`]).

use frugal_core::spec::Choice;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;
use serde::{Deserialize, Serialize};

use crate::DataError;
use crate::hosts::DataCentre;

/// Days of trace per host.
pub const DAYS: usize = 7;
/// The first test day (1-based); days before it train the forecaster.
pub const FIRST_TEST_DAY: usize = 5;
/// Trace samples per day (5 minutes apart).
pub const SAMPLES_PER_DAY: usize = 288;
/// Seconds between trace samples.
pub const SAMPLE_S: u32 = 300;
/// Seconds between primary-load injections: the paper's 3-minute sampling (Table I).
pub const STEP_S: u32 = 180;
/// 3-minute steps per day (Table I: 480 points over the 24-hour window).
pub const STEPS_PER_DAY: usize = 480;
/// Seconds per day.
pub const DAY_S: u32 = 86_400;
/// Hosts in the three data centres.
pub const HOSTS: usize = 42;

/// A resource of Eq. 1: CPU or RAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Metric {
    /// CPU (compressible: throttled, never killed for).
    Cpu,
    /// RAM (incompressible: tasks are killed when it runs short).
    Ram,
}

impl Metric {
    /// Both metrics.
    pub const ALL: [Metric; 2] = [Metric::Cpu, Metric::Ram];
}

/// One row of `utilisation.csv.gz`: one 5-minute sample of one host on one day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Host index (0–41).
    pub host: usize,
    /// Day, 1–7.
    pub day: usize,
    /// Sample of the day, 0–287 (5 minutes apart).
    pub sample: usize,
    /// CPU utilisation of the primary workload, percent of the host (0–100).
    pub cpu_pct: f64,
    /// Memory utilisation of the primary workload, percent of the host (0–100).
    pub mem_pct: f64,
}

/// One row of `manifest.csv`: which source file feeds which host-day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestRow {
    /// Host index (0–41).
    pub host: usize,
    /// Its data centre.
    pub dc: DataCentre,
    /// Day, 1–7.
    pub day: usize,
    /// The source, e.g. `GCD_VMs/vm_3418442_1`.
    pub source: String,
}

/// Utilisation fractions (0–1) of every host at every 3-minute step of the 7 days.
#[derive(Clone, Debug, PartialEq)]
pub struct Utilisation {
    cpu: Vec<Vec<f64>>,
    ram: Vec<Vec<f64>>,
}

const EMBEDDED: &[u8] = include_bytes!("../../../data/ephemeral/utilisation.csv.gz");
const EMBEDDED_PLANETLAB: &[u8] =
    include_bytes!("../../../data/ephemeral/utilisation-planetlab.csv.gz");

/// Which shipped primary workload to replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrimaryWorkload {
    /// `data/ephemeral/utilisation.csv.gz`: CPU and memory of Google cluster jobs
    /// ([`derive_from_gcd`]).
    #[default]
    Gcd,
    /// `data/ephemeral/utilisation-planetlab.csv.gz`: PlanetLab CPU, GCD memory
    /// ([`derive_planetlab`]).
    Planetlab,
}

frugal_core::choice! {
    impl Choice for PrimaryWorkload {
        Gcd = "gcd": "CPU and memory of 42 Google cluster jobs (data/ephemeral/utilisation.csv.gz)",
        Planetlab = "planetlab": "The CPU-stress variant: PlanetLab VMs' CPU, the GCD trace's memory (data/ephemeral/utilisation-planetlab.csv.gz)",
    }
}

impl PrimaryWorkload {
    /// The shipped file's path in the repository.
    pub fn file(self) -> &'static str {
        match self {
            PrimaryWorkload::Gcd => "data/ephemeral/utilisation.csv.gz",
            PrimaryWorkload::Planetlab => "data/ephemeral/utilisation-planetlab.csv.gz",
        }
    }
}

impl Utilisation {
    /// The shipped GCD trace (`data/ephemeral/utilisation.csv.gz`).
    pub fn embedded() -> Utilisation {
        Utilisation::shipped(PrimaryWorkload::Gcd)
    }

    /// One of the shipped traces.
    pub fn shipped(which: PrimaryWorkload) -> Utilisation {
        let bytes = match which {
            PrimaryWorkload::Gcd => EMBEDDED,
            PrimaryWorkload::Planetlab => EMBEDDED_PLANETLAB,
        };
        Utilisation::parse(GzDecoder::new(bytes), which.file(), HOSTS)
            .expect("the shipped utilisation traces are valid (tested)")
    }

    /// Reads `host,day,sample,cpu_pct,mem_pct` rows for hosts `0 ..< hosts`.
    ///
    /// # Errors
    /// [`DataError`] naming `name` and the line for a malformed row, a host, day or sample
    /// out of range, a repeated sample, or a percentage outside 0–100 (GCD has memory
    /// above 100 %: such series are excluded by the recipe, never clamped); and naming the
    /// host and day when samples are missing (every host needs all 7 × 288).
    pub fn parse(reader: impl Read, name: &str, hosts: usize) -> Result<Utilisation, DataError> {
        let n = DAYS * SAMPLES_PER_DAY;
        let mut cpu = vec![vec![f64::NAN; n]; hosts];
        let mut ram = vec![vec![f64::NAN; n]; hosts];
        let mut rdr = csv::Reader::from_reader(reader);
        for (i, rec) in rdr.deserialize::<Sample>().enumerate() {
            let line = i + 2;
            let s = rec.map_err(|e| DataError::new(name, line, e.to_string()))?;
            let bad = |m: String| DataError::new(name, line, m);
            if s.host >= hosts {
                return Err(bad(format!("host {} (hosts are 0–{})", s.host, hosts - 1)));
            }
            if !(1..=DAYS).contains(&s.day) {
                return Err(bad(format!("day {} (days are 1–{DAYS})", s.day)));
            }
            if s.sample >= SAMPLES_PER_DAY {
                return Err(bad(format!(
                    "sample {} (0–{})",
                    s.sample,
                    SAMPLES_PER_DAY - 1
                )));
            }
            for (field, v) in [("cpu_pct", s.cpu_pct), ("mem_pct", s.mem_pct)] {
                if !(0.0..=100.0).contains(&v) {
                    return Err(bad(format!("{field} = {v} is outside 0–100 %")));
                }
            }
            let at = (s.day - 1) * SAMPLES_PER_DAY + s.sample;
            if !cpu[s.host][at].is_nan() {
                return Err(bad(format!(
                    "host {} day {} sample {} appears twice",
                    s.host, s.day, s.sample
                )));
            }
            cpu[s.host][at] = s.cpu_pct / 100.0;
            ram[s.host][at] = s.mem_pct / 100.0;
        }
        for (h, series) in cpu.iter().enumerate() {
            for d in 0..DAYS {
                let day = &series[d * SAMPLES_PER_DAY..(d + 1) * SAMPLES_PER_DAY];
                let have = day.iter().filter(|v| !v.is_nan()).count();
                if have != SAMPLES_PER_DAY {
                    return Err(DataError::new(
                        name,
                        0,
                        format!(
                            "host {h} day {} has {have} samples; {SAMPLES_PER_DAY} are needed",
                            d + 1
                        ),
                    ));
                }
            }
        }
        Ok(Utilisation {
            cpu: cpu.into_iter().map(hold).collect(),
            ram: ram.into_iter().map(hold).collect(),
        })
    }

    /// Number of hosts.
    pub fn hosts(&self) -> usize {
        self.cpu.len()
    }

    /// u(k, m, ·) at 3-minute step `step` counted from day 1 00:00; steps past day 7 wrap
    /// to day 5 (module docs).
    pub fn at(&self, host: usize, metric: Metric, step: usize) -> f64 {
        let series = match metric {
            Metric::Cpu => &self.cpu[host],
            Metric::Ram => &self.ram[host],
        };
        series[wrap(step)]
    }

    /// The primary workload with its volatility scaled by `factor` (≥ 0): each host's
    /// series u(k, m, ·) becomes ū + factor · (u − ū), ū its mean over the 7 days, clipped
    /// to [0, 1]. 1 is the trace as recorded, 0 a constant load at each host's mean, 2
    /// doubles every swing — the level stays, the changes from one 3-minute step to the
    /// next scale (up to the clipping). A factor of 1 returns the trace exactly.
    pub fn with_volatility(&self, factor: f64) -> Utilisation {
        if factor == 1.0 {
            return self.clone();
        }
        let scale = |series: &Vec<f64>| {
            let mean = series.iter().sum::<f64>() / series.len().max(1) as f64;
            series
                .iter()
                .map(|u| (mean + factor * (u - mean)).clamp(0.0, 1.0))
                .collect()
        };
        Utilisation {
            cpu: self.cpu.iter().map(scale).collect(),
            ram: self.ram.iter().map(scale).collect(),
        }
    }

    /// The whole 7-day series of one host and metric (3-minute steps).
    pub fn series(&self, host: usize, metric: Metric) -> &[f64] {
        match metric {
            Metric::Cpu => &self.cpu[host],
            Metric::Ram => &self.ram[host],
        }
    }
}

/// Step `step` mapped into the trace: past day 7 it cycles through days 5–7.
pub fn wrap(step: usize) -> usize {
    let end = DAYS * STEPS_PER_DAY;
    if step < end {
        return step;
    }
    let first = (FIRST_TEST_DAY - 1) * STEPS_PER_DAY;
    first + (step - first) % (end - first)
}

/// 5-minute samples → 3-minute steps by sample-and-hold: step j takes sample ⌊3j/5⌋.
fn hold(samples: Vec<f64>) -> Vec<f64> {
    (0..DAYS * STEPS_PER_DAY)
        .map(|j| samples[j * STEP_S as usize / SAMPLE_S as usize])
        .collect()
}

/// The data centre of each host index: Table II's host counts in PC-1, PC-2, University
/// order.
fn host_data_centres() -> Vec<DataCentre> {
    DataCentre::ALL
        .iter()
        .copied()
        .flat_map(|dc| std::iter::repeat_n(dc, dc.table2().0))
        .collect()
}

/// Builds the shipped trace from the `GCD_VMs.tar.gz` tarball by the recipe of the module
/// docs. Returns the samples (host, day, sample order) and the manifest.
///
/// # Errors
/// [`DataError`] when the tarball cannot be read, a file name is not `vm_<job>_<n>`, a
/// line does not hold two numbers, or fewer than 42 job ids qualify.
pub fn derive_from_gcd(path: &Path) -> Result<(Vec<Sample>, Vec<ManifestRow>), DataError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| DataError::new(&name, 0, e.to_string());
    let file = std::fs::File::open(path).map_err(io)?;
    let mut archive = tar::Archive::new(GzDecoder::new(file));
    // job id → VM number → (cpu %, mem %) samples
    let mut jobs: BTreeMap<u64, BTreeMap<u32, Vec<(f64, f64)>>> = BTreeMap::new();
    for entry in archive.entries().map_err(io)? {
        let entry = entry.map_err(io)?;
        let p = entry.path().map_err(io)?.to_string_lossy().into_owned();
        let Some(file_name) = p.strip_prefix("GCD_VMs/").filter(|f| !f.is_empty()) else {
            continue;
        };
        let entry_name = format!("{name}:{p}");
        let parts: Vec<&str> = file_name.split('_').collect();
        let (job, vm) = match parts.as_slice() {
            ["vm", j, n] => match (j.parse::<u64>(), n.parse::<u32>()) {
                (Ok(j), Ok(n)) => (j, n),
                _ => return Err(DataError::new(&entry_name, 0, "not vm_<job>_<n>".into())),
            },
            _ => return Err(DataError::new(&entry_name, 0, "not vm_<job>_<n>".into())),
        };
        let mut rows = Vec::new();
        for (i, line) in BufReader::new(entry).lines().enumerate() {
            let line = line.map_err(io)?;
            let v: Vec<f64> = line
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|e| DataError::new(&entry_name, i + 1, format!("{e}")))?;
            match v.as_slice() {
                [c, m] => rows.push((*c, *m)),
                _ => {
                    return Err(DataError::new(
                        &entry_name,
                        i + 1,
                        "expected two numbers: CPU % and memory %".into(),
                    ));
                }
            }
        }
        if rows.len() != SAMPLES_PER_DAY {
            return Err(DataError::new(
                &entry_name,
                0,
                format!("{} samples; {SAMPLES_PER_DAY} expected", rows.len()),
            ));
        }
        jobs.entry(job).or_default().insert(vm, rows);
    }
    let qualifying: Vec<u64> = jobs
        .iter()
        .filter(|(_, vms)| vms.len() >= DAYS)
        .filter(|(_, vms)| vms.values().flatten().all(|&(_, m)| m <= 100.0))
        .map(|(&j, _)| j)
        .take(HOSTS)
        .collect();
    if qualifying.len() < HOSTS {
        return Err(DataError::new(
            &name,
            0,
            format!(
                "only {} job ids qualify; {HOSTS} are needed",
                qualifying.len()
            ),
        ));
    }
    let dcs = host_data_centres();
    let mut samples = Vec::new();
    let mut manifest = Vec::new();
    for (host, job) in qualifying.iter().enumerate() {
        for (d, (vm, rows)) in jobs[job].iter().take(DAYS).enumerate() {
            manifest.push(ManifestRow {
                host,
                dc: dcs[host],
                day: d + 1,
                source: format!("GCD_VMs/vm_{job}_{vm}"),
            });
            for (sample, &(cpu_pct, mem_pct)) in rows.iter().enumerate() {
                samples.push(Sample {
                    host,
                    day: d + 1,
                    sample,
                    cpu_pct,
                    mem_pct,
                });
            }
        }
    }
    Ok((samples, manifest))
}

/// Builds the CPU-stress variant (spec §2.2 step 5) from `planetlab_20110303.tar.gz` and
/// the GCD samples of [`derive_from_gcd`]: host k's day d takes its CPU from the PlanetLab
/// file number 7k + d − 1 (from 0) in byte-wise sorted file-name order, and its memory
/// from the GCD trace's same host, day and sample. Returns the samples (host, day, sample
/// order) and the manifest of the CPU sources.
///
/// # Errors
/// [`DataError`] when the tarball cannot be read, a line is not one number, a file does
/// not hold 288 samples, a CPU value is outside 0–100, there are fewer than 294 files,
/// or `gcd` lacks a host-day.
pub fn derive_planetlab(
    path: &Path,
    gcd: &[Sample],
) -> Result<(Vec<Sample>, Vec<ManifestRow>), DataError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| DataError::new(&name, 0, e.to_string());
    let file = std::fs::File::open(path).map_err(io)?;
    let mut archive = tar::Archive::new(GzDecoder::new(file));
    let mut files: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for entry in archive.entries().map_err(io)? {
        let entry = entry.map_err(io)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let p = entry.path().map_err(io)?.to_string_lossy().into_owned();
        let entry_name = format!("{name}:{p}");
        let mut cpu = Vec::with_capacity(SAMPLES_PER_DAY);
        for (i, line) in BufReader::new(entry).lines().enumerate() {
            let line = line.map_err(io)?;
            let v: f64 = line
                .trim()
                .parse()
                .map_err(|e| DataError::new(&entry_name, i + 1, format!("CPU %: {e}")))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(DataError::new(
                    &entry_name,
                    i + 1,
                    format!("CPU % = {v} is outside 0–100"),
                ));
            }
            cpu.push(v);
        }
        if cpu.len() != SAMPLES_PER_DAY {
            return Err(DataError::new(
                &entry_name,
                0,
                format!("{} samples; {SAMPLES_PER_DAY} expected", cpu.len()),
            ));
        }
        files.insert(p, cpu);
    }
    if files.len() < HOSTS * DAYS {
        return Err(DataError::new(
            &name,
            0,
            format!("{} files; {} are needed", files.len(), HOSTS * DAYS),
        ));
    }
    let mem: BTreeMap<(usize, usize, usize), f64> = gcd
        .iter()
        .map(|s| ((s.host, s.day, s.sample), s.mem_pct))
        .collect();
    let dcs = host_data_centres();
    let mut samples = Vec::new();
    let mut manifest = Vec::new();
    for (i, (source, cpu)) in files.iter().take(HOSTS * DAYS).enumerate() {
        let (host, day) = (i / DAYS, i % DAYS + 1);
        manifest.push(ManifestRow {
            host,
            dc: dcs[host],
            day,
            source: source.clone(),
        });
        for (sample, &cpu_pct) in cpu.iter().enumerate() {
            let mem_pct = *mem.get(&(host, day, sample)).ok_or_else(|| {
                DataError::new(
                    "GCD samples",
                    0,
                    format!("no memory sample for host {host}, day {day}, sample {sample}"),
                )
            })?;
            samples.push(Sample {
                host,
                day,
                sample,
                cpu_pct,
                mem_pct,
            });
        }
    }
    Ok((samples, manifest))
}

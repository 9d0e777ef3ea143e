//! The SWIM Facebook Hadoop traces (FB-2009, FB-2010) and their mapping to Spark jobs.
//!
//! A SWIM line holds a job id, submit time, gap and three byte counts; durations and
//! task counts are not in the traces (see `data/swim/README.md`). [`map_swim`] turns each
//! line into a Spark job deterministically, in the spirit of paper 004 §6.1.2 (WordCount
//! and Sort with 1–20 GB inputs, PageRank with 5–15 iterations):
//!
//! | quantity | rule |
//! | --- | --- |
//! | kind | r = shuffle/input: r < 0.5 (incl. map-only) → `cpu_bound` (WordCount); 0.5 ≤ r ≤ 2 → `memory_bound` (Sort); r > 2 → `network_bound` (PageRank); with [`TraceMapping::application`] every job is that application (a one-application workload of paper 004 §6.1.2) |
//! | input size | `1 + 19·s(input)` GB, s(b) = clamp((log10 b − 3)/9, 0, 1): 1 KB ↦ 1 GB, 1 TB ↦ 20 GB |
//! | PageRank iterations | `5 + round(10·s(shuffle))` |
//! | executors E | `clamp(ceil(input GB / 2.5), 1, 8)` |
//! | executor size | `cpu_bound` 4 cores 4 GiB; `memory_bound` 2 cores 8 GiB; `network_bound` 2 cores 4 GiB |
//! | T_C^L | `30 s + work / (E · cores · rate)`: WordCount work = input MB at 4 MB/s per core; Sort input MB at 6 MB/s per core; PageRank iterations × input MB at 16 MB/s per core |
//! | T_C^H | `T_C^L · (1 + hybrid_penalty)` (paper 000 §6.1: 30 %) |
//! | deadline | with probability `deadline_share` (seeded), `arrival + deadline_factor · T_C^L` |

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_core::job::{Job, JobKind};
use frugal_core::resources::Resources;

use super::{TraceMapping, WorkloadError};

/// The FB-2009 day shipped with frugal (SWIM, BSD-3-Clause, see `data/swim/SWIM-LICENSE`).
pub const EMBEDDED_FB2009: &str =
    include_str!("../../../../data/swim/FB-2009_samples_24_times_1hr_0.tsv");
/// File name of [`EMBEDDED_FB2009`].
pub const EMBEDDED_FB2009_NAME: &str = "FB-2009_samples_24_times_1hr_0.tsv";

/// One line of a SWIM trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwimRecord {
    /// Job id (column 1), e.g. `job17`.
    pub id: String,
    /// Submit time, seconds from the start of the synthetic day (column 2).
    pub submit_s: u64,
    /// Map input bytes (column 4).
    pub input_bytes: u64,
    /// Shuffle bytes (column 5).
    pub shuffle_bytes: u64,
    /// Reduce output bytes (column 6).
    pub output_bytes: u64,
}

const COLUMNS: [&str; 6] = [
    "job_id",
    "submit_time_s",
    "inter_job_gap_s",
    "map_input_bytes",
    "shuffle_bytes",
    "reduce_output_bytes",
];

/// Parses a SWIM TSV trace (6 tab-separated columns, or 9 for the `withInputPaths`
/// files, no header). `file` names the source in errors.
///
/// # Errors
/// [`WorkloadError`] with the line and column name of the first missing or
/// non-numeric field, a gap that disagrees with the submit times, or submit times that
/// go backwards.
pub fn parse_swim(text: &str, file: &str) -> Result<Vec<SwimRecord>, WorkloadError> {
    let mut out = Vec::new();
    let mut prev_submit = 0u64;
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != 6 && fields.len() != 9 {
            return Err(WorkloadError::new(
                file,
                line_no,
                COLUMNS.get(fields.len()).copied().unwrap_or("fields"),
                format!(
                    "expected 6 or 9 tab-separated fields, found {}",
                    fields.len()
                ),
            ));
        }
        let num = |c: usize| -> Result<u64, WorkloadError> {
            fields[c].trim().parse::<u64>().map_err(|_| {
                WorkloadError::new(
                    file,
                    line_no,
                    COLUMNS[c],
                    format!("not a non-negative integer: {:?}", fields[c]),
                )
            })
        };
        let id = fields[0].trim();
        if id.is_empty() {
            return Err(WorkloadError::new(
                file,
                line_no,
                COLUMNS[0],
                "empty job id",
            ));
        }
        let submit_s = num(1)?;
        let gap = num(2)?;
        if submit_s < prev_submit {
            return Err(WorkloadError::new(
                file,
                line_no,
                COLUMNS[1],
                "submit time goes backwards",
            ));
        }
        if gap != submit_s - prev_submit {
            return Err(WorkloadError::new(
                file,
                line_no,
                COLUMNS[2],
                format!(
                    "gap {gap} disagrees with submit times ({} − {prev_submit})",
                    submit_s
                ),
            ));
        }
        prev_submit = submit_s;
        out.push(SwimRecord {
            id: id.to_string(),
            submit_s,
            input_bytes: num(3)?,
            shuffle_bytes: num(4)?,
            output_bytes: num(5)?,
        });
    }
    Ok(out)
}

/// Which part of a trace to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwimHour {
    /// Hour h ∈ 0..24: jobs submitted in [3600h, 3600h + 3600) s (hour 23 also takes the
    /// few submit times ≥ 86,400), arrival times relative to 3600h.
    Hour(u32),
    /// The whole day, arrival = submit time.
    Day,
}

/// The first `first_n` records (all if `None`) of `hour`, with arrivals in seconds from
/// the start of that hour (or day).
pub fn select_hour(
    records: &[SwimRecord],
    hour: SwimHour,
    first_n: Option<usize>,
) -> Vec<(f64, &SwimRecord)> {
    let in_hour = |r: &&SwimRecord| match hour {
        SwimHour::Day => true,
        SwimHour::Hour(h) => {
            let hr = (r.submit_s / 3600).min(23) as u32;
            hr == h
        }
    };
    let offset = match hour {
        SwimHour::Day => 0,
        SwimHour::Hour(h) => 3600 * u64::from(h),
    };
    records
        .iter()
        .filter(in_hour)
        .take(first_n.unwrap_or(usize::MAX))
        .map(|r| ((r.submit_s - offset) as f64, r))
        .collect()
}

/// `jobs` records of `records` (one day of a trace) replayed day after day: copy k ≥ 1
/// is shifted by k · 86,400 s and its ids get the suffix `@k`. The documented way to
/// build long workloads (10⁴–10⁶ jobs) from one SWIM day.
pub fn replicate_days(records: &[SwimRecord], jobs: usize) -> Vec<SwimRecord> {
    if records.is_empty() {
        return Vec::new();
    }
    (0..jobs)
        .map(|i| {
            let (day, r) = (i / records.len(), &records[i % records.len()]);
            if day == 0 {
                return r.clone();
            }
            SwimRecord {
                id: format!("{}@{day}", r.id),
                submit_s: r.submit_s + 86_400 * day as u64,
                ..r.clone()
            }
        })
        .collect()
}

/// Log-scale position of a byte count between 1 KB (0) and 1 TB (1).
fn log_scale(bytes: u64) -> f64 {
    (((bytes.max(1) as f64).log10() - 3.0) / 9.0).clamp(0.0, 1.0)
}

/// Maps selected SWIM records to Spark jobs (rules in the module documentation).
pub fn map_swim(selected: &[(f64, &SwimRecord)], m: &TraceMapping) -> Vec<Job> {
    let mut rng = ChaCha8Rng::seed_from_u64(m.seed);
    selected
        .iter()
        .map(|&(arrival, r)| {
            let ratio = r.shuffle_bytes as f64 / r.input_bytes.max(1) as f64;
            let kind = m.application.unwrap_or(if ratio < 0.5 {
                JobKind::CpuBound
            } else if ratio <= 2.0 {
                JobKind::MemoryBound
            } else {
                JobKind::NetworkBound
            });
            let input_mb = (1.0 + 19.0 * log_scale(r.input_bytes)) * 1024.0;
            let executors = ((input_mb / 1024.0 / 2.5).ceil() as u32).clamp(1, 8);
            let (cores, mem_gib, work_mb, rate) = match kind {
                JobKind::CpuBound => (4, 4, input_mb, 4.0),
                JobKind::MemoryBound => (2, 8, input_mb, 6.0),
                JobKind::NetworkBound => {
                    let iterations = 5.0 + (10.0 * log_scale(r.shuffle_bytes)).round();
                    (2, 4, iterations * input_mb, 16.0)
                }
            };
            let t_local = 30.0 + work_mb / (f64::from(executors * cores) * rate);
            let deadline = m.draw_deadline(&mut rng, arrival, t_local);
            Job {
                id: r.id.clone(),
                kind,
                executors,
                executor_demand: Resources::from_gib(cores, mem_gib),
                arrival,
                deadline,
                t_local,
                t_hybrid: t_local * (1.0 + m.hybrid_penalty),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_trace_has_the_documented_jobs_and_hours() {
        let recs = parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME).unwrap();
        assert_eq!(recs.len(), 5894);
        let light = select_hour(&recs, SwimHour::Hour(0), Some(50));
        assert_eq!(light.len(), 50);
        assert_eq!(light[49].0 - light[0].0, 2777.0);
        let high = select_hour(&recs, SwimHour::Hour(6), Some(100));
        assert_eq!(high[0].1.id, "job1119");
        assert_eq!(high[99].1.id, "job1218");
        assert_eq!(high[99].0 - high[0].0, 544.0);
        assert!(select_hour(&recs, SwimHour::Hour(11), None).is_empty());
    }

    #[test]
    fn replicated_days_shift_by_a_day_and_rename() {
        let recs = parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME).unwrap();
        let long = replicate_days(&recs, 10_000);
        assert_eq!(long.len(), 10_000);
        assert_eq!(long[5893], recs[5893]);
        assert_eq!(long[5894].id, format!("{}@1", recs[0].id));
        assert_eq!(long[5894].submit_s, recs[0].submit_s + 86_400);
        assert!(long.windows(2).all(|w| w[0].submit_s <= w[1].submit_s));
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let e = parse_swim("job0\t5\t5\t1\t2\t3\njob1\t7\t2\tx\t2\t3\n", "t.tsv").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "map_input_bytes"));
        let e = parse_swim("job0\t5\t4\t1\t2\t3\n", "t.tsv").unwrap_err();
        assert_eq!(e.field, "inter_job_gap_s");
        let e = parse_swim("job0\t5\t5\t1\n", "t.tsv").unwrap_err();
        assert!(e.to_string().starts_with("t.tsv:1:"), "{e}");
        let e = parse_swim("job0\t5\t5\t1\t2\t3\njob1\t4\t0\t1\t2\t3\n", "t.tsv").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "submit_time_s"));
    }

    #[test]
    fn mapping_follows_the_documented_rules() {
        let r = SwimRecord {
            id: "j".into(),
            submit_s: 0,
            input_bytes: 1_000_000_000_000,
            shuffle_bytes: 0,
            output_bytes: 0,
        };
        let jobs = map_swim(
            &[(0.0, &r)],
            &TraceMapping {
                deadline_share: 1.0,
                ..Default::default()
            },
        );
        let j = &jobs[0];
        assert_eq!((j.kind, j.executors), (JobKind::CpuBound, 8));
        assert!((j.t_local - (30.0 + 20.0 * 1024.0 / (8.0 * 4.0 * 4.0))).abs() < 1e-9);
        assert!((j.t_hybrid - 1.3 * j.t_local).abs() < 1e-9);
        assert_eq!(j.deadline, Some(2.0 * j.t_local));
        let sort = SwimRecord {
            shuffle_bytes: 1_000_000_000_000,
            ..r.clone()
        };
        assert_eq!(
            map_swim(&[(0.0, &sort)], &TraceMapping::default())[0].kind,
            JobKind::MemoryBound
        );
        let pr = SwimRecord {
            input_bytes: 1000,
            shuffle_bytes: 1_000_000,
            ..r
        };
        assert_eq!(
            map_swim(&[(0.0, &pr)], &TraceMapping::default())[0].kind,
            JobKind::NetworkBound
        );
    }
}

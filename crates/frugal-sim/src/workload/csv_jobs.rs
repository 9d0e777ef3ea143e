//! A CSV job format for users' own workloads.
//!
//! ```text
//! id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s
//! wc-1,cpu_bound,4,2,4,0,900,300,390
//! pr-1,network_bound,2,2,6,15,,420,546
//! ```
//!
//! The job files paper 000's authors published (header `job-id,C,M,E,T_A,T_est,T_D`) are
//! read too, recognised by that exact header ([`super::rm_simulator`]).
//!
//! Columns are found by name, in any order. `deadline_s`, `t_hybrid_s` and the replay
//! columns below may be left out (as if empty in every row); a column with an empty name — the index column that
//! pandas' `DataFrame.to_csv` writes first — is ignored; any other column is an error
//! naming it and the accepted ones.
//!
//! `kind` is `cpu_bound`, `memory_bound` or `network_bound`; `executors` in
//! 1..=100,000, `cores` in 1..=4,096 per executor; `memory_gib` in (0, 65,536], may be
//! fractional (rounded down to whole MiB); `arrival_s` ≥ 0; `deadline_s` is an absolute
//! time in seconds, not before the arrival, and may be empty (no deadline); `t_local_s`
//! is positive; `t_hybrid_s` ≥ `t_local_s`, or empty for (1 + p) · `t_local_s` with the
//! hybrid penalty p given to [`read_jobs_csv`]. Every time is at most
//! [`frugal_core::job::MAX_SECONDS`] (10 years).
//!
//! **Replay columns** (what `frugal whatif --export` writes, so that `frugal simulate` on
//! the export runs what the replay ran; [`crate::engine::Inputs`]): `run_time_factor`,
//! the measured run time as a multiple (≥ 0) of the model's estimate for the placement the
//! job gets (empty: the estimate); `offered_at_s`, when the scheduler first had the job (≥
//! its arrival; empty: at its arrival); `cancelled_at_s`, when its user cancelled it (≥ its
//! arrival; empty: never); `failed`, `true` if it ends failed at its run time (`false` or
//! empty: completed). A file with any of them is a replay ([`CsvJobs::replay`]).

use frugal_core::job::{Job, JobKind, MAX_EXECUTORS, MAX_SECONDS};
use frugal_core::resources::{MIB_PER_GIB, Resources};

use super::WorkloadError;
use crate::engine::{Inputs, RunTime};

/// The columns, in the order [`write_jobs_csv`] (the first nine) and [`write_replay_csv`]
/// (all) write them.
pub const CSV_HEADER: [&str; 13] = [
    "id",
    "kind",
    "executors",
    "cores",
    "memory_gib",
    "arrival_s",
    "deadline_s",
    "t_local_s",
    "t_hybrid_s",
    "run_time_factor",
    "offered_at_s",
    "cancelled_at_s",
    "failed",
];

/// The columns a file may leave out.
const OPTIONAL: [&str; 6] = [
    "deadline_s",
    "t_hybrid_s",
    "run_time_factor",
    "offered_at_s",
    "cancelled_at_s",
    "failed",
];

/// The first replay column in [`CSV_HEADER`].
const REPLAY: usize = 9;

/// The workload label of a job CSV: its file name without the extension
/// (`runs/week-1.csv` ↦ `week-1`), or the whole path if it has no file name. Rows and
/// `--out` folders then do not depend on the folder the file was read from: a copy of it
/// elsewhere (an `--out` folder's `inputs/`, a rerun from another folder) labels the same.
pub fn jobs_csv_label(path: &std::path::Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Jobs read from a CSV file.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvJobs {
    /// The jobs, sorted by arrival (stable).
    pub jobs: Vec<Job>,
    /// How many of them left `t_hybrid_s` empty (T_C^H from the hybrid penalty).
    pub derived_t_hybrid: usize,
    /// What the replay columns give, indexed as `jobs` (VM events empty), if the file has
    /// any of them.
    pub replay: Option<Inputs>,
}

/// Reads jobs in the CSV format above; an empty `t_hybrid_s` becomes
/// (1 + `hybrid_penalty`) · `t_local_s`.
///
/// # Errors
/// [`WorkloadError`] naming the line and column of the first bad header, missing,
/// unparsable or out-of-range field (the range is in the message), duplicate id, or a
/// deadline before the arrival.
pub fn read_jobs_csv(
    text: &str,
    file: &str,
    hybrid_penalty: f64,
) -> Result<CsvJobs, WorkloadError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = rdr
        .headers()
        .map_err(|e| WorkloadError::new(file, 1, "header", e.to_string()))?
        .clone();
    if header.iter().eq(super::rm_simulator::RM_SIMULATOR_HEADER) {
        return super::rm_simulator::read(&mut rdr, file, hybrid_penalty);
    }
    let columns =
        columns(&header).map_err(|(column, m)| WorkloadError::new(file, 1, &column, m))?;
    let mut jobs: Vec<(Job, Replayed)> = Vec::new();
    let mut derived_t_hybrid = 0;
    let mut ids = std::collections::BTreeSet::new();
    for rec in records(&mut rdr, file) {
        let (line, rec) = rec?;
        let err = |c: usize, m: String| WorkloadError::new(file, line, CSV_HEADER[c], m);
        let field = |c: usize| columns[c].and_then(|i| rec.get(i)).unwrap_or("");
        let num = |c: usize, max: f64| -> Result<f64, WorkloadError> {
            match field(c).parse::<f64>() {
                Ok(v) if (0.0..=max).contains(&v) => Ok(v),
                _ => Err(err(
                    c,
                    format!("expected a number in [0, {max}], got {:?}", field(c)),
                )),
            }
        };
        let count = |c: usize, max: u32| -> Result<u32, WorkloadError> {
            match field(c).parse::<u32>() {
                Ok(v) if (1..=max).contains(&v) => Ok(v),
                _ => Err(err(
                    c,
                    format!("expected an integer in 1..={max}, got {:?}", field(c)),
                )),
            }
        };
        let id = field(0).to_string();
        if id.is_empty() {
            return Err(err(0, "empty id".into()));
        }
        if !ids.insert(id.clone()) {
            return Err(err(0, format!("duplicate id {id:?}")));
        }
        let kind = JobKind::parse(field(1)).ok_or_else(|| {
            err(
                1,
                format!(
                    "unknown kind {:?} (cpu_bound, memory_bound, network_bound)",
                    field(1)
                ),
            )
        })?;
        let executors = count(2, MAX_EXECUTORS)?;
        let cores = count(3, 4096)?;
        let memory_gib = num(4, 65_536.0)?;
        let memory_mib = (memory_gib * f64::from(MIB_PER_GIB)) as u32;
        if memory_mib == 0 {
            return Err(err(4, "must be at least 1 MiB".into()));
        }
        let arrival = num(5, MAX_SECONDS)?;
        let deadline = if field(6).is_empty() {
            None
        } else {
            Some(num(6, MAX_SECONDS)?)
        };
        if deadline.is_some_and(|d| d < arrival) {
            return Err(err(6, "deadline before arrival".into()));
        }
        let t_local = num(7, MAX_SECONDS)?;
        if t_local <= 0.0 {
            return Err(err(7, "must be > 0".into()));
        }
        let t_hybrid = if field(8).is_empty() {
            derived_t_hybrid += 1;
            t_local * (1.0 + hybrid_penalty)
        } else {
            num(8, MAX_SECONDS)?
        };
        if t_hybrid < t_local {
            return Err(err(8, "must be ≥ t_local_s".into()));
        }
        let after_arrival = |c: usize| -> Result<Option<f64>, WorkloadError> {
            if field(c).is_empty() {
                return Ok(None);
            }
            let t = num(c, MAX_SECONDS)?;
            if t < arrival {
                return Err(err(c, "before the job's arrival".into()));
            }
            Ok(Some(t))
        };
        let run_time_factor = match field(REPLAY) {
            "" => None,
            f => match f.parse::<f64>() {
                Ok(v) if v >= 0.0 && v.is_finite() => Some(v),
                _ => {
                    return Err(err(REPLAY, format!("expected a number ≥ 0, got {f:?}")));
                }
            },
        };
        let replayed = Replayed {
            run_time_factor,
            offered_at: after_arrival(REPLAY + 1)?,
            cancelled_at: after_arrival(REPLAY + 2)?,
            failed: match field(REPLAY + 3) {
                "" | "false" => false,
                "true" => true,
                f => {
                    return Err(err(
                        REPLAY + 3,
                        format!("expected true or false, got {f:?}"),
                    ));
                }
            },
        };
        let job = Job {
            id,
            kind,
            executors,
            executor_demand: Resources::new(cores, memory_mib),
            arrival,
            deadline,
            t_local,
            t_hybrid,
        };
        jobs.push((job, replayed));
    }
    jobs.sort_by(|a, b| a.0.arrival.total_cmp(&b.0.arrival));
    let replay = columns[REPLAY..]
        .iter()
        .any(Option::is_some)
        .then(|| Inputs {
            run_times: Some(
                jobs.iter()
                    .map(|(_, r)| r.run_time_factor.map(RunTime::Factor))
                    .collect(),
            ),
            offered_at: Some(jobs.iter().map(|(_, r)| r.offered_at).collect()),
            cancels: (jobs.iter().enumerate())
                .filter_map(|(k, (_, r))| Some((k, r.cancelled_at?)))
                .collect(),
            failures: (jobs.iter().enumerate())
                .filter_map(|(k, (_, r))| r.failed.then_some(k))
                .collect(),
            ..Inputs::default()
        });
    Ok(CsvJobs {
        jobs: jobs.into_iter().map(|(j, _)| j).collect(),
        derived_t_hybrid,
        replay,
    })
}

/// One row's replay columns.
struct Replayed {
    run_time_factor: Option<f64>,
    offered_at: Option<f64>,
    cancelled_at: Option<f64>,
    failed: bool,
}

/// The rows of `rdr` with their 1-based line numbers; a malformed row (a wrong number of
/// fields, bad UTF-8) is an error naming its line and the field `record`.
pub(super) fn records<'r>(
    rdr: &'r mut csv::Reader<&[u8]>,
    file: &'r str,
) -> impl Iterator<Item = Result<(u64, csv::StringRecord), WorkloadError>> + 'r {
    rdr.records().map(move |rec| {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            WorkloadError::new(file, line, "record", e.to_string())
        })?;
        Ok((rec.position().map_or(0, |p| p.line()), rec))
    })
}

/// Where each of [`CSV_HEADER`]'s columns is in `header` (`None`: an optional column left
/// out).
///
/// # Errors
/// (column, message) for an unknown, repeated or missing column.
fn columns(header: &csv::StringRecord) -> Result<[Option<usize>; 13], (String, String)> {
    let accepted = CSV_HEADER.join(", ");
    let mut at = [None; 13];
    for (i, name) in header.iter().enumerate() {
        if name.is_empty() {
            continue; // the index column of pandas' to_csv
        }
        let Some(c) = CSV_HEADER.iter().position(|h| *h == name) else {
            return Err((
                name.to_string(),
                format!("unknown column {name:?} (the columns are {accepted})"),
            ));
        };
        if at[c].replace(i).is_some() {
            return Err((name.to_string(), format!("column {name:?} given twice")));
        }
    }
    for (c, name) in CSV_HEADER.iter().enumerate() {
        if at[c].is_none() && !OPTIONAL.contains(name) {
            return Err((
                name.to_string(),
                format!(
                    "missing column {name:?} (the columns are {accepted}; {} may be left out)",
                    OPTIONAL.join(", ")
                ),
            ));
        }
    }
    Ok(at)
}

/// Writes jobs in the same format (the inverse of [`read_jobs_csv`]), without the replay
/// columns.
pub fn write_jobs_csv(jobs: &[Job]) -> String {
    write(jobs, None)
}

/// Writes jobs with the replay columns of `replay` (indexed as `jobs`; its VM events are
/// not written: they are a file of their own, `--vm-events`). The inverse of
/// [`read_jobs_csv`]: the file reads back as `jobs` with [`CsvJobs::replay`] = `replay`
/// (VM events left out), whenever `jobs` are in arrival order.
///
/// # Errors
/// A run time given in seconds ([`RunTime::Seconds`]), which the `run_time_factor`
/// column cannot hold: the job's id.
pub fn write_replay_csv(jobs: &[Job], replay: &Inputs) -> Result<String, String> {
    let mut columns: Vec<[String; 4]> = Vec::with_capacity(jobs.len());
    let run_time = |k: usize| {
        replay
            .run_times
            .as_ref()
            .and_then(|v| v.get(k).copied().flatten())
    };
    let offered = |k: usize| {
        replay
            .offered_at
            .as_ref()
            .and_then(|v| v.get(k).copied().flatten())
    };
    for (k, j) in jobs.iter().enumerate() {
        let factor = match run_time(k) {
            Some(RunTime::Factor(f)) => Some(f),
            Some(RunTime::Seconds(_)) => {
                return Err(format!(
                    "job {}: a run time in seconds has no run_time_factor",
                    j.id
                ));
            }
            None => None,
        };
        columns.push([
            number(factor),
            number(offered(k)),
            String::new(),
            "false".into(),
        ]);
    }
    for &(k, t) in &replay.cancels {
        if let Some(c) = columns.get_mut(k) {
            c[2] = number(Some(t));
        }
    }
    for &k in &replay.failures {
        if let Some(c) = columns.get_mut(k) {
            c[3] = "true".into();
        }
    }
    Ok(write(jobs, Some(&columns)))
}

/// A number's shortest exact form, or empty.
fn number(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn write(jobs: &[Job], replay: Option<&[[String; 4]]>) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let columns = if replay.is_some() {
        CSV_HEADER.len()
    } else {
        REPLAY
    };
    w.write_record(&CSV_HEADER[..columns])
        .expect("write to memory");
    for (k, j) in jobs.iter().enumerate() {
        let mut row = vec![
            j.id.clone(),
            j.kind.as_str().to_string(),
            j.executors.to_string(),
            j.executor_demand.cores().to_string(),
            (f64::from(j.executor_demand.memory_mib()) / f64::from(MIB_PER_GIB)).to_string(),
            j.arrival.to_string(),
            number(j.deadline),
            j.t_local.to_string(),
            j.t_hybrid.to_string(),
        ];
        if let Some(r) = replay {
            row.extend(r[k].iter().cloned());
        }
        w.write_record(&row).expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("csv is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
                        wc-1,cpu_bound,4,2,4,10,900,300,390\n\
                        pr-1,network_bound,2,2,0.5,5,,420,546\n";

    /// The replay columns read back as the engine's inputs, indexed by arrival order, and
    /// write back to the same text.
    #[test]
    fn replay_columns_are_a_replays_inputs() {
        let text = "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s,run_time_factor,offered_at_s,cancelled_at_s,failed\n\
                    b,cpu_bound,1,1,1,20,,10,13,1.5,21,,true\n\
                    a,cpu_bound,1,1,1,5,,10,13,,,8,false\n";
        let read = read_jobs_csv(text, "r.csv", 0.3).unwrap();
        let replay = read.replay.clone().unwrap();
        assert_eq!(read.jobs[0].id, "a");
        assert_eq!(
            replay.run_times,
            Some(vec![None, Some(RunTime::Factor(1.5))])
        );
        assert_eq!(replay.offered_at, Some(vec![None, Some(21.0)]));
        assert_eq!((replay.cancels, replay.failures), (vec![(0, 8.0)], vec![1]));
        let again = read_jobs_csv(
            &write_replay_csv(&read.jobs, &read.replay.clone().unwrap()).unwrap(),
            "x",
            0.3,
        )
        .unwrap();
        assert_eq!(again, read);
        // A file without them is no replay; bad values name their line and column.
        assert_eq!(read_jobs_csv(GOOD, "j.csv", 0.3).unwrap().replay, None);
        let bad = |row: &str| {
            let head = "id,kind,executors,cores,memory_gib,arrival_s,t_local_s,run_time_factor,offered_at_s,failed";
            read_jobs_csv(&format!("{head}\n{row}\n"), "r.csv", 0.3)
                .unwrap_err()
                .to_string()
        };
        assert!(bad("a,cpu_bound,1,1,1,5,10,-1,,").starts_with("r.csv:2: field `run_time_factor`"));
        assert!(bad("a,cpu_bound,1,1,1,5,10,,4,").contains("before the job's arrival"));
        assert!(bad("a,cpu_bound,1,1,1,5,10,,,yes").starts_with("r.csv:2: field `failed`"));
    }

    #[test]
    fn reads_and_round_trips() {
        let read = read_jobs_csv(GOOD, "j.csv", 0.3).unwrap();
        let jobs = read.jobs;
        assert_eq!(read.derived_t_hybrid, 0);
        assert_eq!(jobs[0].id, "pr-1");
        assert_eq!(jobs[0].executor_demand, Resources::new(2, 512));
        assert_eq!(jobs[0].deadline, None);
        assert_eq!(
            read_jobs_csv(&write_jobs_csv(&jobs), "x", 0.3)
                .unwrap()
                .jobs,
            jobs
        );
    }

    /// Columns by name: another order, pandas' index column, the optional columns left
    /// out; an unknown, repeated or missing column is named with the accepted ones.
    #[test]
    fn columns_are_found_by_name() {
        let jobs = read_jobs_csv(GOOD, "j.csv", 0.3).unwrap().jobs;
        let reordered = "t_hybrid_s,t_local_s,deadline_s,arrival_s,memory_gib,cores,executors,kind,id\n\
                         390,300,900,10,4,2,4,cpu_bound,wc-1\n\
                         546,420,,5,0.5,2,2,network_bound,pr-1\n";
        assert_eq!(read_jobs_csv(reordered, "j.csv", 0.3).unwrap().jobs, jobs);
        let indexed = ",id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
                       0,wc-1,cpu_bound,4,2,4,10,900,300,390\n\
                       1,pr-1,network_bound,2,2,0.5,5,,420,546\n";
        assert_eq!(read_jobs_csv(indexed, "j.csv", 0.3).unwrap().jobs, jobs);
        let minimal = "id,kind,executors,cores,memory_gib,arrival_s,t_local_s\n\
                       wc-1,cpu_bound,4,2,4,10,300\n";
        let read = read_jobs_csv(minimal, "j.csv", 0.5).unwrap();
        assert_eq!(
            (read.jobs[0].deadline, read.jobs[0].t_hybrid),
            (None, 450.0)
        );
        let unknown = GOOD.replace("t_hybrid_s", "t_cloud_s");
        let e = read_jobs_csv(&unknown, "j.csv", 0.3).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (1, "t_cloud_s"));
        assert!(
            e.message.contains("t_hybrid_s") && e.message.contains("id, kind"),
            "{e}"
        );
        let twice = GOOD.replace("deadline_s", "cores");
        let e = read_jobs_csv(&twice, "j.csv", 0.3).unwrap_err();
        assert!(e.message.contains("given twice"), "{e}");
        let e = read_jobs_csv("id,kind\n", "j.csv", 0.3).unwrap_err();
        assert_eq!(e.field, "executors");
        assert!(e.message.contains("missing column"), "{e}");
    }

    #[test]
    fn an_empty_t_hybrid_comes_from_the_hybrid_penalty() {
        let text = GOOD.replace(",420,546", ",420,");
        let read = read_jobs_csv(&text, "j.csv", 0.5).unwrap();
        assert_eq!(read.derived_t_hybrid, 1);
        assert_eq!(read.jobs[0].t_hybrid, 630.0);
    }

    #[test]
    fn bad_fields_name_line_and_column() {
        let bad = GOOD.replace("network_bound", "gpu_bound");
        let e = read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (3, "kind"));
        let bad = GOOD.replace(",300,390", ",300,200");
        assert_eq!(
            read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err().field,
            "t_hybrid_s"
        );
        let bad = GOOD.replace("wc-1,cpu_bound,4", "wc-1,cpu_bound,0");
        let e = read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "executors"));
        let bad = GOOD.replace("pr-1", "wc-1");
        assert_eq!(read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err().field, "id");
        let e = read_jobs_csv("id,kind\n", "j.csv", 0.3).unwrap_err();
        assert!(e.to_string().starts_with("j.csv:1:"), "{e}");
        let bad = GOOD.replace("wc-1,cpu_bound,4", "wc-1,cpu_bound,100001");
        let e = read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err();
        assert!(e.message.contains("1..=100000"), "{e}");
        let bad = GOOD.replace(",10,900,", ",1e300,900,");
        let e = read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "arrival_s"));
        let bad = GOOD.replace(",900,", ",1,");
        assert_eq!(
            read_jobs_csv(&bad, "j.csv", 0.3).unwrap_err().field,
            "deadline_s"
        );
    }
}

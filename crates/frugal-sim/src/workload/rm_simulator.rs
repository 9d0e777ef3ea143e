//! The workload files the authors of paper 000 published with their simulator
//! (RM-Simulator, commit 8c959db: `workload_jobs_{low,high}_load.csv`, written by its
//! `Workload/SimpleGen.java`; shipped in `experiments/inputs/rm-simulator/`).
//!
//! ```text
//! job-id,C,M,E,T_A,T_est,T_D
//! job-0,4,6,7,39,153,396
//! ```
//!
//! Per row: the id; `C` cores and `M` GiB of memory per executor; `E` executors; `T_A` the
//! arrival (s); `T_est` the run time on one site, T_C^L (s); `T_D` the deadline, an absolute
//! time (s). The header is exactly this one (it is how [`super::read_jobs_csv`] tells the
//! format from frugal's own). The files carry no application kind: every job is
//! [`JobKind::CpuBound`], which changes nothing where no kind penalty applies (paper 000
//! has none, and its experiments set `kind-penalty = 0`). T_C^H = T_C^L + ⌊p · T_C^L⌋ with
//! the hybrid penalty p: the authors' simulator adds `(long)(T_est · network.penalty)` to a
//! job with an executor on a cloud VM (`SchedulerUtility.placeExecutors` at 155d62d, the
//! state of paper 000), so every time in its runs stays a whole second; frugal does the
//! same for these files, whose runs are judged against that simulator (with the fraction,
//! FIFO starts 64 % of the light-load file's jobs at the simulator's second, with whole
//! seconds all of them; the model chapter's table of readings). The files are
//! byte-identical at 155d62d and 8c959db.

use frugal_core::job::{Job, JobKind, MAX_EXECUTORS, MAX_SECONDS};
use frugal_core::resources::{MIB_PER_GIB, Resources};

use super::WorkloadError;
use super::csv_jobs::CsvJobs;

/// The header of the authors' files, exactly.
pub const RM_SIMULATOR_HEADER: [&str; 7] = ["job-id", "C", "M", "E", "T_A", "T_est", "T_D"];

/// Reads the rows of a file whose header is [`RM_SIMULATOR_HEADER`]; every T_C^H is derived
/// from `hybrid_penalty` in whole seconds, as the authors' simulator does (module doc).
///
/// # Errors
/// [`WorkloadError`] naming the line and column of the first row that has the wrong number
/// of fields, a field that is not a whole number in its range (given in the message), a
/// duplicate id, or a deadline before the arrival.
pub(super) fn read(
    rdr: &mut csv::Reader<&[u8]>,
    file: &str,
    hybrid_penalty: f64,
) -> Result<CsvJobs, WorkloadError> {
    let mut jobs: Vec<Job> = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    for rec in super::csv_jobs::records(rdr, file) {
        let (line, rec) = rec?;
        let err = |c: usize, m: String| WorkloadError::new(file, line, RM_SIMULATOR_HEADER[c], m);
        let whole = |c: usize, lo: u64, hi: u64| -> Result<u64, WorkloadError> {
            let f = rec.get(c).unwrap_or("");
            match f.parse::<u64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(err(
                    c,
                    format!("expected a whole number in {lo}..={hi}, got {f:?}"),
                )),
            }
        };
        let id = rec.get(0).unwrap_or("").to_string();
        if id.is_empty() {
            return Err(err(0, "empty id".into()));
        }
        if !ids.insert(id.clone()) {
            return Err(err(0, format!("duplicate id {id:?}")));
        }
        let cores = whole(1, 1, 4096)? as u32;
        let memory_gib = whole(2, 1, 65_536)? as u32;
        let executors = whole(3, 1, u64::from(MAX_EXECUTORS))? as u32;
        let max = MAX_SECONDS as u64;
        let arrival = whole(4, 0, max)? as f64;
        let t_local = whole(5, 1, max)? as f64;
        let deadline = whole(6, 0, max)? as f64;
        if deadline < arrival {
            return Err(err(6, "deadline before arrival".into()));
        }
        jobs.push(Job {
            id,
            kind: JobKind::CpuBound,
            executors,
            executor_demand: Resources::new(cores, memory_gib * MIB_PER_GIB),
            arrival,
            deadline: Some(deadline),
            t_local,
            // Java's `(long)` cast truncates; durations are positive, so this is ⌊·⌋ of
            // the same IEEE-754 product the simulator computes.
            t_hybrid: t_local + (t_local * hybrid_penalty).floor(),
        });
    }
    jobs.sort_by(|a, b| a.arrival.total_cmp(&b.arrival));
    let derived_t_hybrid = jobs.len();
    Ok(CsvJobs {
        jobs,
        derived_t_hybrid,
        replay: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::read_jobs_csv;
    use frugal_core::job::JobKind;

    const FILE: &str =
        "job-id,C,M,E,T_A,T_est,T_D\njob-0,4,6,7,39,153,396\njob-1,5,8,1,96,54,173\n";

    /// The first rows of the light-load file: 7 executors of 4 cores and 6 GiB, arriving at
    /// 39 s, 153 s on one site (153 + ⌊45.9⌋ = 198 s over both at p = 0.3), due at 396 s;
    /// job-1's 54 s becomes 54 + ⌊16.2⌋ = 70 s.
    #[test]
    fn the_authors_rows_are_jobs_with_their_own_numbers() {
        let read = read_jobs_csv(FILE, "w.csv", 0.3).unwrap();
        let j = &read.jobs[0];
        assert_eq!(j.id, "job-0");
        assert_eq!((j.executors, j.executor_demand.cores()), (7, 4));
        assert_eq!(j.executor_demand.memory_mib(), 6 * 1024);
        assert_eq!(
            (j.arrival, j.t_local, j.deadline),
            (39.0, 153.0, Some(396.0))
        );
        assert_eq!(j.t_hybrid, 198.0);
        assert_eq!(read.jobs[1].t_hybrid, 70.0);
        assert_eq!(j.kind, JobKind::CpuBound);
        assert_eq!(read.derived_t_hybrid, 2);
    }

    #[test]
    fn bad_rows_name_their_line_and_column() {
        let bad = |row: &str| {
            read_jobs_csv(
                &format!("job-id,C,M,E,T_A,T_est,T_D\n{row}\n"),
                "w.csv",
                0.3,
            )
            .unwrap_err()
            .to_string()
        };
        let e = bad("job-0,0,6,7,39,153,396");
        assert!(
            e.starts_with("w.csv:2: field `C`: expected a whole number in 1..=4096"),
            "{e}"
        );
        assert!(bad("job-0,4,6,7,39,153,20").contains("deadline before arrival"));
        assert!(bad("job-0,4,6,7,39,1.5,396").contains("field `T_est`"));
        let short = bad("job-0,4,6,7,39,153");
        assert!(short.starts_with("w.csv:2: field `record`"), "{short}");
    }
}

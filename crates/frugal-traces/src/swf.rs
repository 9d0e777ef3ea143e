//! The Standard Workload Format (SWF) of the Parallel Workloads Archive
//! (<https://www.cs.huji.ac.il/labs/parallel/workload/swf.html>; Chapin et al., "Benchmarks
//! and Standards for the Evaluation of Parallel Job Schedulers", JSSPP 1999).
//!
//! One job per line, 18 whitespace-separated numeric fields, `-1` for "unknown"; lines
//! starting with `;` are header comments, `; Key: value` pairs among them (MaxProcs,
//! UnixStartTime, …). [`read`] takes plain text or gzip (detected by its magic bytes).

use std::collections::BTreeMap;
use std::io::Read;

use crate::TraceError;

/// An SWF log shipped inside frugal (`data/swf/`, with its terms in that folder's
/// README), so the commands that replay it work from any directory.
#[derive(Clone, Copy, Debug)]
pub struct Embedded {
    /// Short name used on the command line (`nasa`, `kth`).
    pub name: &'static str,
    /// The archive's file name.
    pub file: &'static str,
    /// The gzip-compressed log.
    pub bytes: &'static [u8],
}

/// The shipped logs: NASA Ames iPSC/860 (1993) and KTH SP2 (1996–97), cleaned versions
/// of the Parallel Workloads Archive.
pub const EMBEDDED: [Embedded; 2] = [
    Embedded {
        name: "nasa",
        file: "NASA-iPSC-1993-3.1-cln.swf.gz",
        bytes: include_bytes!("../../../data/swf/NASA-iPSC-1993-3.1-cln.swf.gz"),
    },
    Embedded {
        name: "kth",
        file: "KTH-SP2-1996-2.1-cln.swf.gz",
        bytes: include_bytes!("../../../data/swf/KTH-SP2-1996-2.1-cln.swf.gz"),
    },
];

/// The shipped log called `name` (`nasa` or `kth`).
pub fn embedded(name: &str) -> Option<&'static Embedded> {
    EMBEDDED.iter().find(|e| e.name == name)
}

/// The 18 fields, in order.
pub const FIELDS: [&str; 18] = [
    "job_number",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_processors",
    "average_cpu_time",
    "used_memory",
    "requested_processors",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable",
    "queue",
    "partition",
    "preceding_job",
    "think_time",
];

/// One job record; `None` where the log has `-1` (unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct SwfJob {
    /// Field 1: job number (a counter, not necessarily consecutive).
    pub job_number: u64,
    /// Field 2: submit time, seconds from the log's start.
    pub submit_time: Option<f64>,
    /// Field 3: wait time, seconds.
    pub wait_time: Option<f64>,
    /// Field 4: run time (wall clock), seconds.
    pub run_time: Option<f64>,
    /// Field 5: allocated processors.
    pub allocated_processors: Option<u64>,
    /// Field 6: average CPU time used per processor, seconds.
    pub average_cpu_time: Option<f64>,
    /// Field 7: used memory, KB per processor.
    pub used_memory_kb: Option<f64>,
    /// Field 8: requested processors.
    pub requested_processors: Option<u64>,
    /// Field 9: requested (estimated) run time, seconds.
    pub requested_time: Option<f64>,
    /// Field 10: requested memory, KB per processor.
    pub requested_memory_kb: Option<f64>,
    /// Field 11: status (0 failed, 1 completed, 5 cancelled; others per the format).
    pub status: Option<i64>,
    /// Field 12: user id.
    pub user_id: Option<u64>,
    /// Field 13: group id.
    pub group_id: Option<u64>,
    /// Field 14: executable (application) number.
    pub executable: Option<u64>,
    /// Field 15: queue number.
    pub queue: Option<u64>,
    /// Field 16: partition number.
    pub partition: Option<u64>,
    /// Field 17: number of a preceding job this one depends on.
    pub preceding_job: Option<u64>,
    /// Field 18: think time from the preceding job's end, seconds.
    pub think_time: Option<f64>,
}

/// A parsed log: its header and its jobs in file order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SwfLog {
    /// `; Key: value` header pairs (first occurrence of a key wins; continuation lines are
    /// appended to the previous key's value).
    pub header: BTreeMap<String, String>,
    /// The job records.
    pub jobs: Vec<SwfJob>,
}

impl SwfLog {
    /// A header value parsed as a number, e.g. `MaxProcs` or `UnixStartTime`.
    pub fn header_number(&self, key: &str) -> Option<f64> {
        self.header
            .get(key)?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }
}

/// Reads a log from bytes, gunzipping them first if they start with the gzip magic.
///
/// # Errors
/// [`TraceError`] naming `file` (and the line and field) for a bad gzip stream, text that
/// is not UTF-8, or a record that [`parse`] refuses.
pub fn read(bytes: &[u8], file: &str) -> Result<SwfLog, TraceError> {
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_string(&mut s)
            .map_err(|e| TraceError::new(file, 0, "gzip", e.to_string()))?;
        s
    } else {
        String::from_utf8(bytes.to_vec())
            .map_err(|e| TraceError::new(file, 0, "encoding", format!("not UTF-8: {e}")))?
    };
    parse(&text, file)
}

/// Parses SWF text.
///
/// # Errors
/// [`TraceError`] with the line and field name for a record without exactly 18 fields,
/// a field that is not a number, a negative value other than `-1`, a fractional value in
/// an integer field, or a job number seen twice.
pub fn parse(text: &str, file: &str) -> Result<SwfLog, TraceError> {
    let mut log = SwfLog::default();
    let mut last_key: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix(';') {
            header_line(&mut log.header, &mut last_key, comment);
            continue;
        }
        last_key = None;
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        if fields.len() != FIELDS.len() {
            return Err(TraceError::new(
                file,
                line_no,
                FIELDS.get(fields.len()).copied().unwrap_or("record"),
                format!("expected 18 fields, found {}", fields.len()),
            ));
        }
        let num = |k: usize| -> Result<Option<f64>, TraceError> {
            let v: f64 = fields[k].parse().map_err(|_| {
                TraceError::new(
                    file,
                    line_no,
                    FIELDS[k],
                    format!("not a number: {:?}", fields[k]),
                )
            })?;
            if !v.is_finite() {
                return Err(TraceError::new(file, line_no, FIELDS[k], "not finite"));
            }
            if v == -1.0 {
                return Ok(None);
            }
            if v < 0.0 && k != 10 {
                return Err(TraceError::new(
                    file,
                    line_no,
                    FIELDS[k],
                    format!("negative ({v}); only -1 (unknown) is allowed"),
                ));
            }
            Ok(Some(v))
        };
        let int = |k: usize| -> Result<Option<u64>, TraceError> {
            match num(k)? {
                Some(v) if v.fract() != 0.0 || v > 1e15 => Err(TraceError::new(
                    file,
                    line_no,
                    FIELDS[k],
                    format!("expected an integer, got {v}"),
                )),
                Some(v) => Ok(Some(v as u64)),
                None => Ok(None),
            }
        };
        let job_number = int(0)?.ok_or_else(|| {
            TraceError::new(file, line_no, FIELDS[0], "the job number is unknown (-1)")
        })?;
        if !seen.insert(job_number) {
            return Err(TraceError::new(
                file,
                line_no,
                FIELDS[0],
                format!("job {job_number} appears twice"),
            ));
        }
        let status = match num(10)? {
            Some(v) if v.fract() == 0.0 => Some(v as i64),
            Some(v) => {
                return Err(TraceError::new(
                    file,
                    line_no,
                    FIELDS[10],
                    format!("expected an integer, got {v}"),
                ));
            }
            None => None,
        };
        log.jobs.push(SwfJob {
            job_number,
            submit_time: num(1)?,
            wait_time: num(2)?,
            run_time: num(3)?,
            allocated_processors: int(4)?,
            average_cpu_time: num(5)?,
            used_memory_kb: num(6)?,
            requested_processors: int(7)?,
            requested_time: num(8)?,
            requested_memory_kb: num(9)?,
            status,
            user_id: int(11)?,
            group_id: int(12)?,
            executable: int(13)?,
            queue: int(14)?,
            partition: int(15)?,
            preceding_job: int(16)?,
            think_time: num(17)?,
        });
    }
    Ok(log)
}

/// Records one `; Key: value` header line (or a continuation of the previous key).
fn header_line(
    header: &mut BTreeMap<String, String>,
    last_key: &mut Option<String>,
    comment: &str,
) {
    let c = comment.trim();
    let is_key =
        |k: &str| !k.is_empty() && k.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
    match c.split_once(':') {
        Some((k, v)) if is_key(k.trim()) => {
            let k = k.trim().to_string();
            header
                .entry(k.clone())
                .or_insert_with(|| v.trim().to_string());
            *last_key = Some(k);
        }
        _ if !c.is_empty() => {
            if let Some(v) = last_key.as_ref().and_then(|k| header.get_mut(k)) {
                v.push('\n');
                v.push_str(c);
            }
        }
        _ => *last_key = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "; Version: 2.2\n; MaxProcs: 128\n; Note: first\n;       second\n;\n\
        1 0 -1 1451 128 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n\
        \n\
        2 1460 5 3726 128 -1 2048 64 3600 -1 1 1 1 7 1 -1 1 10\n";

    #[test]
    fn reads_fields_unknowns_and_header() {
        let log = parse(LOG, "t.swf").unwrap();
        assert_eq!(log.header_number("MaxProcs"), Some(128.0));
        assert_eq!(log.header["Note"], "first\nsecond");
        assert_eq!(log.jobs.len(), 2);
        let (a, b) = (&log.jobs[0], &log.jobs[1]);
        assert_eq!(
            (a.job_number, a.run_time, a.allocated_processors),
            (1, Some(1451.0), Some(128))
        );
        assert_eq!((a.wait_time, a.status), (None, None));
        assert_eq!(
            (b.used_memory_kb, b.requested_time, b.status),
            (Some(2048.0), Some(3600.0), Some(1))
        );
        assert_eq!((b.preceding_job, b.think_time), (Some(1), Some(10.0)));
    }

    #[test]
    fn bad_records_name_line_and_field() {
        let e = parse(
            "1 0 -1 10 x -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n",
            "t.swf",
        )
        .unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (1, "allocated_processors"));
        let e = parse("; a\n1 0 -1 10 4 -1 -1 -1 -1 -1\n", "t.swf").unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (2, "status"),
            "the first missing field"
        );
        let e = parse(
            "1 0 -1 -5 4 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n",
            "t.swf",
        )
        .unwrap_err();
        assert_eq!(e.field, "run_time");
        let e = parse(
            "1 0 -1 1.5 4.5 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n",
            "t.swf",
        )
        .unwrap_err();
        assert_eq!(e.field, "allocated_processors");
        let twice = "1 0 -1 1 1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n";
        let e = parse(&format!("{twice}{twice}"), "t.swf").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (2, "job_number"));
        assert!(e.to_string().starts_with("t.swf:2:"), "{e}");
    }

    #[test]
    fn gzip_is_detected() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(LOG.as_bytes()).unwrap();
        let log = read(&gz.finish().unwrap(), "t.swf.gz").unwrap();
        assert_eq!(log.jobs.len(), 2);
        let e = read(&[0x1f, 0x8b, 0, 1, 2], "bad.gz").unwrap_err();
        assert_eq!(e.field, "gzip");
    }
}

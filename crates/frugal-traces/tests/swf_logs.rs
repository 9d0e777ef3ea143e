//! The shipped SWF logs, and the parser under arbitrary input.

use proptest::prelude::*;

use frugal_traces::swf::{parse, read};

fn log(name: &str) -> frugal_traces::swf::SwfLog {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/swf")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read(&bytes, name).unwrap()
}

#[test]
fn the_nasa_log_has_its_documented_jobs() {
    let l = log("NASA-iPSC-1993-3.1-cln.swf.gz");
    assert_eq!(l.jobs.len(), 18_239);
    assert_eq!(l.header_number("MaxProcs"), Some(128.0));
    assert_eq!(l.header_number("UnixStartTime"), Some(749_458_803.0));
    assert_eq!(
        l.jobs.iter().filter(|j| j.run_time == Some(0.0)).count(),
        173
    );
}

#[test]
fn the_kth_log_has_its_documented_jobs() {
    let l = log("KTH-SP2-1996-2.1-cln.swf.gz");
    assert_eq!(l.jobs.len(), 28_476);
    assert_eq!(
        l.jobs
            .iter()
            .filter(|j| j.allocated_processors.is_none())
            .count(),
        1
    );
}

proptest! {
    #[test]
    fn the_parser_never_panics_and_names_a_real_line(text in "[0-9 ;.\\-a-z:\n]{0,400}") {
        if let Err(e) = parse(&text, "t.swf") {
            prop_assert!(e.line <= text.lines().count() as u64, "{e}");
        }
    }

    #[test]
    fn records_round_trip(rows in prop::collection::vec(
        (0u32..100_000, 0u32..100_000, prop::option::of(1u32..512)), 1..30)) {
        let text: String = rows.iter().enumerate().map(|(i, (submit, run, procs))| format!(
            "{} {submit} -1 {run} {} -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
            i + 1, procs.map_or(-1, i64::from))).collect();
        let log = parse(&text, "t.swf").unwrap();
        for ((submit, run, procs), job) in rows.iter().zip(&log.jobs) {
            prop_assert_eq!(job.submit_time, Some(f64::from(*submit)));
            prop_assert_eq!(job.run_time, Some(f64::from(*run)));
            prop_assert_eq!(job.allocated_processors, procs.map(u64::from));
        }
    }
}

//! Property tests of the input parsers: any input gives jobs or an error naming a real
//! line — never a panic — and valid inputs round-trip.

use frugal_core::ClusterConfig;
use frugal_sim::workload::{parse_swim, read_jobs_csv, write_jobs_csv};
use proptest::prelude::*;

/// Lines of a SWIM trace, some corrupted by character-level edits.
fn swim_text() -> impl Strategy<Value = String> {
    let line = (
        0u64..100,
        0u64..10_000_000,
        0u64..10_000_000,
        0u64..10_000_000,
    );
    (
        prop::collection::vec(line, 0..20),
        prop::collection::vec((any::<usize>(), any::<char>()), 0..3),
    )
        .prop_map(|(lines, edits)| {
            let mut t = 0;
            let mut text: String = lines
                .iter()
                .enumerate()
                .map(|(i, &(gap, a, b, c))| {
                    t += gap;
                    format!("job{i}\t{t}\t{gap}\t{a}\t{b}\t{c}\n")
                })
                .collect();
            for (pos, ch) in edits {
                if !text.is_empty() {
                    let mut idx = pos % text.len();
                    while !text.is_char_boundary(idx) {
                        idx -= 1;
                    }
                    text.insert(idx, ch);
                }
            }
            text
        })
}

proptest! {
    #[test]
    fn swim_parser_never_panics_and_names_a_real_line(text in swim_text()) {
        let lines = text.lines().count() as u64;
        match parse_swim(&text, "t.tsv") {
            Ok(recs) => prop_assert!(recs.len() as u64 <= lines),
            Err(e) => prop_assert!(e.line >= 1 && e.line <= lines.max(1), "{e}"),
        }
    }

    #[test]
    fn swim_parser_survives_arbitrary_text(text in ".{0,400}") {
        let _ = parse_swim(&text, "t.tsv");
    }

    #[test]
    fn job_csv_parser_never_panics(body in "[a-z0-9_,.\\- \n]{0,300}") {
        let text = format!("id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n{body}");
        if let Err(e) = read_jobs_csv(&text, "j.csv", 0.3) {
            prop_assert!(e.line <= text.lines().count() as u64 + 1, "{e}");
        }
    }

    #[test]
    fn job_csv_round_trips(n in 1usize..20, seed in any::<u64>()) {
        let jobs = frugal_sim::workload::synthetic(&frugal_sim::workload::SyntheticConfig {
            load: frugal_sim::workload::Load::High,
            reading: frugal_core::Reading::PaperText, jobs: n, hybrid_penalty: 0.3, seed,
        });
        let back = read_jobs_csv(&write_jobs_csv(&jobs), "j.csv", 0.3).unwrap().jobs;
        prop_assert_eq!(back.len(), jobs.len());
        for (a, b) in back.iter().zip(&jobs) {
            prop_assert_eq!(&a.id, &b.id);
            prop_assert_eq!(a.executor_demand, b.executor_demand);
            prop_assert!((a.t_local - b.t_local).abs() < 1e-9);
        }
    }

    #[test]
    fn cluster_toml_parser_never_panics(text in "[a-z_\\[\\]=\"0-9. \n-]{0,300}") {
        let _ = ClusterConfig::from_toml(&text, "c.toml");
    }
}

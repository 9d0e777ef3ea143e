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
            reading: frugal_core::Reading::PaperText, jobs: n, hybrid_penalty: frugal_core::job::HYBRID_PENALTY, seed,
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

/// The keys of `SimulateSpec` with values an experiment file gives them (TOML), valid and
/// not, and one key the spec does not have.
const SPEC_FIELDS: &[(&str, &[&str])] = &[
    (
        "cluster",
        &["\"small-hybrid\"", "\"paper002-cloud\"", "\"no-such.toml\""],
    ),
    ("cluster-scale", &["1", "2", "0"]),
    ("job-copies", &["1", "3", "0"]),
    ("pricing", &["2", "\"real\"", "\"5\""]),
    ("billing", &["\"per-hour\"", "\"per-day\""]),
    ("load", &["\"light\"", "\"high\"", "\"both\""]),
    ("trace", &["\"no-such.tsv\""]),
    ("hour", &["0", "6", "\"day\"", "24"]),
    ("jobs", &["5", "60", "0", "20000"]),
    ("synthetic", &["true", "false"]),
    ("synthetic-reading", &["\"authors-code\"", "\"paper-text\""]),
    ("swf", &["\"nasa\"", "\"no-such.swf\""]),
    ("alibaba", &["\"default\""]),
    ("paper002", &["\"burst\"", "\"normal\""]),
    ("jobs-csv", &["\"no-such.csv\""]),
    ("vm-events", &["\"no-such.csv\""]),
    (
        "policies",
        &[
            "[\"gio\", \"first-fit\"]",
            "\"milp\"",
            "[]",
            "[\"offline\"]",
        ],
    ),
    ("offline-budget", &["10", "0"]),
    ("baseline", &["\"first-fit\"", "\"offline\""]),
    ("queue", &["\"edf\"", "\"deadline-first\"", "\"fifo\""]),
    ("admission-control", &["true"]),
    ("backfill", &["\"easy\""]),
    ("alpha", &["0.5", "1.5"]),
    ("hybrid-penalty", &["0.2", "-1"]),
    ("hybrid-rule", &["\"spanning\""]),
    ("kind-penalty", &["0", "101"]),
    ("policy-reading", &["\"authors-code\""]),
    ("application", &["\"sort\"", "\"mixed\""]),
    ("deadline-share", &["0.2", "2"]),
    ("deadline-factor", &["3", "0.5"]),
    ("milp-backend", &["\"microlp\""]),
    ("milp-time-limit", &["0.5", "0"]),
    ("charge-decision-time", &["true"]),
    ("boot-latency", &["30", "-5"]),
    ("keep-alive", &["60", "\"paid-hour\"", "\"never\""]),
    ("budget-per-hour", &["2.5", "0"]),
    ("seed", &["7"]),
    ("repetitions", &["2", "0"]),
    ("timings", &["true"]),
    ("polices", &["[\"gio\"]"]),
];

/// One key with one of its values, or now and then a value of any type.
fn spec_entry() -> impl Strategy<Value = (&'static str, toml::Value)> {
    let any_value = prop_oneof![
        (-2i64..30).prop_map(toml::Value::Integer),
        prop::sample::select(vec![-1.0, 0.5, f64::NAN]).prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
        "[a-z-]{0,8}".prop_map(toml::Value::String),
    ];
    prop::sample::select(SPEC_FIELDS).prop_flat_map(move |(key, values)| {
        let given: Vec<toml::Value> = values
            .iter()
            .map(|v| toml::from_str::<toml::Table>(&format!("v = {v}")).unwrap()["v"].clone())
            .collect();
        prop_oneof![5 => prop::sample::select(given), 1 => any_value.clone()]
            .prop_map(move |v| (key, v))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any table of spec keys is read, checked and planned, or refused naming a key of the
    /// table (a `SpecError`'s field, or the deserialiser's key) — never a panic.
    #[test]
    fn spec_tables_are_planned_or_refused_naming_a_key(
        entries in prop::collection::vec(spec_entry(), 0..5),
    ) {
        let table: toml::Table = entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let table_keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
        let spec: Result<frugal_sim::options::SimulateSpec, _> = toml::Value::Table(table).try_into();
        let Ok(spec) = spec else { return Ok(()) };
        match frugal_sim::options::plan(&spec, &frugal_sim::options::choices::no_agents) {
            Ok(_) => {}
            Err(e) => {
                if let Some(s) = e.downcast_ref::<frugal_core::spec::SpecError>() {
                    prop_assert!(table_keys.contains(&s.field.as_str()), "{s}");
                }
                let message = format!("{e:#}");
                prop_assert!(!message.is_empty());
            }
        }
    }
}

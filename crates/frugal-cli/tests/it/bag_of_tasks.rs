//! `frugal bag-of-tasks` end to end: the default comparison, its files, and bad input.

use crate::common;

use common::{frugal, refused, tmp};

#[test]
fn default_comparison_runs_from_anywhere_and_fits_120_columns() {
    let (code, out, err) = frugal(&["bag-of-tasks"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("nasa: 18066 of 18066 tasks (18239 records; dropped 173 without run time"),
        "{out}"
    );
    assert!(out.contains("71.11 % shorter than 1 h"));
    for policy in ["ffd", "ffd-ra", "ha", "ha-ra"] {
        let rows = out
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(policy))
            .count();
        assert_eq!(rows, 4, "{policy}: one row per α");
    }
    // FFD at α = 1 (hand-derived in the spec: one task per core): 8,983 VMs, $2,605.47.
    assert!(
        out.lines()
            .any(|l| l.starts_with("1   ffd ") && l.contains("2605.47") && l.contains("8983"))
    );
    assert!(out.contains("HA against FFD"));
    assert!(out.contains("C1/C2 HA rent saving"));
    let widest = out
        .lines()
        .filter(|l| !l.starts_with("  C") && !l.starts_with("Bags") && !l.starts_with("nasa:"))
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 120, "{widest} columns");
    assert!(!out.contains("-0.0"));
}

#[test]
fn csv_has_the_papers_columns_and_is_reproducible_across_threads() {
    let args = |threads: &str| {
        vec![
            "bag-of-tasks",
            "--trace",
            "nasa,kth",
            "--tasks",
            "3000",
            "--alpha",
            "1,3",
            "--format",
            "csv",
            "--repeats",
            "0",
            "--threads",
            threads,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let run = |t: &str| {
        let a = args(t);
        let (code, out, err) = frugal(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{err}");
        out
    };
    let one = run("1");
    assert_eq!(one, run("2"), "byte-identical for any thread count");
    let mut r = csv::Reader::from_reader(one.as_bytes());
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "trace",
        "alpha",
        "policy",
        "rent_cost_usd",
        "local_load_core_h",
        "makespan_s",
        "utilisation_pct",
        "energy_kwh",
        "vms_rented",
        "overhead_s",
        "deadline_met_pct",
        "lower_bound_usd",
        "gap_pct",
    ] {
        assert!(head.iter().any(|h| h == col), "missing {col}: {head:?}");
    }
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2 * 2 * 4);
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    for row in &rows {
        assert_eq!(&row[col("deadline_met_pct")], "100.0");
        assert_eq!(
            &row[col("overhead_s")],
            "",
            "--repeats 0 leaves overhead empty"
        );
        assert_eq!(&row[col("tasks")], "3000");
    }
    assert!(rows.iter().any(|r| &r[col("trace")] == "kth"));
    // Logs joined by `+` concatenate: NASA's 18,066 tasks then KTH's.
    let (code, out, err) = frugal(&[
        "bag-of-tasks",
        "--trace",
        "nasa+kth",
        "--tasks",
        "20000",
        "--alpha",
        "1",
        "--policies",
        "ffd",
        "--repeats",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("nasa+kth: 20000 of 46533 tasks (46715 records; dropped 181 without run time, 1 without processors"), "{out}");
}

#[test]
fn out_writes_results_versus_and_provenance() {
    let dir = tmp("bot-out");
    let (code, _, err) = frugal(&[
        "bag-of-tasks",
        "--alpha",
        "2",
        "--repeats",
        "1",
        "--scale",
        "1,2",
        "--out",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let results = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(results.lines().count(), 1 + 2 * 4);
    let versus = std::fs::read_to_string(dir.join("versus.csv")).unwrap();
    assert!(
        versus.starts_with("trace,scale,tasks,alpha,ha_rent_saving_pct"),
        "{versus}"
    );
    assert_eq!(versus.lines().count(), 1 + 2);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["command"], "bag-of-tasks");
    assert_eq!(summary["traces"][0]["tasks"], 18066);
    assert_eq!(
        summary["traces"][0]["files"][0]["sha256"]
            .as_str()
            .unwrap()
            .len(),
        64
    );
    assert_eq!(
        summary["machines"][1]["setup"]["pms"]
            .as_array()
            .unwrap()
            .len(),
        30
    );
}

#[test]
fn optimal_on_a_small_bag_and_a_custom_machine_file() {
    let dir = tmp("bot-machines");
    let machines = dir.join("m.toml");
    std::fs::write(
        &machines,
        "[[pm]]\nname = \"p\"\ncount = 1\ncores = 2\nghz = 2.5\nidle_watts = 50\npeak_watts = 100\n\
                               [[vm]]\nname = \"v\"\ncores = 2\nghz = 2.7\nusd_per_hour = 1\n",
    )
    .unwrap();
    let (code, out, err) = frugal(&[
        "bag-of-tasks",
        "--machines",
        machines.to_str().unwrap(),
        "--tasks",
        "8",
        "--alpha",
        "1",
        "--policies",
        "ha,optimal",
        "--format",
        "csv",
        "--repeats",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let head = r.headers().unwrap().clone();
    let rent = head.iter().position(|h| h == "rent_cost_usd").unwrap();
    let bound = head.iter().position(|h| h == "lower_bound_usd").unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let (ha, opt): (f64, f64) = (
        rows[0][rent].parse().unwrap(),
        rows[1][rent].parse().unwrap(),
    );
    let lb: f64 = rows[1][bound].parse().unwrap();
    assert!(
        lb <= opt && opt <= ha,
        "bound {lb} ≤ optimum {opt} ≤ HA {ha}"
    );
}

#[test]
fn bad_input_is_refused_with_the_flag_file_line_or_field() {
    let dir = tmp("bot-bad");
    let swf = dir.join("bad.swf");
    std::fs::write(&swf, "; MaxProcs: 4\n1 0 -1 100 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 -1 x 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    let empty = dir.join("empty.swf");
    std::fs::write(&empty, "1 0 -1 0 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    let two_vms = dir.join("two.toml");
    std::fs::write(&two_vms, "[[vm]]\nname = \"a\"\ncores = 2\nghz = 2.7\nusd_per_hour = 1\n[[vm]]\nname = \"b\"\ncores = 4\nghz = 2.7\nusd_per_hour = 2\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--trace", swf.to_str().unwrap()],
            "bad.swf:3: field `run_time`: not a number",
        ),
        (
            vec!["--trace", empty.to_str().unwrap()],
            "no task: all 1 records lack a positive run time",
        ),
        (
            vec!["--trace", "/nonexistent.swf"],
            "--trace: /nonexistent.swf: not `nasa`, `kth` or a readable SWF file",
        ),
        (
            vec!["--tasks", "20000"],
            "--tasks: 20000: the nasa log has 18066 tasks",
        ),
        (
            vec!["--policies", "optimal"],
            "--policies: optimal solves bags of at most 12 tasks",
        ),
        (
            vec![
                "--machines",
                two_vms.to_str().unwrap(),
                "--vm-usd-per-hour",
                "1",
            ],
            "--vm-usd-per-hour: applies to a machine set with one VM type",
        ),
        (
            vec!["--machines", "/nonexistent.toml"],
            "--machines: /nonexistent.toml",
        ),
        (vec!["--alpha", "0"], "--alpha"),
        (vec!["--scale", "1001"], "--scale"),
        (
            vec!["--tasks", "10", "--replicate", "100"],
            "cannot be used with",
        ),
        (
            vec!["--electricity-usd-per-kwh", "-1"],
            "--electricity-usd-per-kwh",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["bag-of-tasks"];
        args.extend(extra.iter());
        refused(&args, want);
    }
}

//! The `frugal` binary end to end.

use std::path::Path;
use std::process::Command;

fn frugal(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(args)
        .output()
        .expect("frugal runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn main_job_prints_both_tables_with_every_policy() {
    let (ok, out, err) = frugal(&[]);
    assert!(ok, "{err}");
    assert!(out.contains(
        "light load: FB-2009_samples_24_times_1hr_0.tsv hour 0, first 50 jobs (50 jobs)"
    ));
    assert!(out.contains(
        "high load: FB-2009_samples_24_times_1hr_0.tsv hour 6, first 100 jobs (100 jobs)"
    ));
    for p in [
        "round-robin",
        "round-robin-consolidate",
        "first-fit",
        "best-fit-decreasing",
        "gio",
        "asq",
        "morpheus",
    ] {
        let row = format!("│ {p} ");
        assert_eq!(
            out.matches(&row).count(),
            2,
            "{p} should head one row per table"
        );
    }
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn out_dir_records_are_byte_identical_for_the_same_seed() {
    let tmp = std::env::temp_dir().join(format!("frugal-cli-{}", std::process::id()));
    let (a, b) = (tmp.join("a"), tmp.join("b"));
    for d in [&a, &b] {
        let (ok, _, err) = frugal(&[
            "simulate",
            "--synthetic",
            "--load",
            "light",
            "--jobs",
            "200",
            "--policies",
            "gio,morpheus",
            "--seed",
            "9",
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
    }
    let run = "synthetic-light-load-200-jobs-paper-000-6-1/gio-seed9";
    for f in ["jobs.csv", "vms.csv", "cost_over_time.csv"] {
        let rel = format!("{run}/{f}");
        assert_eq!(read(&a, &rel), read(&b, &rel), "{rel} differs");
    }
    assert_eq!(read(&a, &format!("{run}/jobs.csv")).lines().count(), 201);
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn bad_inputs_name_file_line_and_field() {
    let tmp = std::env::temp_dir().join(format!("frugal-bad-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let toml = tmp.join("c.toml");
    std::fs::write(
        &toml,
        "[[instance_type]]\nname = \"a\"\ncores = -1\nmemory_gib = 4\n",
    )
    .unwrap();
    let (ok, _, err) = frugal(&["simulate", "--cluster", toml.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("c.toml: line 3"), "{err}");
    let trace = tmp.join("t.tsv");
    std::fs::write(&trace, "job0\t1\t1\t5\t0\t1\njob1\t3\t2\t5\tlots\t1\n").unwrap();
    let (ok, _, err) = frugal(&[
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--hour",
        "0",
    ]);
    assert!(!ok);
    assert!(err.contains("t.tsv:2: field `shuffle_bytes`"), "{err}");
    let (ok, _, err) = frugal(&["simulate", "--policies", "first-fit,best-fit"]);
    assert!(!ok);
    assert!(err.contains("unknown policy \"best-fit\""), "{err}");
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn loadtest_stores_every_accepted_submission() {
    let (ok, out, err) = frugal(&["loadtest", "--seconds", "1", "--clients", "4"]);
    assert!(ok, "{out}{err}");
    let accepted: usize = out
        .split("submissions accepted")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("an accepted count");
    assert!(accepted > 50, "{out}");
    assert!(
        out.contains(&format!("stored durably          {accepted} of {accepted}")),
        "{out}"
    );
    assert!(out.contains(&format!("({accepted} placed)")), "{out}");
}

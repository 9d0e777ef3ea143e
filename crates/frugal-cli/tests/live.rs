//! `frugal live`: real Spark jobs on the hybrid testbed (one host per site, cgroups,
//! rate-limited links), the driver's rows, the bill against `frugal whatif`, the
//! prediction beside the measurement, bad input refused by name, and nothing left behind
//! by a finished or an interrupted run.
//!
//! Needs root, Java 17 and a Python with pyspark (`FRUGAL_PYTHON`); `.ci/run netns` runs
//! them. Without root each says so and passes nothing off as tested.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use frugal_service::provision::testbed::leftovers;

fn python() -> String {
    std::env::var("FRUGAL_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn can_run() -> bool {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: live runs need root");
        return false;
    }
    true
}

/// `frugal live` on the smoke workload and testbed with `prefix`, writing to `out`.
fn live(prefix: &str, subnet: &str, policies: &str, out: &Path) -> Command {
    let smoke = repo().join("spark/live-smoke.csv");
    live_with(prefix, subnet, policies, out, &smoke, &python())
}

/// [`live`] on the jobs `jobs` with the Python `python`.
fn live_with(
    prefix: &str,
    subnet: &str,
    policies: &str,
    out: &Path,
    jobs: &Path,
    python: &str,
) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_frugal"));
    cmd.arg("live")
        .arg("--jobs-csv")
        .arg(jobs)
        .arg("--cluster")
        .arg(repo().join("spark/testbed-smoke.toml"))
        .args(["--policies", policies, "--input-scale", "0.5"])
        .args(["--prefix", prefix, "--subnet", subnet])
        .args(["--python", python])
        .arg("--apps-dir")
        .arg(repo().join("spark"))
        .arg("--out")
        .arg(out);
    cmd
}

/// An empty scratch folder for the test `tag`.
fn scratch(tag: &str) -> PathBuf {
    let out = std::env::temp_dir().join(format!("frugal-live-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    out
}

fn read_csv(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.deserialize().map(Result::unwrap).collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn live_runs_write_rows_whose_bill_whatif_reproduces_and_leave_nothing() {
    if !can_run() {
        return;
    }
    let out = scratch("run");
    let run = live("fglt1", "11", "first-fit,round-robin", &out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(leftovers("fglt1").is_empty(), "{:?}", leftovers("fglt1"));
    let rows = read_csv(&out.join("live.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let f = |k: &str| r[k].parse::<f64>().unwrap();
        assert_eq!((f("jobs"), f("completed")), (3.0, 3.0), "{r:?}");
        assert!(f("cost_usd") > 0.0);
        // The simulator replaying the history with the measured run times gives the
        // measured bill exactly.
        let replayed = f("replayed_cost_usd");
        assert!(
            (replayed - f("cost_usd")).abs() <= 1e-9 * f("cost_usd"),
            "{r:?}"
        );
        assert!(f("predicted_cost_usd") > 0.0);
        let error = (f("predicted_cost_usd") - f("cost_usd")) / f("cost_usd") * 100.0;
        assert!((error - f("cost_error_pct")).abs() < 1e-6, "{r:?}");
        // `frugal whatif` on the run's database: the same measured bill.
        let db = out.join(&r["policy"]).join("state.db");
        let whatif = Command::new(env!("CARGO_BIN_EXE_frugal"))
            .args(["whatif", "--format", "csv", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        assert!(whatif.status.success(), "{}", stderr(&whatif));
        let text = String::from_utf8(whatif.stdout).unwrap();
        let mut w = csv::Reader::from_reader(text.as_bytes());
        let actual: std::collections::HashMap<String, String> =
            w.deserialize().next().unwrap().unwrap();
        assert_eq!(actual["run"], "actual");
        let billed: f64 = actual["cost_usd"].parse().unwrap();
        assert!((billed - f("cost_usd")).abs() < 1e-12, "{billed} {r:?}");
    }
    // Round robin spreads each 2-executor job over both sites; first fit keeps the first
    // job on the local VM.
    let jobs = read_csv(&out.join("live-jobs.csv"));
    assert_eq!(jobs.len(), 6);
    let placed = |policy: &str, job: &str| {
        jobs.iter()
            .find(|j| j["policy"] == policy && j["job"] == job)
            .map(|j| j["placement"].clone())
            .unwrap()
    };
    assert_eq!(placed("first-fit", "wc1"), "0:2");
    assert_eq!(placed("round-robin", "wc1"), "0:1 1:1");
    for j in &jobs {
        assert_eq!(j["state"], "completed", "{j:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// Profiling (paper 000 §7.3): the class runs alone on one site under first fit and
/// across the sites under round robin; the means become the live run's estimates.
#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn profiling_measures_each_class_alone_on_one_site_and_across_sites() {
    if !can_run() {
        return;
    }
    let out = scratch("prof");
    let one = out.join("one.csv");
    std::fs::write(
        &one,
        "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
         wc,cpu_bound,2,1,1,0,,600,780\n",
    )
    .unwrap();
    let o = live_with(
        "fglt4",
        "14",
        "first-fit",
        &out.join("run"),
        &one,
        &python(),
    )
    .args(["--profile", "1"])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(leftovers("fglt4").is_empty(), "{:?}", leftovers("fglt4"));
    let profile = read_csv(&out.join("run/profile.csv"));
    let placements: Vec<&str> = profile.iter().map(|r| r["placement"].as_str()).collect();
    assert_eq!(placements, ["one-site", "across-sites"], "{profile:?}");
    for r in &profile {
        assert_eq!(
            (r["application"].as_str(), r["runs"].as_str()),
            ("wordcount", "1")
        );
        let mean: f64 = r["mean_s"].parse().unwrap();
        assert!(mean > 1.0 && mean < 600.0, "{r:?}");
    }
    let profiled = read_csv(&out.join("run/jobs-profiled.csv"));
    let mean = |r: usize| profile[r]["mean_s"].parse::<f64>().unwrap();
    let t_local: f64 = profiled[0]["t_local_s"].parse().unwrap();
    let t_hybrid: f64 = profiled[0]["t_hybrid_s"].parse().unwrap();
    assert!((t_local - mean(0)).abs() < 1e-3, "{profiled:?}");
    assert!(
        (t_hybrid - mean(1).max(mean(0))).abs() < 1e-3,
        "{profiled:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn an_interrupted_live_run_leaves_no_namespace_cgroup_or_process() {
    if !can_run() {
        return;
    }
    let out = scratch("int");
    let child = live("fglt2", "12", "first-fit", &out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the first VM's host runs its agent (its namespace exists).
    let t0 = Instant::now();
    while !Path::new("/run/netns/fglt2-vm0").exists() {
        assert!(t0.elapsed() < Duration::from_secs(180), "no host came up");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(5));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGINT,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert!(leftovers("fglt2").is_empty(), "{:?}", leftovers("fglt2"));
    let java = Command::new("pgrep")
        .args(["-f", "fglt2"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&java.stdout).trim().is_empty(),
        "processes of the run remain"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_live_input_is_refused_by_name() {
    let out = scratch("bad");
    let unknown = live("fglt3", "13", "first-fit,fastest", &out)
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("fastest"), "{}", stderr(&unknown));
    for (flag, value) in [
        ("--core-share", "0"),
        ("--prefix", "much-too-long"),
        ("--time-scale", "0"),
    ] {
        let o = live("fglt3", "13", "first-fit", &out)
            .args([flag, value])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert!(stderr(&o).contains(flag), "{}", stderr(&o));
    }
    let bad = out.join("bad.csv");
    std::fs::write(
        &bad,
        "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
         a,cpu_bound,zero,1,1,0,,60,\n",
    )
    .unwrap();
    let row = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .arg("live")
        .arg("--jobs-csv")
        .arg(&bad)
        .arg("--cluster")
        .arg(repo().join("spark/testbed-smoke.toml"))
        .args(["--policies", "first-fit", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let e = stderr(&row);
    assert!(e.contains("bad.csv:2") && e.contains("`executors`"), "{e}");
    // Without root; without Java (a PATH with iproute2 only); a Python without pyspark.
    if !nix::unistd::geteuid().is_root() {
        let o = live("fglt3", "13", "first-fit", &out).output().unwrap();
        assert!(stderr(&o).contains("need root"), "{}", stderr(&o));
        return;
    }
    let ip = Command::new("sh")
        .args(["-c", "command -v ip"])
        .output()
        .unwrap();
    let ip = PathBuf::from(String::from_utf8(ip.stdout).unwrap().trim());
    let no_java = live("fglt3", "13", "first-fit", &out)
        .env("PATH", ip.parent().unwrap())
        .output()
        .unwrap();
    assert!(stderr(&no_java).contains("Java 17"), "{}", stderr(&no_java));
    let smoke = repo().join("spark/live-smoke.csv");
    let no_pyspark = live_with("fglt3", "13", "first-fit", &out, &smoke, "/bin/false")
        .output()
        .unwrap();
    let e = stderr(&no_pyspark);
    assert!(e.contains("pyspark") && e.contains("/bin/false"), "{e}");
    assert!(leftovers("fglt3").is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

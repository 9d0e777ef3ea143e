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
        frugal_core::testing::skip("root (live runs make network namespaces and cgroups)");
        return false;
    }
    true
}

/// `frugal live` on the smoke workload and testbed with `prefix`, writing to `out`, with
/// the CSV's estimates (no profiling).
fn live(prefix: &str, subnet: &str, policies: &str, out: &Path) -> Command {
    let smoke = repo().join("spark/live-smoke.csv");
    let mut cmd = live_with(prefix, subnet, policies, out, &smoke, &python());
    cmd.args(["--profile", "0"]);
    cmd
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
    let contention = out.join("testbed-contention.toml");
    std::fs::write(&contention, "capacity = 2.5\n").unwrap();
    let run = live("fglt1", "11", "first-fit,round-robin", &out)
        .arg("--contention")
        .arg(&contention)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(leftovers("fglt1").is_empty(), "{:?}", leftovers("fglt1"));
    let rows = read_csv(&out.join("live.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        let f = |k: &str| r[k].parse::<f64>().unwrap();
        assert_eq!((f("jobs"), f("completed")), (3.0, 3.0), "{r:?}");
        assert_eq!(r["workload"], "live-smoke");
        // One job of each application: its JCT is the application's mean.
        for app in ["wordcount", "sort", "pagerank"] {
            assert!(f(&format!("{app}_mean_jct_s")) > 0.0, "{r:?}");
        }
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
        // What the run's control plane and VMs used of the machine, from their cpuacct
        // groups: both worked, and the VMs (the executors) did most of it.
        let (control, vms) = (f("control_cpu_s"), f("vm_cpu_s"));
        assert!(control > 0.0 && vms > control, "{r:?}");
        assert!(control + vms < 2.0 * f("wall_s") + 1.0, "{r:?}");
        // The prediction with the contention model, beside it.
        assert_eq!(r["repetition"], "1");
        let error = (f("contended_cost_usd") - f("cost_usd")) / f("cost_usd") * 100.0;
        assert!((error - f("contended_error_pct")).abs() < 1e-6, "{r:?}");
        // `frugal whatif` on the run's database: the same measured bill.
        let db = out.join("live-smoke").join(&r["policy"]).join("state.db");
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
    // A smoke calibration: the six measured jobs (three at once at most) give a model
    // that simulate reads.
    let fitted = out.join("fitted.toml");
    let fit = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(["contention", "--live-jobs"])
        .arg(out.join("live-jobs.csv"))
        .arg("--out")
        .arg(&fitted)
        .output()
        .unwrap();
    assert!(fit.status.success(), "{}", stderr(&fit));
    let said = String::from_utf8_lossy(&fit.stdout).into_owned();
    assert!(said.contains("fitted on 2 runs, 6 jobs"), "{said}");
    let model = frugal_core::ContentionModel::read(&fitted).unwrap();
    assert!(model.capacity > 0.0, "{model:?}");
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

/// A live experiment on the smoke workload and testbed (prefix `fglt5`), with one claim,
/// written into `dir/smoke-live.toml`.
fn smoke_experiment(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("smoke-live.toml"),
        format!(
            r#"title = "Live smoke"
paper = "smoke"
system = "live"

[args]
jobs-csv = ["{jobs}"]
cluster = "{cluster}"
policies = ["first-fit", "round-robin"]
input-scale = 0.5
profile = 0
prefix = "fglt5"
subnet = 15

[recorded]
rows = "recorded/smoke-live.csv"
quick_rows = "recorded/smoke-live.csv"
args = {{}}
note = "smoke"

[[claim]]
claim = "First fit costs less than round robin"
source = "smoke"
published = "cheaper"
metric = "cost_usd"
change = ["first-fit", "round-robin"]
at_most = 0
direction = "lower"
real_cluster = true
"#,
            jobs = repo().join("spark/live-smoke.csv").display(),
            cluster = repo().join("spark/testbed-smoke.toml").display(),
        ),
    )
    .unwrap();
}

/// `frugal reproduce --live`: a live experiment's configuration runs through `frugal live`,
/// its rows become the experiment's recorded rows, and its claims are judged on them and
/// labelled as measured live.
#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn reproduce_live_records_the_rows_and_judges_the_claims_on_them() {
    if !can_run() {
        return;
    }
    let out = scratch("repro");
    let experiments = out.join("experiments");
    smoke_experiment(&experiments);
    let o = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .arg("reproduce")
        .arg("--experiments")
        .arg(&experiments)
        .args(["--live", "smoke-live", "--python", &python()])
        .arg("--apps-dir")
        .arg(repo().join("spark"))
        .arg("--out")
        .arg(out.join("report"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(leftovers("fglt5").is_empty(), "{:?}", leftovers("fglt5"));
    let rows = read_csv(&out.join("report/recorded/smoke-live.csv"));
    let policies: Vec<&str> = rows.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(policies, ["first-fit", "round-robin"]);
    assert!(
        rows.iter()
            .all(|r| r["workload"] == "live-smoke" && r["completed"] == "3")
    );
    let md = std::fs::read_to_string(out.join("report/results.md")).unwrap();
    assert!(
        md.contains(
            "First fit costs less than round robin | paper (real cluster; testbed at reduced scale, measured live here)"
        ),
        "{md}"
    );
    // One run per policy cannot tell a difference from run-to-run noise.
    let line = md
        .lines()
        .find(|l| l.starts_with("| First fit costs less than round robin |"))
        .unwrap();
    assert!(line.contains("(one run) | inconclusive |"), "{line}");
    // The prediction: each policy's bill, τ and the errors of the predicted bills.
    assert!(
        md.contains("- Prediction (smoke-live): ")
            && md.contains("live-smoke (one run per policy): measured first-fit $")
            && md.contains("; the papers' model τ "),
        "{md}"
    );
    assert!(
        out.join("report/live/smoke-live/0/live-smoke/first-fit/state.db")
            .exists()
    );
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
    let profiled = read_csv(&out.join("run/one-submitted.csv"));
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
/// Each reservation worker runs in a cpu group of its own (its executors' share of the
/// machine does not depend on what else their VM runs); SIGINT mid-run leaves nothing.
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
    // Under first fit the first job's reservation worker (2 executors of 1 core) runs
    // in a cpu group of its own below VM 0's, capped at 2 × 0.25 of a core; VM 0's group,
    // which holds the agent, is not capped.
    let vm0 = Path::new("/sys/fs/cgroup/cpu/fglt2/vm0");
    let worker = loop {
        let found = std::fs::read_dir(vm0).ok().and_then(|d| {
            d.flatten()
                .map(|e| e.path())
                .find(|p| p.is_dir() && p.join("cgroup.procs").exists())
        });
        if let Some(w) = found {
            break w;
        }
        assert!(t0.elapsed() < Duration::from_secs(180), "no worker group");
        std::thread::sleep(Duration::from_millis(200));
    };
    let read = |f: &str| std::fs::read_to_string(worker.join(f)).unwrap_or_default();
    assert_eq!(
        read("cpu.cfs_quota_us").trim(),
        "50000",
        "{}",
        worker.display()
    );
    assert_eq!(
        std::fs::read_to_string(vm0.join("cpu.cfs_quota_us"))
            .unwrap()
            .trim(),
        "-1"
    );
    // A VM weighs 1024 per core of its instance type (2 cores); the control plane, where
    // the service runs, weighs as much as both VMs together.
    let shares = |g: &str| {
        std::fs::read_to_string(
            Path::new("/sys/fs/cgroup/cpu/fglt2")
                .join(g)
                .join("cpu.shares"),
        )
        .unwrap_or_default()
        .trim()
        .to_string()
    };
    assert_eq!(shares("vm0"), "2048");
    assert_eq!(shares("control"), "4096");
    let control = std::fs::read_to_string("/sys/fs/cgroup/cpu/fglt2/control/cgroup.procs")
        .unwrap_or_default();
    let serves = control.lines().any(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"serve"))
    });
    assert!(
        serves,
        "frugal serve is not in the control plane's group: {control}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        !read("cgroup.procs").trim().is_empty(),
        "the worker is not in its group"
    );
    std::thread::sleep(Duration::from_secs(3));
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
    // An experiment that is not a live one.
    smoke_experiment(&out.join("experiments"));
    std::fs::copy(
        repo().join("experiments/p003-bags.toml"),
        out.join("experiments/p003-bags.toml"),
    )
    .unwrap();
    let not_live = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .arg("reproduce")
        .arg("--experiments")
        .arg(out.join("experiments"))
        .args(["--live", "p003-bags", "--out"])
        .arg(out.join("reproduce"))
        .output()
        .unwrap();
    assert_eq!(not_live.status.code(), Some(2));
    let e = stderr(&not_live);
    assert!(
        e.contains("--live p003-bags: not a live experiment") && e.contains("smoke-live"),
        "{e}"
    );
    // Without root; without Java (a PATH with the testbed's tools only); a Python without
    // pyspark.
    if !nix::unistd::geteuid().is_root() {
        let o = live("fglt3", "13", "first-fit", &out).output().unwrap();
        assert!(stderr(&o).contains("need root"), "{}", stderr(&o));
        let reproduce = Command::new(env!("CARGO_BIN_EXE_frugal"))
            .arg("reproduce")
            .arg("--experiments")
            .arg(out.join("experiments"))
            .args(["--live", "smoke-live", "--out"])
            .arg(out.join("reproduce"))
            .output()
            .unwrap();
        assert!(
            stderr(&reproduce).contains("need root"),
            "{}",
            stderr(&reproduce)
        );
        return;
    }
    // A PATH holding the testbed's tools (iproute2, nsenter) and nothing else.
    let tools = out.join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    for program in ["ip", "tc", "nsenter"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .output()
            .unwrap();
        let found = PathBuf::from(String::from_utf8(found.stdout).unwrap().trim());
        std::os::unix::fs::symlink(found, tools.join(program)).unwrap();
    }
    let no_java = live("fglt3", "13", "first-fit", &out)
        .env("PATH", &tools)
        .output()
        .unwrap();
    assert!(stderr(&no_java).contains("Java 17"), "{}", stderr(&no_java));
    let smoke = repo().join("spark/live-smoke.csv");
    let no_pyspark = live_with("fglt3", "13", "first-fit", &out, &smoke, "/bin/false")
        .output()
        .unwrap();
    let e = stderr(&no_pyspark);
    assert!(e.contains("pyspark") && e.contains("/bin/false"), "{e}");
    // `frugal reproduce --live` refuses as `frugal live` does, before any run.
    let reproduce = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .arg("reproduce")
        .arg("--experiments")
        .arg(out.join("experiments"))
        .args(["--live", "smoke-live", "--python", "/bin/false"])
        .arg("--out")
        .arg(out.join("reproduce"))
        .output()
        .unwrap();
    let e = stderr(&reproduce);
    assert!(!reproduce.status.success());
    assert!(e.contains("pyspark") && e.contains("/bin/false"), "{e}");
    assert!(leftovers("fglt3").is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

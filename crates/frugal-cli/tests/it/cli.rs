//! The `frugal` binary end to end.

use crate::common;

use std::path::Path;

use common::{frugal, refused, tmp, tree, words};

#[test]
fn main_job_prints_both_tables_with_every_policy_within_120_columns() {
    let (code, out, err) = frugal(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(
        "light load: FB-2009_samples_24_times_1hr_0.tsv hour 0, first 50 jobs (50 jobs)"
    ));
    assert!(out.contains(
        "high load: FB-2009_samples_24_times_1hr_0.tsv hour 6, first 100 jobs (100 jobs)"
    ));
    let default_set = frugal_core::PolicyKind::ALL
        .into_iter()
        .filter(frugal_core::PolicyKind::in_default_set);
    for p in default_set.map(|k| k.name()) {
        let rows = out
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(p));
        assert_eq!(rows.count(), 2, "{p} should head one row per table");
    }
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 120, "{widest} columns");
    assert!(
        out.contains("round-robin"),
        "the vs column names its baseline"
    );
    assert!(!out.contains("-0.00"));
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn a_parallel_run_writes_the_same_bytes_as_a_serial_one() {
    let t = tmp("parallel");
    let (a, b) = (t.join("serial"), t.join("parallel"));
    let mut outputs = Vec::new();
    for (d, threads) in [(&a, "1"), (&b, "3")] {
        let (code, out, err) = frugal(&[
            "simulate",
            "--synthetic",
            "--load",
            "both",
            "--jobs",
            "150",
            "--policies",
            "gio,morpheus,optimal",
            "--seed",
            "9",
            "--repetitions",
            "3",
            "--threads",
            threads,
            "--format",
            "csv",
            "--out",
            d.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        outputs.push(out);
    }
    assert_eq!(outputs[0], outputs[1]);
    let (ta, tb) = (tree(&a), tree(&b));
    assert_eq!(ta.len(), 2 * 4 * 3 * 4 + 1, "{:?}", ta.keys());
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (name, bytes) in &ta {
        assert!(
            tb[name] == *bytes,
            "{name} differs between the serial and parallel runs"
        );
    }
    let run = "synthetic-light-load-150-jobs-paper-000-6-1/gio-seed10";
    assert_eq!(read(&a, &format!("{run}/jobs.csv")).lines().count(), 151);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&a, &format!("{run}/summary.json"))).unwrap();
    assert_eq!(summary["provenance"]["seed"], 10);
    assert_eq!(summary["provenance"]["repetition"], 1);
    assert_eq!(summary["run"]["policy"], "gio");
    // results.csv: a header and one row per workload × policy × repetition.
    assert_eq!(read(&a, "results.csv").lines().count(), 1 + 2 * 4 * 3);
    std::fs::remove_dir_all(&t).ok();
}

#[test]
fn summary_records_the_inputs_digest_and_the_configuration() {
    let t = tmp("provenance");
    let (code, _, err) = frugal(&[
        "simulate",
        "--policies",
        "first-fit",
        "--load",
        "light",
        "--out",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let run = "light-load-fb-2009-samples-24-times-1hr-0-tsv-hour-0-first-50-jobs/first-fit-seed1";
    let s: serde_json::Value =
        serde_json::from_str(&read(&t, &format!("{run}/summary.json"))).unwrap();
    let p = &s["provenance"];
    assert_eq!(p["frugal_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["configuration"]["policies"][0], "first-fit");
    assert_eq!(p["configuration"]["load"], "light");
    let trace = &p["inputs"][0];
    assert_eq!(trace["role"], "trace");
    assert_eq!(trace["sha256"].as_str().unwrap().len(), 64);
    // jobs.csv leaves met_deadline empty for jobs without a deadline.
    let jobs = read(&t, &format!("{run}/jobs.csv"));
    let mut rdr = csv::Reader::from_reader(jobs.as_bytes());
    let head = rdr.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (deadline, met) = (col("deadline_s"), col("met_deadline"));
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert!(rows.iter().any(|r| r[deadline].is_empty()));
    for r in &rows {
        assert_eq!(r[deadline].is_empty(), r[met].is_empty(), "{r:?}");
    }
    // The run time differs from t_local_s only for a reason the row names.
    let (t_local, run_time) = (col("t_local_s"), col("run_time_s"));
    let (hybrid, mismatch) = (col("hybrid"), col("kind_mismatch"));
    for r in rows.iter().filter(|r| !r[run_time].is_empty()) {
        let (given, got): (f64, f64) = (r[t_local].parse().unwrap(), r[run_time].parse().unwrap());
        if (got - given).abs() > 1e-6 * given {
            assert!(&r[hybrid] == "true" || &r[mismatch] == "true", "{r:?}");
        }
    }
    std::fs::remove_dir_all(&t).ok();
}

#[test]
fn misuse_exits_2_naming_the_flag() {
    let t = tmp("misuse");
    let csv = t.join("jobs.csv");
    std::fs::write(
        &csv,
        "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
         a,cpu_bound,1,4,4,0,,50,60\n",
    )
    .unwrap();
    let toml = t.join("c.toml");
    std::fs::write(
        &toml,
        "[[instance_type]]\nname = \"a\"\ncores = 4\nmemory_gib = 16\n\n\
         [[vms]]\ninstance_type = \"a\"\nsite = \"cloud\"\ncount = 2\nprice_per_hour = 1.0\n",
    )
    .unwrap();
    let (csv, toml) = (csv.to_str().unwrap(), toml.to_str().unwrap());
    // Each case's argv as one line; $CSV and $TOML stand for the files above.
    let cases: &[(&str, &str)] = &[
        ("--jobs 5", "--hour"),
        ("--hour 3 --load light", "--load"),
        ("--jobs-csv $CSV --load high", "--load"),
        ("--cluster $TOML --pricing 2", "--pricing"),
        ("--cluster paper002-cloud --pricing 2", "--pricing"),
        ("--jobs-csv $CSV --hybrid-penalty 0.2", "--hybrid-penalty"),
        ("--repetitions 0", "--repetitions"),
        (
            "--policies milp --milp-time-limit 1e20",
            "--milp-time-limit",
        ),
        ("--policies gio --milp-time-limit 1", "--milp-time-limit"),
        ("--alpha -1", "--alpha"),
        ("--keep-alive NaN", "--keep-alive"),
        ("--boot-latency -5", "--boot-latency"),
        ("--policies frist-fit", "first-fit"),
        ("--queue fifo", "--queue"),
        ("--synthetic --deadline-share 0.2", "--deadline-share"),
        ("--hour 0 --jobs 500", "--jobs"),
        ("--policies gio --alpha 0.5", "--alpha"),
        ("--policies rl:/nonexistent", "--policies"),
        (
            "--policies first-fit --policy-queue milp=edf",
            "--policy-queue",
        ),
        (
            "--policies milp --policy-queue milp=edf,milp=fcfs",
            "--policy-queue",
        ),
        ("--policy-queue milp=fifo", "--policy-queue"),
        ("--policy-queue ilp=edf", "--policy-queue"),
        ("--policies interference-aware", "--contention"),
    ];
    for (args, flag) in cases {
        let line = format!("simulate {args}")
            .replace("$CSV", csv)
            .replace("$TOML", toml);
        refused(&words(&line), flag);
    }
    std::fs::remove_dir_all(&t).ok();
}

#[test]
fn bad_inputs_name_file_line_and_field() {
    let t = tmp("bad");
    let toml = t.join("c.toml");
    std::fs::write(
        &toml,
        "[[instance_type]]\nname = \"a\"\ncores = -1\nmemory_gib = 4\n",
    )
    .unwrap();
    let (code, _, err) = frugal(&["simulate", "--cluster", toml.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("c.toml: line 3"), "{err}");
    let trace = t.join("t.tsv");
    std::fs::write(&trace, "job0\t1\t1\t5\t0\t1\njob1\t3\t2\t5\tlots\t1\n").unwrap();
    let (code, _, err) = frugal(&[
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--hour",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("t.tsv:2: field `shuffle_bytes`"), "{err}");
    std::fs::remove_dir_all(&t).ok();
}

#[test]
fn completions_are_generated_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = frugal(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("simulate") && out.contains("--policies"),
            "{shell}"
        );
    }
}

#[test]
fn loadtest_stores_every_accepted_submission_through_a_sigkill() {
    let (code, out, err) = frugal(&[
        "loadtest",
        "--seconds",
        "2",
        "--clients",
        "4",
        "--pollers",
        "1",
        "--slowloris",
        "20",
        "--kill-rounds",
        "1",
    ]);
    assert_eq!(code, 0, "{out}{err}");
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
    assert!(out.contains("job-list pages served"), "{out}");
}

#[test]
fn simulate_replays_swf_logs() {
    let (code, out, err) = frugal(&[
        "simulate",
        "--swf",
        "nasa",
        "--jobs",
        "60",
        "--policies",
        "first-fit",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "NASA-iPSC-1993-3.1-cln.swf.gz, first 60 jobs (records dropped: 173 without run time)"
        ),
        "{out}"
    );
    let dir = tmp("swf");
    let file = dir.join("two.swf");
    std::fs::write(&file, "1 0 -1 30 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 10 -1 30 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    let (code, out, err) = frugal(&[
        "simulate",
        "--swf",
        file.to_str().unwrap(),
        "--policies",
        "first-fit",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().count(),
        3,
        "header, baseline and first-fit: {out}"
    );
    std::fs::write(&file, "1 0 -1 30 2 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1\n").unwrap();
    let (code, _, err) = frugal(&["simulate", "--swf", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("two.swf:1: field `think_time`: expected 18 fields, found 17"),
        "{err}"
    );
    let (code, _, err) = frugal(&["simulate", "--swf", "nasa", "--jobs", "20000"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--jobs: 20000: NASA-iPSC-1993-3.1-cln.swf.gz holds only 18066 usable jobs"),
        "{err}"
    );
}

#[test]
fn simulate_replays_the_alibaba_gpu_cluster() {
    // The whole trace on its own cluster: every default policy but milp (the cluster is
    // beyond its default size), with the tasks left out and cut named in the label.
    let (code, out, err) = frugal(&[
        "simulate",
        "--cluster",
        "alibaba-gpu-2023",
        "--alibaba",
        "default",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(tasks: 897 never scheduled, left out; 34 cut at the trace end)"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().skip(1).collect();
    // Every built-in policy of the default set but the MILP, which the cluster's size
    // leaves out.
    let default_set = frugal_core::PolicyKind::ALL
        .into_iter()
        .filter(frugal_core::PolicyKind::in_default_set);
    let expected = default_set.count() - 1;
    assert_eq!(rows.len(), expected, "{expected} policies: {out}");
    assert!(!out.contains(",milp,"), "{out}");
    // A user's task list: one GPU-sharing task and one 8-GPU task, on the Alibaba cluster.
    let dir = tmp("alibaba");
    let file = dir.join("pods.csv");
    let head = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                creation_time,deletion_time,scheduled_time\n";
    std::fs::write(
        &file,
        format!("{head}a,6000,12288,1,460,,LS,Succeeded,0,3600,0\nb,64000,262144,8,1000,,LS,Failed,60,1860,100\n"),
    )
    .unwrap();
    let (code, out, err) = frugal(&[
        "simulate",
        "--cluster",
        "alibaba-gpu-2023",
        "--alibaba",
        file.to_str().unwrap(),
        "--policies",
        "first-fit",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .nth(2)
            .unwrap()
            .contains(",first-fit,edf,1,2,2,"),
        "both jobs complete: {out}"
    );
    std::fs::write(
        &file,
        format!("{head}a,6000,12288,2,460,,LS,Succeeded,0,3600,0\n"),
    )
    .unwrap();
    let (code, _, err) = frugal(&["simulate", "--alibaba", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("pods.csv:2: field `gpu_milli`: 460 with num_gpu 2: shares are of one GPU"),
        "{err}"
    );
    for (args, want) in [
        (
            vec!["--alibaba", "/nonexistent.csv"],
            "--alibaba: /nonexistent.csv",
        ),
        (
            vec!["--alibaba", "default", "--swf", "nasa"],
            "cannot be used with",
        ),
        (
            vec!["--alibaba", "default", "--jobs", "9000"],
            "--jobs: 9000: openb_pod_list_default.csv holds only 7255 replayable tasks",
        ),
    ] {
        let mut a = vec!["simulate"];
        a.extend(args);
        refused(&a, want);
    }
}

/// One 4-core, 1-hour job on one $1/h VM: with K copies of the job on the K-fold
/// cluster every copy has its own VM ($K, makespan 1 h); K copies on the original
/// cluster run one after another ($K, makespan K h).
#[test]
fn cluster_scale_and_job_copies_keep_the_load_per_vm() {
    let dir = tmp("scale");
    let cluster = dir.join("one.toml");
    std::fs::write(
        &cluster,
        "[[instance_type]]\nname = \"t\"\ncores = 4\nmemory_gib = 16\n\n\
         [[vms]]\ninstance_type = \"t\"\nsite = \"cloud\"\ncount = 1\nprice_per_hour = 1\n",
    )
    .unwrap();
    let jobs = dir.join("jobs.csv");
    std::fs::write(
        &jobs,
        "id,kind,executors,cores,memory_gib,arrival_s,deadline_s,t_local_s,t_hybrid_s\n\
         a,cpu_bound,1,4,4,0,,3600,3600\n",
    )
    .unwrap();
    let run = |scale: &str| {
        let (code, out, err) = frugal(&[
            "simulate",
            "--cluster",
            cluster.to_str().unwrap(),
            "--jobs-csv",
            jobs.to_str().unwrap(),
            "--cluster-scale",
            scale,
            "--job-copies",
            "3",
            "--policies",
            "first-fit,gio",
            "--baseline",
            "first-fit",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["jobs"].as_u64().unwrap(),
                    r["cost_usd"].as_f64().unwrap(),
                    r["makespan_s"].as_f64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    for row in run("3") {
        assert_eq!(row.0, 3);
        assert!((row.1 - 3.0).abs() < 1e-9 && row.2 == 3600.0, "{row:?}");
    }
    for row in run("1") {
        assert!(
            (row.1 - 3.0).abs() < 1e-9 && row.2 == 3.0 * 3600.0,
            "{row:?}"
        );
    }
    let (code, _, err) = frugal(&[
        "simulate",
        "--cluster",
        "large-hybrid",
        "--cluster-scale",
        "6000",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--cluster-scale: 6000") && err.contains("at most 1000000"),
        "{err}"
    );
    let (code, _, err) = frugal(&[
        "simulate",
        "--synthetic",
        "--load",
        "high",
        "--jobs",
        "1000000",
        "--job-copies",
        "11",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--job-copies: 11"), "{err}");
    // A job CSV with replay columns (a `whatif --export`) is one replay: neither copied nor
    // searched offline.
    let replay = tmp("replay-flags").join("jobs.csv");
    std::fs::write(
        &replay,
        "id,kind,executors,cores,memory_gib,arrival_s,t_local_s,run_time_factor\n\
         a,cpu_bound,1,1,1,0,10,1.2\n",
    )
    .unwrap();
    let replay = replay.to_str().unwrap();
    for (flag, extra) in [
        ("--job-copies", ["--job-copies", "2"]),
        ("--policies", ["--policies", "offline"]),
    ] {
        let (code, _, err) =
            frugal(&[&["simulate", "--jobs-csv", replay][..], &extra[..]].concat());
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains(flag) && err.contains("replay columns"),
            "{err}"
        );
    }
}

#[test]
fn serve_and_agent_flags_that_cannot_apply_are_errors_naming_them() {
    let t = tmp("hosts-flags");
    let token = t.join("agent.token");
    std::fs::write(&token, "secret\n").unwrap();
    // An agent with a valid service, token and (non-Spark) home, plus `rest`.
    let agent = |rest: &str| {
        format!(
            "agent --service http://10.0.0.1:8080 --token-file {} --spark-home / {rest}",
            token.display()
        )
    };
    let cases = [
        ("serve --netns-prefix ab".to_string(), "--netns-prefix"),
        ("serve --hosts-dir h".into(), "--hosts-dir"),
        (
            "serve --backend spark-standalone --hosts-dir h".into(),
            "--hosts-dir",
        ),
        (
            "serve --provisioner netns --bind 127.0.0.1:8080".into(),
            "--bind",
        ),
        (
            "serve --backend spark-standalone --netns-subnet 10.1.2.0".into(),
            "--netns-subnet",
        ),
        (
            "serve --backend spark-standalone --provisioner netns --bind 127.0.0.1:8080".into(),
            "--bind",
        ),
        ("serve --host-timeout 1".into(), "--host-timeout"),
        ("serve --host-timeout 5".into(), "--host-timeout"),
        ("serve --python python3".into(), "--python"),
        (
            "serve --provisioner loopback --spark-port 17077".into(),
            "--spark-port",
        ),
        (
            "serve --backend spark-standalone --speedup 2".into(),
            "--speedup",
        ),
        ("serve --kind-penalty 101".into(), "--kind-penalty"),
        (
            agent("--host-id a --vm 3=10.0.0.5 --worker-core-share 0"),
            "--worker-core-share",
        ),
        (agent("--host-id a --vm 3=host"), "--vm"),
        (agent("--host-id a/b --vm 3=10.0.0.5"), "--host-id"),
        (
            agent("--host-id a --vm 3=10.0.0.5 --vm 3=10.0.0.6"),
            "--vm 3",
        ),
        (agent("--host-id a --vm 3=10.0.0.5"), "--spark-home"),
        (
            agent("--runtime emulated --host-id a --vm 3=10.0.0.5"),
            "--spark-home",
        ),
    ];
    for (line, flag) in &cases {
        refused(&words(line), flag);
    }
    std::fs::remove_dir_all(&t).ok();
}

#[test]
fn contention_is_calibrated_on_live_jobs_and_read_by_simulate() {
    // Four jobs of 60 s at once measured 96 s, three measured 72 s: κ = 2.5 jobs
    // (1.6× and 1.2×, the module doc's rates) with no error; without the model
    // (4 × 36/96 + 3 × 12/72) / 7 = 28.6 %.
    let t = tmp("contention");
    let jobs = t.join("live-jobs.csv");
    let mut csv = String::from(
        "workload,policy,job,application,state,executors,submitted_s,wait_s,run_s,jct_s,estimated_s,deadline_met,placement\n",
    );
    for k in 0..4 {
        csv += &format!("h,ff,j{k},wordcount,completed,2,0,0,96,96,60,,0:2\n");
    }
    for k in 0..3 {
        csv += &format!("h,bfd,j{k},sort,completed,2,0,0,72,72,60,,0:2\n");
    }
    csv += "h,bfd,j9,sort,failed,2,0,0,,,60,,0:2\n";
    std::fs::write(&jobs, csv).unwrap();
    let out = t.join("c.toml");
    let (code, stdout, err) = frugal(&[
        "contention",
        "--live-jobs",
        jobs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("capacity 2.50 jobs (fitted on 2 runs, 7 jobs)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("0.0 % with the model, 28.6 % without"),
        "{stdout}"
    );
    let (code, stdout, err) = frugal(&["simulate", "--contention", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("contention (frugal's extension, not the papers' model): cluster scope, capacity 2.5 jobs"),
        "{stdout}"
    );
    // Bad input names the file, line and field.
    let refused = |file: &Path, text: &str, cmd: [&str; 2], want: &str| {
        std::fs::write(file, text).unwrap();
        let (code, _, err) = frugal(&[cmd[0], cmd[1], file.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(want), "{err}");
    };
    let fit = ["contention", "--live-jobs"];
    let header = "workload,policy,state,submitted_s,wait_s,run_s";
    refused(&jobs, header, fit, "live-jobs.csv: no column `estimated_s`");
    let nan = format!("{header},estimated_s\nh,ff,completed,0,0,NaN,60\n");
    refused(
        &jobs,
        &nan,
        fit,
        "live-jobs.csv: line 2: run_s: not a number",
    );
    let zero = "capacity = 0\n";
    refused(&out, zero, ["simulate", "--contention"], "c.toml: capacity");
    std::fs::remove_dir_all(&t).ok();
}

/// `frugal kube` is in every build's `--help` (one command reference); a build without the
/// `kube` feature refuses it with status 2, naming the feature.
#[cfg(not(feature = "kube"))]
#[test]
fn kube_without_the_feature_is_refused_naming_it() {
    let (code, _, err) = frugal(&["kube", "--kubeconfig", "/nonexistent"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--features kube"), "{err}");
}

/// `frugal zones` refuses what it cannot honour with status 2, naming the flag.
#[test]
fn zones_misuse_exits_2_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--ratio", "nan"], "--ratio"),
        (&["--ratio", "0.5"], "--ratio"),
        (&["--windows", "0"], "--windows"),
        (&["--checkpoint-gb=-1"], "--checkpoint-gb"),
        (&["--scenario", "x"], "--scenario"),
        (&["--policies", "up-z"], "--policies"),
    ];
    for (args, flag) in cases {
        let mut argv = vec!["zones"];
        argv.extend_from_slice(args);
        refused(&argv, flag);
    }
}

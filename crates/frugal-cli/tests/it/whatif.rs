//! `frugal whatif` on a database the emulated service wrote while running a recorded
//! workload: its own policy reproduces the service's bill and deadline count, another
//! policy gives what `frugal simulate` gives on the exported jobs, and bad input is named.

use crate::common;
use frugal_core::spec::ConfigFile;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::{free_port, frugal, get, http, spawn_serve, tmp, wait_for, words};
use frugal_core::Job;
use frugal_sim::options::choices::no_agents;
use frugal_sim::options::{Loads, SimulateSpec, plan};

/// Service seconds per wall second: a job's start and end are seen within a few
/// milliseconds of their instant, i.e. within about a second of service time.
const SPEEDUP: f64 = 200.0;

/// The first 16 jobs of the FB-2009 light hour as the simulator maps them (seed 1), their
/// deadlines 3× their run time after arrival.
fn recorded_workload() -> Vec<Job> {
    let opts = SimulateSpec {
        load: Some(Loads::Light),
        ..SimulateSpec::default()
    };
    let p = plan(&opts, &no_agents).unwrap();
    let mut jobs = p.workloads[0].jobs_for(p.seed);
    jobs.truncate(16);
    for j in &mut jobs {
        j.deadline = Some(j.arrival + 3.0 * j.t_hybrid * 1.3);
    }
    jobs
}

fn submission(j: &Job) -> Value {
    json!({
        "id": j.id.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        "kind": j.kind.as_str(),
        "executors": j.executors,
        "executor_cores": j.executor_demand.cores(),
        "executor_memory_gib": j.executor_demand.memory_gib(),
        "estimated_duration_s": j.t_local,
        "hybrid_duration_s": j.t_hybrid,
        "deadline_s": j.deadline.map(|d| d - j.arrival),
        "application_path": "wordcount.py",
    })
}

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// `frugal whatif --db db ARGS --format csv`, which must succeed: its rows and its text.
fn whatif_csv(db: &str, args: &[&str]) -> (Vec<Vec<String>>, String) {
    let mut argv = vec!["whatif", "--db", db];
    argv.extend(args);
    argv.extend(["--format", "csv"]);
    let (code, out, err) = frugal(&argv);
    assert_eq!(code, 0, "{argv:?}: {err}");
    (csv_rows(&out), out)
}

fn column(rows: &[Vec<String>], name: &str) -> usize {
    rows[0].iter().position(|c| c == name).unwrap()
}

/// Submits `jobs` at their arrivals in service time (× [`SPEEDUP`]), each answered with one
/// of `accepted` statuses, and waits until none is queued or running.
fn submit_at_arrivals(port: u16, jobs: &[Job], accepted: &[u16]) {
    let t0 = Instant::now();
    for j in jobs {
        let at = Duration::from_secs_f64((j.arrival - jobs[0].arrival) / SPEEDUP);
        std::thread::sleep(at.saturating_sub(t0.elapsed()));
        let (status, body) = http(port, "POST", "/jobs", &submission(j).to_string()).unwrap();
        assert!(accepted.contains(&status), "{status} {body}");
    }
    wait_for(Duration::from_secs(120), "the workload to end", || {
        let c = get(port, "/dashboard")["counts"].clone();
        (c["queued"] == 0 && c["running"] == 0).then_some(())
    });
}

/// The end of the replays' window: a wall minute (12,000 service seconds) from now, so
/// that another policy's replay, which may end later than the service did, is not clipped
/// by a window ending at "now" (whose instant would depend on the machine's load).
fn window_end() -> String {
    let until = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 60.0;
    format!("{until:.3}")
}

/// `frugal whatif --db db --policies policies --until until --export dir EXTRA`, then the
/// `frugal simulate` command it prints, run with `--format csv`: that command and its rows.
fn simulate_the_export(
    db: &str,
    policies: &str,
    until: &str,
    dir: &std::path::Path,
    extra: &[&str],
) -> (String, Vec<Vec<String>>) {
    let mut args = vec!["whatif", "--db", db, "--policies", policies];
    args.extend(["--until", until, "--export", dir.to_str().unwrap()]);
    args.extend(extra);
    let (code, text, err) = frugal(&args);
    assert_eq!(code, 0, "{err}");
    let cmd = text.lines().last().unwrap().trim();
    let cmd = cmd.strip_prefix("frugal ").unwrap().to_string();
    let mut argv: Vec<&str> = cmd.split(' ').collect();
    argv.extend(["--format", "csv"]);
    let (code, sim, err) = frugal(&argv);
    assert_eq!(code, 0, "`{cmd}` refused: {err}");
    (cmd.clone(), csv_rows(&sim))
}

#[test]
fn whatif_reproduces_the_services_bill_and_replays_other_policies_as_simulate_does() {
    let dir = tmp("whatif");
    let db = dir.join("frugal.db");
    let port = free_port();
    let args = format!(
        "--db {} --policy first-fit --speedup {SPEEDUP}",
        db.display()
    );
    let mut serve = spawn_serve(
        port,
        &words(&args),
        &dir.join("serve.log"),
        Duration::from_secs(30),
    );
    let jobs = recorded_workload();
    submit_at_arrivals(port, &jobs, &[202]);
    let cost = get(port, "/cost");
    let counts = get(port, "/dashboard")["counts"].clone();
    serve.kill().unwrap();
    serve.wait().unwrap();

    let db_arg = db.to_str().unwrap();
    let export = dir.join("export");
    let until = window_end();
    let (rows, out) = whatif_csv(
        db_arg,
        &[
            "--policies",
            "first-fit,best-fit-decreasing",
            "--until",
            &until,
            "--export",
            export.to_str().unwrap(),
        ],
    );
    let (run, policy, bill, met) = (
        column(&rows, "run"),
        column(&rows, "policy"),
        column(&rows, "cost_usd"),
        column(&rows, "deadline_met_pct"),
    );
    assert_eq!(rows[1][run], "actual");
    assert_eq!(rows[1][policy], "first-fit");
    let num = |r: usize, c: usize| rows[r][c].parse::<f64>().unwrap();
    // The actual row is the bill the service reported (to float rounding: it works in
    // service seconds of the Unix epoch, whatif from the window start).
    let spent = cost["spend_usd"].as_f64().unwrap();
    assert!(
        (num(1, bill) - spent).abs() <= 1e-6 * spent.max(1.0),
        "{out}\n{cost}"
    );
    let met_pct = 100.0 * counts["deadline_met"].as_f64().unwrap() / jobs.len() as f64;
    assert!((num(1, met) - met_pct).abs() < 1e-9, "{out}\n{counts}");
    // Replayed under its own policy, on the measured run times at the instants the
    // service passed the queue: the same deadlines and the same bill, to float rounding.
    assert_eq!(rows[2][run], "replay");
    assert_eq!(rows[2][policy], "first-fit");
    assert_eq!(num(2, met), met_pct, "{out}");
    assert!(
        (num(2, bill) - num(1, bill)).abs() <= 1e-9 * num(1, bill),
        "replayed bill differs: {out}"
    );

    // Another policy: the command `--export` prints is `frugal simulate` on the exported
    // jobs with what the replay carried (the measured run times as multiples of the
    // model's, the first passes, the VM events), so its row is the replay row: the same
    // bill, completions and deadlines met, whatever the machine's load made the measured
    // times. The prediction (`--estimates-only`) exports the estimates alone and is
    // `simulate` on them the same way.
    let exported = |extra: &[&str], dir: &std::path::Path| {
        let (_, sim) = simulate_the_export(db_arg, "best-fit-decreasing", &until, dir, extra);
        let row = |c: &str| {
            let r = sim
                .iter()
                .find(|r| r[column(&sim, "policy")] == "best-fit-decreasing");
            r.unwrap()[column(&sim, c)].clone()
        };
        (
            row("cost_usd").parse::<f64>().unwrap(),
            row("completed"),
            row("deadline_met_pct"),
        )
    };
    let (sim_bill, sim_completed, sim_met) = exported(&[], &export);
    assert_eq!(rows[3][policy], "best-fit-decreasing");
    let replay_bill = num(3, bill);
    assert!(
        (sim_bill - replay_bill).abs() <= 1e-9 * replay_bill,
        "simulate on the export {sim_bill} against the replay {replay_bill}: {out}"
    );
    assert_eq!(sim_completed, rows[3][column(&rows, "completed")], "{out}");
    assert_eq!(sim_completed, jobs.len().to_string(), "{out}");
    assert_eq!(sim_met.parse::<f64>().unwrap(), num(3, met), "{out}");

    let (predicted, _) = whatif_csv(
        db_arg,
        &["--policies", "best-fit-decreasing", "--estimates-only"],
    );
    let p_bill: f64 = predicted[2][column(&predicted, "cost_usd")]
        .parse()
        .unwrap();
    let (e_bill, _, _) = exported(&["--estimates-only"], &dir.join("export-estimates"));
    assert!(
        (e_bill - p_bill).abs() <= 1e-6 * p_bill,
        "simulate {e_bill} against whatif --estimates-only {p_bill}"
    );
    let completed = column(&predicted, "completed");
    assert_eq!(predicted[2][completed], jobs.len().to_string());

    // The table marks the actual row.
    let (code, table, _) = frugal(&["whatif", "--db", db_arg]);
    assert_eq!(code, 0);
    assert!(table.contains("actual ←"), "{table}");
    assert!(
        table.contains("Measured run times replace the estimates of 16 jobs"),
        "{table}"
    );
}

#[test]
fn whatif_names_bad_input() {
    let dir = tmp("whatif-bad");
    let missing = dir.join("missing.db");
    let (code, _, err) = frugal(&["whatif", "--db", missing.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("missing.db: no such file"), "{err}");
    assert!(!missing.exists(), "whatif must not create a database");

    // A store with one job, from a short run of the service.
    let db = dir.join("frugal.db");
    let port = free_port();
    let mut serve = spawn_serve(
        port,
        &["--db", db.to_str().unwrap(), "--speedup", "600"],
        &dir.join("serve.log"),
        Duration::from_secs(30),
    );
    let job = r#"{"id":"big","executors":2,"executor_cores":4,"executor_memory_gib":4,"estimated_duration_s":60,"application_path":"wordcount.py"}"#;
    assert_eq!(http(port, "POST", "/jobs", job).unwrap().0, 202);
    serve.kill().unwrap();
    serve.wait().unwrap();
    let db_arg = db.to_str().unwrap();

    let (code, _, err) = frugal(&[
        "whatif",
        "--db",
        db_arg,
        "--since",
        "2100-01-01T00:00:00Z",
        "--until",
        "2100-01-02T00:00:00Z",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("no job was submitted in the window"), "{err}");
    let (code, _, err) = frugal(&["whatif", "--db", db_arg, "--since", "2100-01-01T00:00:00Z"]);
    assert_eq!(code, 1);
    assert!(err.contains("--since must be before --until"), "{err}");
    let (code, _, err) = frugal(&["whatif", "--db", db_arg, "--since", "yesterday"]);
    assert_eq!(code, 2);
    assert!(err.contains("--since") && err.contains("RFC 3339"), "{err}");

    // A cluster of one 2-core VM cannot hold a 4-core executor.
    let tiny = dir.join("tiny.toml");
    std::fs::write(
        &tiny,
        "[[instance_type]]\nname = \"small\"\ncores = 2\nmemory_gib = 8\n\n\
         [[vms]]\ninstance_type = \"small\"\nsite = \"cloud\"\ncount = 1\nprice_per_hour = 0.1\n",
    )
    .unwrap();
    let (rows, out) = whatif_csv(
        db_arg,
        &[
            "--cluster",
            tiny.to_str().unwrap(),
            "--policies",
            "first-fit,best-fit-decreasing",
        ],
    );
    let (run, unschedulable) = (column(&rows, "run"), column(&rows, "unschedulable"));
    let replays: Vec<_> = rows.iter().filter(|r| r[run] == "replay").collect();
    assert_eq!(replays.len(), 2, "{out}");
    assert!(
        replays.iter().all(|r| r[unschedulable] == "1"),
        "a job no policy can place is reported as such in every row: {out}"
    );

    // A store from a newer frugal.
    let py = format!(
        "import sqlite3; c = sqlite3.connect({:?}); c.execute(\"INSERT INTO _sqlx_migrations \
         (version, description, success, checksum, execution_time) VALUES (99, 'future', 1, x'00', 0)\"); c.commit()",
        db_arg
    );
    let status = std::process::Command::new("python3")
        .args(["-c", &py])
        .status()
        .unwrap();
    assert!(status.success());
    let (code, _, err) = frugal(&["whatif", "--db", db_arg]);
    assert_eq!(code, 1);
    assert!(
        err.contains("schema version 99 is newer than this frugal's"),
        "{err}"
    );
}

/// The export round trip over the service's configurations: for each of eight `frugal
/// serve` configurations (its `--config` file: policy, queue, backfill, keep-alive,
/// admission control, a dollar budget that holds and refuses jobs, kind penalty, per-second
/// or per-hour billing) — every value of the small closed sets appears — the service runs
/// the recorded workload, and the command `whatif --export` prints is accepted by `frugal
/// simulate` and gives the replay row of the service's own policy: the same bill,
/// completions and deadlines met.
#[test]
fn whatif_export_reproduces_the_replay_for_every_serve_configuration() {
    use frugal_core::spec::Choice;
    use frugal_core::{Backfill, KeepAlive, PolicyKind, Preset, PricingModel, QueueDiscipline};
    use frugal_service::ServeSpec;
    use frugal_sim::options::choices::ClusterSource;

    let dir = tmp("whatif-configurations");
    let small = Preset::SmallHybrid.config(PricingModel::Model1);
    let dearest = small
        .build("small-hybrid")
        .unwrap()
        .vms
        .iter()
        .map(|v| v.price_per_second * 3600.0)
        .fold(0.0, f64::max);
    let mut per_hour = small.clone();
    per_hour.billing = frugal_core::BillingGranularity::PerHour;
    let per_hour_file = dir.join("per-hour.toml");
    std::fs::write(&per_hour_file, toml::to_string(&per_hour).unwrap()).unwrap();
    let policies: Vec<PolicyKind> = PolicyKind::ALL
        .iter()
        .copied()
        .filter(|k| *k != PolicyKind::Milp && k.in_default_set())
        .collect();
    let keep_alive = [
        KeepAlive::Seconds(0.0),
        KeepAlive::Seconds(120.0),
        KeepAlive::UntilPaidHourEnds,
    ];
    for k in 0..8 {
        let case = dir.join(format!("case{k}"));
        std::fs::create_dir_all(&case).unwrap();
        let spec = ServeSpec {
            policy: Some(frugal_core::PolicySpec::Builtin(
                policies[(5 * k) % policies.len()],
            )),
            queue: (k % 3 != 0).then(|| QueueDiscipline::ALL[k % QueueDiscipline::ALL.len()]),
            backfill: Some(Backfill::ALL[k % Backfill::ALL.len()]),
            keep_alive: Some(keep_alive[k % keep_alive.len()]),
            admission_control: k % 4 == 1,
            budget_per_hour: (k % 4 == 2).then_some(1.5 * dearest),
            kind_penalty: Some([0.0, 0.3][k % 2]),
            cluster: Some(if k % 2 == 1 {
                ClusterSource::File(per_hour_file.clone())
            } else {
                ClusterSource::Preset(Preset::SmallHybrid)
            }),
            speedup: Some(SPEEDUP),
            db: Some(case.join("frugal.db")),
            token_file: Some(case.join("token")),
            ..ServeSpec::default()
        };
        let config = case.join("serve.toml");
        std::fs::write(&config, spec.to_toml()).unwrap();
        let port = free_port();
        let mut serve = spawn_serve(
            port,
            &["--config", config.to_str().unwrap()],
            &case.join("serve.log"),
            Duration::from_secs(30),
        );
        // A job the budget can never admit is refused at submission (422).
        submit_at_arrivals(port, &recorded_workload(), &[202, 422]);
        serve.kill().unwrap();
        serve.wait().unwrap();

        let db = case.join("frugal.db");
        let until = window_end();
        let own = spec.policy.as_ref().unwrap().to_string();
        let export = case.join("export");
        let (rows, out) = whatif_csv(
            db.to_str().unwrap(),
            &[
                "--policies",
                &own,
                "--until",
                &until,
                "--export",
                export.to_str().unwrap(),
            ],
        );
        let (run, bill, met, completed) = (
            column(&rows, "run"),
            column(&rows, "cost_usd"),
            column(&rows, "deadline_met_pct"),
            column(&rows, "completed"),
        );
        assert_eq!(rows[2][run], "replay", "case {k}: {out}");
        let (cmd, sim) = simulate_the_export(db.to_str().unwrap(), &own, &until, &export, &[]);
        let row = sim
            .iter()
            .find(|r| r[column(&sim, "policy")] == own)
            .unwrap_or_else(|| panic!("case {k}: no {own} row: {sim:?}"));
        let sim_bill: f64 = row[column(&sim, "cost_usd")].parse().unwrap();
        let replay_bill: f64 = rows[2][bill].parse().unwrap();
        assert!(
            (sim_bill - replay_bill).abs() <= 1e-9 * replay_bill.max(1.0),
            "case {k} ({}): simulate {sim_bill} against the replay {replay_bill}\n{cmd}\n{out}",
            spec.to_toml().replace('\n', "; ")
        );
        assert_eq!(
            row[column(&sim, "completed")],
            rows[2][completed],
            "case {k}: {out}"
        );
        assert_eq!(
            row[column(&sim, "deadline_met_pct")],
            rows[2][met],
            "case {k}: {out}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

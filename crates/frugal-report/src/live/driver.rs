//! The live driver's processes: the control namespace, `frugal serve` in it, the HTTP
//! calls that submit and follow the jobs, and the clean-up that leaves nothing behind.

use frugal_core::spec::ConfigFile;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use frugal_core::lifecycle::{DeadlineOutcome, JobState, deadline_outcome};
use frugal_service::provision::testbed::{check_machine, cpu_seconds, leftovers, purge};
use frugal_service::spec::{Backend, Provisioner};
use frugal_service::whatif::{WhatIf, WhatIfRow, whatif};
use frugal_service::{Durability, ServeSpec, Store, StoreLimits, StoredJob};
use frugal_sim::options::choices::ClusterSource;

use super::{Application, LiveJobRow, LiveRow, LiveRun, LiveSettings, POLL};

/// Set by SIGINT or SIGTERM while a run is under way: the run stops and cleans up.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn interrupted(_: nix::libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// The API token of the driver's services (they listen only inside the control
/// namespace).
const TOKEN: &str = "frugal-live";

/// Checks that this machine can run live experiments; the error names what is missing:
/// root, `ip`/`tc` (iproute2), the cgroup v1 `cpu` and `memory` controllers, Java, a
/// Python with pyspark, the `frugal` executable, the applications and the cluster file.
///
/// # Errors
/// The first missing piece.
pub fn preflight(s: &LiveSettings) -> Result<()> {
    check_machine().map_err(|what| anyhow::anyhow!("live runs need {what}"))?;
    let runs = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|st| st.success())
    };
    if !runs("java", &["-version"]) {
        bail!("live runs need Java 17 (`java` on PATH)");
    }
    let python = s.python.display();
    if !runs(s.python.to_str().unwrap_or(""), &["-c", "import pyspark"]) {
        bail!("live runs need a Python with pyspark: {python} cannot import it (--python)");
    }
    for (path, what) in [
        (&s.frugal, "the frugal executable"),
        (
            &s.apps_dir.join("generate_inputs.py"),
            "the applications (spark/)",
        ),
        (&s.cluster, "the cluster file"),
    ] {
        if !path.exists() {
            bail!("{what}: {} does not exist", path.display());
        }
    }
    Ok(())
}

/// Runs `run` live and returns its row and its jobs' rows. Everything the run starts is
/// removed when it returns, whether it succeeded, failed or was interrupted.
///
/// # Errors
/// What [`preflight`] finds missing; the service not becoming ready, a job refused, the
/// timeout, an interruption; the history unreadable; anything left behind.
pub fn run(s: &LiveSettings, run: &LiveRun) -> Result<(LiveRow, Vec<LiveJobRow>)> {
    preflight(s)?;
    if run.jobs.is_empty() {
        bail!("a live run needs at least one job");
    }
    if needs_contention(run) && s.contention.is_none() {
        bail!(
            "--policies: {} prices placements with a contention model: give --contention or \
             --contention-levels",
            run.policy
        );
    }
    let mut name = run.policy.to_string().replace(['/', ':'], "_");
    if run.repetition > 1 {
        name = format!("{name}-r{}", run.repetition);
    }
    let dir = std::path::absolute(s.dir.join(&run.workload).join(&name))?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    let input = std::path::absolute(s.dir.join("input"))?;
    if !input.join("graph.txt").exists() {
        let status = Command::new(&s.python)
            .arg(s.apps_dir.join("generate_inputs.py"))
            .arg(&input)
            .args(["--scale", &s.input_scale.to_string()])
            .status()
            .context("generate_inputs.py")?;
        if !status.success() {
            bail!("generate_inputs.py failed ({status})");
        }
    }
    let started = Instant::now();
    let driven = {
        // SIGINT and SIGTERM set a flag the run checks, for the run's length only (between
        // runs the previous handlers act): an interruption stops the run and cleans up.
        let _signals = Signals::catch()?;
        Service::start(s, run, &dir).and_then(|service| {
            service.drive(s, run, &input, &dir)?;
            // Read before the service stops: its shutdown removes the groups.
            Ok(cpu_seconds(&s.prefix))
        })
    };
    let cpu = driven?;
    let history = dir.join("state.db");
    let left = leftovers(&s.prefix);
    if !left.is_empty() {
        bail!("the run left behind: {}", left.join(", "));
    }
    let (mut row, jobs) = rows(run, &history, started.elapsed().as_secs_f64(), s.contention)?;
    if let Some((control, all)) = cpu {
        row.control_cpu_s = Some(control);
        row.vm_cpu_s = Some((all - control).max(0.0));
    }
    Ok((row, jobs))
}

/// SIGINT and SIGTERM handled by setting [`INTERRUPTED`] while this lives; the previous
/// handlers come back on drop.
struct Signals(Vec<(nix::sys::signal::Signal, nix::sys::signal::SigAction)>);

impl Signals {
    fn catch() -> Result<Signals> {
        use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, sigaction};
        let action = SigAction::new(
            SigHandler::Handler(interrupted),
            SaFlags::empty(),
            SigSet::empty(),
        );
        INTERRUPTED.store(false, Ordering::SeqCst);
        let mut previous = Vec::new();
        for sig in [nix::sys::signal::SIGINT, nix::sys::signal::SIGTERM] {
            // SAFETY: the handler only stores to an atomic.
            previous.push((sig, unsafe { sigaction(sig, &action) }?));
        }
        Ok(Signals(previous))
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for (sig, action) in &self.0 {
            // SAFETY: restores the handler that was installed before.
            let _ = unsafe { nix::sys::signal::sigaction(*sig, action) };
        }
    }
}

/// `frugal serve` in the control namespace `<prefix>-ctl`, stopped and purged on drop.
struct Service {
    child: Child,
    prefix: String,
    control: String,
    port: u16,
}

impl Service {
    fn start(s: &LiveSettings, run: &LiveRun, dir: &Path) -> Result<Service> {
        purge(&s.prefix);
        let control = format!("{}-ctl", s.prefix);
        let port = 18_000;
        let spawned = spawn_serve(s, run, dir, &control, port);
        match spawned {
            Ok(child) => Ok(Service {
                child,
                prefix: s.prefix.clone(),
                control,
                port,
            }),
            Err(e) => {
                purge(&s.prefix);
                Err(e)
            }
        }
    }

    /// Waits for the service, submits every job at its instant and waits until all have
    /// ended; the HTTP calls run on a thread inside the control namespace.
    fn drive(&self, s: &LiveSettings, run: &LiveRun, input: &Path, dir: &Path) -> Result<()> {
        let control = self.control.clone();
        let port = self.port;
        std::thread::scope(|scope| {
            scope
                .spawn(move || -> Result<()> {
                    let ns = std::fs::File::open(format!("/run/netns/{control}"))?;
                    nix::sched::setns(&ns, nix::sched::CloneFlags::CLONE_NEWNET)?;
                    let api = Api { port };
                    api.ready(Duration::from_secs(180))?;
                    submit_and_wait(&api, s, run, input, dir)
                })
                .join()
                .map_err(|_| anyhow::anyhow!("the driver's thread panicked"))?
        })
    }
}

/// The service of one live run: Spark standalone on the netns testbed, the run's policy,
/// its database and Spark files in the run's folder `dir`.
fn serve_spec(s: &LiveSettings, run: &LiveRun, dir: &Path, port: u16) -> ServeSpec {
    let t = &s.testbed;
    ServeSpec {
        bind: Some(SocketAddr::from(([0, 0, 0, 0], port))),
        backend: Some(Backend::SparkStandalone),
        provisioner: Some(Provisioner::Netns),
        netns_prefix: Some(s.prefix.clone()),
        netns_subnet: Some(Ipv4Addr::new(10, 78, s.subnet, 0)),
        testbed: true,
        testbed_core_share: Some(t.core_share),
        testbed_mib_per_gib: Some(t.mib_per_gib),
        testbed_in_site_mbit: Some(t.in_site_mbit),
        testbed_cross_site_mbit: Some(t.cross_site_mbit),
        python: Some(s.python.clone()),
        apps_dir: Some(s.apps_dir.clone()),
        cluster: Some(ClusterSource::File(s.cluster.clone())),
        policy: Some(run.policy.clone()),
        kind_penalty: Some(s.kind_penalty),
        host_timeout: Some(s.host_timeout_s),
        db: Some(dir.join("state.db")),
        spark_dir: Some(dir.join("spark")),
        agent_token_file: Some(dir.join("agent.token")),
        // Only a policy that prices with it gets the model: with it the service's
        // estimates move, and every other policy runs as published.
        contention: needs_contention(run).then(|| dir.join("contention.toml")),
        ..ServeSpec::default()
    }
}

/// True if the run's policy prices placements with a contention model.
fn needs_contention(run: &LiveRun) -> bool {
    matches!(run.policy, frugal_core::PolicySpec::Builtin(k) if k.needs_contention())
}

/// Makes the control namespace and starts `frugal serve` in it on `port`, configured by
/// the run's `serve.toml` ([`serve_spec`]).
fn spawn_serve(
    s: &LiveSettings,
    run: &LiveRun,
    dir: &Path,
    control: &str,
    port: u16,
) -> Result<Child> {
    for args in [
        &["netns", "add", control][..],
        &["-n", control, "link", "set", "lo", "up"][..],
    ] {
        let ok = Command::new("ip")
            .args(args)
            .status()
            .is_ok_and(|st| st.success());
        if !ok {
            bail!("ip {} failed", args.join(" "));
        }
    }
    std::fs::write(dir.join("agent.token"), "frugal-live-agents\n")?;
    let config = dir.join("serve.toml");
    let spec = serve_spec(s, run, dir, port);
    if let Some(file) = &spec.contention {
        let model = s.contention.as_ref().context(
            "the policy prices placements with a contention model: give --contention or \
             --contention-levels",
        )?;
        std::fs::write(file, model.to_toml())?;
    }
    std::fs::write(&config, spec.to_toml())?;
    let log = std::fs::File::create(dir.join("serve.log"))?;
    let netns = std::fs::File::open(format!("/run/netns/{control}"))?;
    let mut cmd = Command::new(&s.frugal);
    cmd.arg("serve")
        .arg("--config")
        .arg(&config)
        .env("FRUGAL_API_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(log);
    // SAFETY: setns is one system call; the child does nothing else before exec.
    unsafe {
        cmd.pre_exec(move || {
            nix::sched::setns(&netns, nix::sched::CloneFlags::CLONE_NEWNET)
                .map_err(std::io::Error::from)
        });
    }
    cmd.spawn().context("frugal serve")
}

impl Drop for Service {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM);
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(30) {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        purge(&self.prefix);
    }
}

/// The service's API inside the control namespace.
struct Api {
    port: u16,
}

impl Api {
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<(u16, Value)> {
        let url = format!("http://127.0.0.1:{}{path}", self.port);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .new_agent();
        let auth = format!("Bearer {TOKEN}");
        let mut response = match body {
            Some(b) => agent
                .post(&url)
                .header("Authorization", &auth)
                .send_json(b)?,
            None => agent.run(
                ureq::http::Request::builder()
                    .method(method)
                    .uri(&url)
                    .header("Authorization", &auth)
                    .body(())?,
            )?,
        };
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string()?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    fn ready(&self, within: Duration) -> Result<()> {
        let t0 = Instant::now();
        while t0.elapsed() < within {
            if INTERRUPTED.load(Ordering::SeqCst) {
                bail!("interrupted");
            }
            if matches!(self.call("GET", "/readyz", None), Ok((200, _))) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        bail!("the service was not ready within {within:?} (see serve.log)")
    }
}

/// Submits each job at its instant (or, with [`LiveRun::one_at_a_time`], once the one
/// before it has ended), then waits until every job has ended, printing the progress and
/// an estimate of the time left on stderr.
fn submit_and_wait(
    api: &Api,
    s: &LiveSettings,
    run: &LiveRun,
    input: &Path,
    dir: &Path,
) -> Result<()> {
    let mut jobs: Vec<_> = run.jobs.iter().collect();
    jobs.sort_by(|a, b| a.arrival.total_cmp(&b.arrival).then(a.id.cmp(&b.id)));
    let mut progress = Progress {
        t0: Instant::now(),
        total: jobs.len(),
        ended: 0,
        timeout: s.timeout,
        policy: run.policy.to_string(),
    };
    let first = jobs[0].arrival;
    let mut open = Vec::new();
    for job in jobs {
        if run.one_at_a_time {
            wait(api, &mut open, &mut progress)?;
        } else {
            let at = Duration::from_secs_f64((job.arrival - first) * s.time_scale);
            while progress.t0.elapsed() < at {
                progress.check()?;
                let left = at.saturating_sub(progress.t0.elapsed());
                std::thread::sleep(left.min(Duration::from_millis(200)));
            }
        }
        submit(api, job, input, dir)?;
        open.push(job.id.clone());
    }
    wait(api, &mut open, &mut progress)
}

/// A run's jobs ended so far, and its limits.
struct Progress {
    t0: Instant,
    total: usize,
    ended: usize,
    timeout: Duration,
    policy: String,
}

impl Progress {
    /// An error if the run was interrupted or is past its timeout.
    fn check(&self) -> Result<()> {
        if INTERRUPTED.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        if self.t0.elapsed() > self.timeout {
            bail!("the run took longer than {:?}", self.timeout);
        }
        Ok(())
    }
}

/// Posts `job` with the bundled application of its kind.
fn submit(api: &Api, job: &frugal_core::Job, input: &Path, dir: &Path) -> Result<()> {
    let app = Application::of(job.kind);
    let body = json!({
        "id": job.id,
        "kind": job.kind.as_str(),
        "executors": job.executors,
        "executor_cores": job.executor_demand.cores(),
        "executor_memory_gib": job.executor_demand.memory_gib(),
        "estimated_duration_s": job.t_local,
        "hybrid_duration_s": job.t_hybrid,
        "deadline_s": job.deadline.map(|d| d - job.arrival),
        "application_path": app.file(),
        "input_path": input.join(app.input()),
        "output_path": dir.join("out").join(&job.id),
        "arguments": app.arguments(),
    });
    let (status, answer) = api.call("POST", "/jobs", Some(&body))?;
    if status != 202 {
        bail!("job {} refused ({status}): {answer}", job.id);
    }
    Ok(())
}

/// Waits until every job of `open` has ended (emptying it).
fn wait(api: &Api, open: &mut Vec<String>, p: &mut Progress) -> Result<()> {
    while !open.is_empty() {
        p.check()?;
        std::thread::sleep(POLL);
        let before = open.len();
        let mut still = Vec::new();
        for id in open.drain(..) {
            let (_, view) = api.call("GET", &format!("/jobs/{id}"), None)?;
            let state: Option<JobState> = serde_json::from_value(view["state"].clone()).ok();
            if !state.is_some_and(JobState::has_ended) {
                still.push(id);
            }
        }
        *open = still;
        if open.len() != before {
            p.ended += before - open.len();
            let elapsed = p.t0.elapsed().as_secs_f64();
            let eta = elapsed / p.ended as f64 * (p.total - p.ended) as f64;
            eprintln!(
                "live {}: {}/{} jobs ended after {elapsed:.0} s, about {eta:.0} s left",
                p.policy, p.ended, p.total
            );
        }
    }
    Ok(())
}

/// The run's rows from its stored history.
fn rows(
    run: &LiveRun,
    history: &Path,
    wall_s: f64,
    contention: Option<frugal_core::ContentionModel>,
) -> Result<(LiveRow, Vec<LiveJobRow>)> {
    let url = format!("sqlite:{}", history.display());
    let agents =
        |_: &Path, _: &frugal_core::Cluster| -> Result<Box<dyn frugal_core::PlacementPolicy>> {
            bail!("live runs take built-in policies")
        };
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let measured = tokio.block_on(whatif(&url, &WhatIf::default(), &agents))?;
    let predicted = tokio.block_on(whatif(
        &url,
        &WhatIf {
            estimates_only: true,
            ..WhatIf::default()
        },
        &agents,
    ))?;
    let contended = match contention {
        Some(model) => Some(tokio.block_on(whatif(
            &url,
            &WhatIf {
                estimates_only: true,
                contention: Some(model),
                ..WhatIf::default()
            },
            &agents,
        ))?),
        None => None,
    };
    let contended = contended.as_ref().map(|c| &c.rows[1]);
    let (actual, replayed, prediction) = (&measured.rows[0], &measured.rows[1], &predicted.rows[1]);
    let mut row = LiveRow {
        workload: run.workload.clone(),
        policy: run.policy.to_string(),
        repetition: run.repetition,
        jobs: actual.jobs,
        completed: actual.completed,
        cost_usd: actual.cost_usd,
        replayed_cost_usd: replayed.cost_usd,
        predicted_cost_usd: prediction.cost_usd,
        cost_error_pct: error_pct(prediction, actual),
        contended_cost_usd: contended.map(|c| c.cost_usd),
        contended_error_pct: contended.and_then(|c| error_pct(c, actual)),
        deadline_met_pct: actual.deadline_met_pct,
        predicted_deadline_met_pct: prediction.deadline_met_pct,
        mean_jct_s: actual.mean_jct_s,
        predicted_mean_jct_s: prediction.mean_jct_s,
        wordcount_mean_jct_s: None,
        sort_mean_jct_s: None,
        pagerank_mean_jct_s: None,
        wall_s,
        control_cpu_s: None,
        vm_cpu_s: None,
    };
    let store = tokio.block_on(Store::open(
        &url,
        Durability::Process,
        frugal_service::clock::Clock::new(1.0),
        StoreLimits::default(),
    ))?;
    let stored: Vec<StoredJob> = tokio.block_on(store.jobs())?;
    let origin = stored
        .iter()
        .map(|j| j.arrival)
        .fold(f64::INFINITY, f64::min);
    let jobs: Vec<LiveJobRow> = stored
        .iter()
        .map(|j| job_row(run, j, origin, measured.window.1))
        .collect();
    let mean_jct = |app: Application| {
        let jcts: Vec<f64> = jobs
            .iter()
            .filter(|j| j.application == app.name() && j.state == JobState::Completed.as_str())
            .filter_map(|j| j.jct_s)
            .collect();
        (!jcts.is_empty()).then(|| jcts.iter().sum::<f64>() / jcts.len() as f64)
    };
    row.wordcount_mean_jct_s = mean_jct(Application::WordCount);
    row.sort_mean_jct_s = mean_jct(Application::Sort);
    row.pagerank_mean_jct_s = mean_jct(Application::PageRank);
    Ok((row, jobs))
}

/// (predicted − measured) / measured in percent, if the measured bill is not zero.
fn error_pct(predicted: &WhatIfRow, measured: &WhatIfRow) -> Option<f64> {
    (measured.cost_usd > 0.0)
        .then(|| (predicted.cost_usd - measured.cost_usd) / measured.cost_usd * 100.0)
}

fn job_row(run: &LiveRun, j: &StoredJob, origin: f64, now: f64) -> LiveJobRow {
    let sub = &j.submission;
    let deadline = sub.deadline_s.map(|d| j.arrival + d);
    let outcome = deadline_outcome(deadline, j.state, j.finish, now);
    let kind = frugal_core::JobKind::parse(&sub.kind).unwrap_or(frugal_core::JobKind::CpuBound);
    let placement = j
        .placement
        .as_ref()
        .map(|p| {
            p.iter()
                .map(|(vm, n)| format!("{vm}:{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    LiveJobRow {
        workload: run.workload.clone(),
        policy: run.policy.to_string(),
        repetition: run.repetition,
        job: sub.id.clone(),
        application: Application::of(kind).name().to_string(),
        state: j.state.to_string(),
        executors: sub.executors,
        submitted_s: j.arrival - origin,
        wait_s: j.start.map(|st| st - j.arrival),
        run_s: j.start.zip(j.finish).map(|(st, f)| f - st),
        jct_s: j
            .finish
            .filter(|_| j.state.has_ended())
            .map(|f| f - j.arrival),
        estimated_s: sub.estimated_duration_s,
        deadline_met: match outcome {
            Some(DeadlineOutcome::Met) => Some(true),
            Some(DeadlineOutcome::Missed) => Some(false),
            Some(DeadlineOutcome::Pending) | None => None,
        },
        placement,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::TestbedScale;

    /// A live run's service is the testbed's Spark standalone cluster with the run's
    /// policy, and its configuration file reads back as the spec that wrote it.
    #[test]
    fn a_live_run_configures_its_service_by_a_spec() {
        let s = LiveSettings {
            frugal: "frugal".into(),
            python: "python3".into(),
            apps_dir: "spark".into(),
            cluster: "cluster.toml".into(),
            testbed: TestbedScale {
                core_share: 0.25,
                mib_per_gib: 256,
                in_site_mbit: 1000.0,
                cross_site_mbit: 300.0,
            },
            time_scale: 1.0,
            kind_penalty: 0.0,
            host_timeout_s: 30.0,
            input_scale: 1.0,
            prefix: "fl".into(),
            subnet: 3,
            dir: "live".into(),
            timeout: Duration::from_secs(60),
            contention: None,
        };
        let run = LiveRun {
            workload: "light".into(),
            repetition: 1,
            policy: "gio".parse().unwrap(),
            jobs: Vec::new(),
            one_at_a_time: false,
        };
        let spec = serve_spec(&s, &run, Path::new("live/light/gio"), 18_000);
        assert_eq!(spec.check(), Ok(()));
        let text = spec.to_toml();
        assert!(text.contains("policy = \"gio\"\n"), "{text}");
        assert!(text.contains("netns-subnet = \"10.78.3.0\"\n"), "{text}");
        assert_eq!(toml::from_str::<ServeSpec>(&text).unwrap(), spec);
    }
}

//! The `spark-standalone` backend: a real Spark standalone master on the control node and
//! workers on the hosts of the VMs, each host running a node agent (`frugal agent`, see
//! [`crate::agent`]) and powered on and off by a [`Provisioner`]: every VM a loopback
//! address of this machine ([`Loopback`]) or a network namespace of its own ([`Netns`]).
//!
//! Exact placement uses per-job *reservation workers*: a job placed as `{vm: n}` gets,
//! on each VM, a worker sized to `n` executors that offers a custom resource named after
//! the job (amount `n`); the job is submitted with `spark-submit` asking one unit of that
//! resource per executor, so its executors can land nowhere else and nothing else can
//! land there. The service orders the workers; the VM's agent starts them (the orders
//! travel in the replies to its heartbeats, see [`super::hosts`]). Progress comes from
//! the driver's REST API (`/api/v1/applications/<app>/allexecutors`), completion from the
//! driver's exit status (recorded in the job's directory by `frugal record-exit`, which
//! starts `spark-submit` without a shell). Drivers run on the control node.
//!
//! Hardening: applications run only from the applications directory (checked at
//! submission and again here), their arguments follow the application so they cannot
//! become `spark-submit` options, the master's REST submission server is off, the
//! daemons bind to the cluster's addresses only, and agents authenticate with their own
//! token.
//!
//! Timeouts that decide loss: hosts in [`super::hosts`]; the master drops a silent
//! worker after [`WORKER_TIMEOUT_S`], and a driver an unreachable executor after
//! [`NETWORK_TIMEOUT_S`] (Spark's defaults, 60 s and 120 s, would hold a partitioned
//! job for minutes).
//!
//! State lives in the work directory (`jobs/<id>/`: PID file, logs, exit status) and in
//! the agents' hosts, so a restarted service finds running jobs and workers again.

mod monitor;

use std::collections::HashMap;
use std::fs;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use frugal_core::cluster::VmId;

use super::{Backend, BackendEvent, HostFleet, HostsConfig, Launch};
use crate::agent::Runtime;
use crate::agent::protocol::{Heartbeat, Orders};
use crate::agent::worker::{FAST_JVM, spark_class};
use crate::process::{alive, claim, read_pid, spawn_group, stop_group, stop_pid_file};

/// Seconds of silence after which the master drops a worker (`spark.worker.timeout`).
pub const WORKER_TIMEOUT_S: u32 = 15;
/// Seconds after which a driver gives up on an executor it cannot reach
/// (`spark.network.timeout`; executors heartbeat every 2 s).
pub const NETWORK_TIMEOUT_S: u32 = 20;

/// Settings of the Spark standalone backend.
#[derive(Clone, Debug)]
pub struct SparkConfig {
    /// Spark installation (`SPARK_HOME`; the `pyspark` package directory works).
    pub spark_home: PathBuf,
    /// Python that runs drivers and executors' Python workers.
    pub python: PathBuf,
    /// Directory for PID files, logs and exit statuses (created if missing).
    pub work_dir: PathBuf,
    /// Master RPC port on the control address.
    pub master_port: u16,
    /// Master web UI port on the control address (its `/json/` reports workers and apps).
    pub master_ui_port: u16,
    /// Driver JVM memory, MiB.
    pub driver_memory_mib: u32,
    /// Interval between polls of each running job, seconds.
    pub poll_s: f64,
    /// The directory applications are run from.
    pub apps_dir: PathBuf,
    /// The `frugal` executable, whose `record-exit` subcommand starts each driver and
    /// records its exit status; without it the status is taken from the child process
    /// (lost if the service dies while the driver runs).
    pub exit_recorder: Option<PathBuf>,
    /// The hosts of the VMs.
    pub hosts: HostsConfig,
}

/// Errors setting up the Spark backend.
#[derive(Debug, thiserror::Error)]
pub enum SparkError {
    /// Spark could not be found.
    #[error("spark-standalone: {0}")]
    Setup(String),
    /// A file or process operation failed.
    #[error("spark-standalone: {0}")]
    Io(#[from] std::io::Error),
}

impl SparkConfig {
    /// Settings with `SPARK_HOME` from the environment or, failing that, the `pyspark`
    /// package of `python`; default ports 17077 (master) and 18080 (master UI); `hosts`
    /// as given.
    ///
    /// # Errors
    /// [`SparkError::Setup`] if neither gives a Spark with `bin/spark-class`.
    pub fn discover(
        python: &Path,
        work_dir: &Path,
        hosts: HostsConfig,
    ) -> Result<SparkConfig, SparkError> {
        let home = match std::env::var_os("SPARK_HOME") {
            Some(h) => PathBuf::from(h),
            None => {
                let out = Command::new(python)
                    .args([
                        "-c",
                        "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
                    ])
                    .output()
                    .map_err(|e| SparkError::Setup(format!("{}: {e}", python.display())))?;
                if !out.status.success() {
                    return Err(SparkError::Setup(format!(
                        "pyspark is not installed for {} (pip install pyspark) and SPARK_HOME is not set",
                        python.display()
                    )));
                }
                PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
            }
        };
        if !home.join("bin/spark-class").exists() {
            return Err(SparkError::Setup(format!(
                "{} has no bin/spark-class",
                home.display()
            )));
        }
        Ok(SparkConfig {
            spark_home: home,
            python: python.to_path_buf(),
            work_dir: work_dir.to_path_buf(),
            master_port: 17077,
            master_ui_port: 18080,
            driver_memory_mib: 512,
            poll_s: 1.0,
            apps_dir: work_dir.join("apps"),
            exit_recorder: None,
            hosts,
        })
    }

    fn jobs_dir(&self) -> PathBuf {
        self.work_dir.join("jobs")
    }
}

struct Run {
    id: String,
    stop: Arc<AtomicBool>,
}

/// State shared with the per-job monitor threads and the host checker.
struct Shared {
    cfg: SparkConfig,
    events: UnboundedSender<BackendEvent>,
    runs: Mutex<HashMap<usize, Run>>,
    fleet: Arc<HostFleet>,
    control: Ipv4Addr,
}

impl Shared {
    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Run>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn job_dir(&self, id: &str) -> PathBuf {
        self.cfg.jobs_dir().join(id)
    }

    fn master_url(&self) -> String {
        format!("spark://{}:{}", self.control, self.cfg.master_port)
    }

    /// Job `idx` (`id`) ended or failed to start: it no longer runs and its workers are
    /// no longer ordered.
    fn ended(&self, idx: usize, id: &str) -> bool {
        self.fleet.forget(id);
        self.runs().remove(&idx).is_some()
    }

    fn fail(&self, idx: usize, id: &str, reason: String) {
        if self.ended(idx, id) {
            let _ = self.events.send(BackendEvent::Failed { idx, reason });
        }
    }
}

/// A real Spark standalone cluster over provisioned hosts.
pub struct SparkStandalone {
    shared: Arc<Shared>,
}

impl SparkStandalone {
    /// Sets up the hosts ([`HostFleet`]), starts the master on the control address (or
    /// reuses one already answering on the configured UI port, e.g. after a service
    /// restart) and waits until it is ALIVE. Blocks for up to two minutes.
    ///
    /// # Errors
    /// [`SparkError`] if the cluster has more than 253 VMs, the provisioner or the work
    /// directory cannot be set up, the master cannot be started, or it is not ALIVE in
    /// time.
    pub fn start(
        cfg: SparkConfig,
        vms: usize,
        events: UnboundedSender<BackendEvent>,
    ) -> Result<SparkStandalone, SparkError> {
        fs::create_dir_all(cfg.jobs_dir())?;
        let runtime = Runtime::Spark {
            spark_home: cfg.spark_home.clone(),
        };
        let fleet = HostFleet::start(&cfg.hosts, runtime, vms, events.clone())
            .map_err(|e| SparkError::Setup(e.to_string()))?;
        let control = fleet.control_address();
        let http = monitor::agent();
        if !monitor::master_alive(&http, control, cfg.master_ui_port) {
            let mut cmd = spark_class(&cfg.spark_home, "org.apache.spark.deploy.master.Master");
            cmd.env("SPARK_LOCAL_IP", control.to_string())
                .env(
                    "SPARK_MASTER_OPTS",
                    format!(
                        "-Dspark.master.rest.enabled=false \
                         -Dspark.worker.timeout={WORKER_TIMEOUT_S} {FAST_JVM}"
                    ),
                )
                .args(["--host", &control.to_string(), "--port"])
                .arg(cfg.master_port.to_string())
                .arg("--webui-port")
                .arg(cfg.master_ui_port.to_string());
            spawn_group(
                &mut cmd,
                &cfg.work_dir.join("master.log"),
                &cfg.work_dir.join("master.pid"),
                None,
            )?;
            let t0 = Instant::now();
            while !monitor::master_alive(&http, control, cfg.master_ui_port) {
                if t0.elapsed() > Duration::from_secs(120) {
                    return Err(SparkError::Setup(format!(
                        "the master did not become ALIVE in 120 s (see {})",
                        cfg.work_dir.join("master.log").display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        let shared = Arc::new(Shared {
            fleet,
            control,
            cfg,
            events,
            runs: Mutex::new(HashMap::new()),
        });
        Ok(SparkStandalone { shared })
    }

    fn watch(&self, idx: usize, id: String) {
        let stop = Arc::new(AtomicBool::new(false));
        self.shared.runs().insert(
            idx,
            Run {
                id: id.clone(),
                stop: Arc::clone(&stop),
            },
        );
        let shared = Arc::clone(&self.shared);
        std::thread::spawn(move || monitor::run(&shared, idx, &id, &stop));
    }

    /// Orders `job`'s reservation workers (one per VM of its placement).
    fn order_workers(&self, job: &Launch) {
        self.shared.fleet.order(job, &self.shared.master_url());
    }
}

fn free_port(control: Ipv4Addr) -> std::io::Result<u16> {
    Ok(TcpListener::bind((control, 0))?.local_addr()?.port())
}

/// Submits `job`'s application with `spark-submit` on the control node, started without
/// a shell: through `frugal record-exit`, which records the exit status in
/// `dir/exit_code` so it survives a service restart, or directly with a thread recording
/// it when no recorder is set.
fn start_driver(shared: &Shared, dir: &Path, job: &Launch) -> std::io::Result<()> {
    let cfg = &shared.cfg;
    let control = shared.control.to_string();
    let s = &job.submission;
    let id = &s.id;
    let application = s
        .application(&cfg.apps_dir)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.to_string()))?;
    let ui = free_port(shared.control)?;
    fs::write(dir.join("ui_port"), ui.to_string())?;
    let submit = cfg.spark_home.join("bin/spark-submit");
    let exit_file = dir.join("exit_code");
    let mut cmd = match &cfg.exit_recorder {
        Some(frugal) => {
            let mut c = Command::new(frugal);
            c.arg("record-exit").arg(&exit_file).arg("--").arg(&submit);
            c
        }
        None => Command::new(&submit),
    };
    cmd.env("SPARK_HOME", &cfg.spark_home)
        .env("SPARK_LOCAL_IP", &control)
        .env("PYSPARK_PYTHON", &cfg.python)
        .args(["--master", &shared.master_url(), "--name", id])
        .arg("--driver-memory")
        .arg(format!("{}m", cfg.driver_memory_mib))
        .args(["--driver-java-options", FAST_JVM]);
    let ec = s.executor_cores;
    for conf in [
        format!("spark.driver.host={control}"),
        format!("spark.driver.bindAddress={control}"),
        format!("spark.ui.port={ui}"),
        "spark.ui.showConsoleProgress=false".to_string(),
        format!("spark.network.timeout={NETWORK_TIMEOUT_S}s"),
        "spark.network.timeoutInterval=5s".to_string(),
        "spark.executor.heartbeatInterval=2s".to_string(),
        format!("spark.pyspark.python={}", cfg.python.display()),
        format!("spark.executor.memory={}m", job.executor_mib()),
        format!("spark.executor.cores={ec}"),
        format!("spark.executor.resource.{id}.amount=1"),
        format!("spark.task.resource.{id}.amount={}", 1.0 / f64::from(ec)),
        format!("spark.executor.extraJavaOptions={FAST_JVM}"),
    ] {
        cmd.arg("--conf").arg(conf);
    }
    if !s.main_class.is_empty() {
        cmd.args(["--class", &s.main_class]);
    }
    // Everything after the application is the application's own arguments.
    cmd.arg(&application);
    for a in [&s.input_path, &s.output_path] {
        if !a.is_empty() {
            cmd.arg(a);
        }
    }
    cmd.args(&s.arguments);
    // Without the recorder, the reaping thread records the status (lost if the service
    // dies while the driver runs).
    let fallback = cfg.exit_recorder.is_none().then_some(exit_file.as_path());
    spawn_group(
        &mut cmd,
        &dir.join("driver.log"),
        &dir.join("driver.pid"),
        fallback,
    )?;
    Ok(())
}

impl Backend for SparkStandalone {
    fn name(&self) -> &'static str {
        "spark-standalone"
    }

    /// Provisions the VM's host (it then has the boot timeout to heartbeat).
    fn power_on(&self, vm: VmId) {
        self.shared.fleet.power_on(vm);
    }

    /// Drops the VM's orders and removes its host (agent, workers, machine).
    fn power_off(&self, vm: VmId) {
        self.shared.fleet.power_off(vm);
    }

    fn launch(&self, job: Launch) {
        let idx = job.idx;
        let id = job.submission.id.clone();
        let dir = self.shared.job_dir(&id);
        let _ = fs::remove_dir_all(&dir);
        self.order_workers(&job);
        match fs::create_dir_all(&dir).and_then(|_| start_driver(&self.shared, &dir, &job)) {
            Ok(()) => self.watch(idx, id),
            Err(e) => {
                self.shared.fleet.forget(&id);
                let _ = self.shared.events.send(BackendEvent::Failed {
                    idx,
                    reason: format!("could not start the job on Spark: {e}"),
                });
            }
        }
    }

    fn add_executors(&self, job: Launch) {
        self.order_workers(&job);
    }

    fn stop(&self, idx: usize) {
        let Some(run) = self.shared.runs().remove(&idx) else {
            return;
        };
        run.stop.store(true, Ordering::SeqCst);
        self.shared.fleet.forget(&run.id);
        let dir = self.shared.job_dir(&run.id);
        if let Some(pid) = claim(&dir.join("driver.pid")) {
            std::thread::spawn(move || {
                if alive(pid) {
                    stop_group(pid, 3000);
                }
            });
        }
    }

    fn reattach(&self, job: &Launch) -> bool {
        let dir = self.shared.job_dir(&job.submission.id);
        let running =
            dir.join("exit_code").exists() || read_pid(&dir.join("driver.pid")).is_some_and(alive);
        if running {
            self.shared.fleet.reattach(job);
            self.watch(job.idx, job.submission.id.clone());
        }
        running
    }

    fn restored(&self) {
        self.shared.fleet.restored();
    }

    fn heartbeat(&self, hb: &Heartbeat) -> Option<Orders> {
        self.shared.fleet.heartbeat(hb)
    }

    fn shutdown(&self) {
        for run in self.shared.runs().values() {
            run.stop.store(true, Ordering::SeqCst);
        }
        for dir in fs::read_dir(self.shared.cfg.jobs_dir())
            .into_iter()
            .flatten()
            .flatten()
        {
            stop_pid_file(&dir.path().join("driver.pid"), 3000);
        }
        self.shared.fleet.shutdown();
        stop_pid_file(&self.shared.cfg.work_dir.join("master.pid"), 3000);
    }
}

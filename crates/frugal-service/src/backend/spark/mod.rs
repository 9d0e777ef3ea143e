//! The `spark-standalone` backend: a real Spark standalone master and workers on one
//! machine, each VM of the cluster being its own loopback address (VM `k` is
//! `127.0.0.{k+2}`; `127.0.0.1` is the master's and the drivers').
//!
//! Exact placement uses per-job *reservation workers*: a job placed as `{vm: n}` gets,
//! on each VM, a worker sized to `n` executors that offers a custom resource named after
//! the job (amount `n`); the job is submitted with `spark-submit` asking one unit of that
//! resource per executor, so its executors can land nowhere else and nothing else can
//! land there. A VM is on while it hosts reservation workers. Progress comes from the
//! driver's REST API (`/api/v1/applications/<app>/allexecutors`), completion from the
//! driver's exit status (recorded in the job's directory by `frugal record-exit`, which
//! starts `spark-submit` without a shell).
//!
//! Hardening: applications run only from the applications directory (checked at
//! submission and again here), their arguments follow the application so they cannot
//! become `spark-submit` options, the master's REST submission server is off and every
//! daemon and UI binds to loopback addresses.
//!
//! State lives in the work directory (`jobs/<id>/`: PID files, logs, exit status), so a
//! restarted service finds running jobs again.

mod monitor;
mod process;

use std::collections::HashMap;
use std::fs;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use frugal_core::cluster::VmId;
use frugal_core::resources::MIB_PER_GIB;

use super::{Backend, BackendEvent, Launch};
use process::{alive, claim, read_pid, spawn_group, stop_group, stop_pid_file};

/// JVM flags that halve JVM start-up on small machines (C1 only, serial GC).
const FAST_JVM: &str = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

/// Settings of the Spark standalone backend.
#[derive(Clone, Debug)]
pub struct SparkConfig {
    /// Spark installation (`SPARK_HOME`; the `pyspark` package directory works).
    pub spark_home: PathBuf,
    /// Python that runs drivers and executors' Python workers.
    pub python: PathBuf,
    /// Directory for PID files, logs and exit statuses (created if missing).
    pub work_dir: PathBuf,
    /// Master RPC port on 127.0.0.1.
    pub master_port: u16,
    /// Master web UI port on 127.0.0.1 (its `/json/` reports workers and apps).
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
    /// package of `python`; default ports 17077 (master) and 18080 (master UI).
    ///
    /// # Errors
    /// [`SparkError::Setup`] if neither gives a Spark with `bin/spark-class`.
    pub fn discover(python: &Path, work_dir: &Path) -> Result<SparkConfig, SparkError> {
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
        })
    }

    fn master_url(&self) -> String {
        format!("spark://127.0.0.1:{}", self.master_port)
    }

    fn jobs_dir(&self) -> PathBuf {
        self.work_dir.join("jobs")
    }
}

/// The loopback address of VM `vm`: `127.0.0.{vm+2}`.
///
/// # Panics
/// Never for clusters the backend accepted (at most 253 VMs).
pub fn vm_address(vm: VmId) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, u8::try_from(vm + 2).expect("at most 253 VMs"))
}

/// The VM whose address is `ip`, if any.
pub fn vm_of(ip: &str) -> Option<VmId> {
    let ip: Ipv4Addr = ip.parse().ok()?;
    let [a, b, c, d] = ip.octets();
    (a == 127 && b == 0 && c == 0 && d >= 2).then(|| u32::from(d) - 2)
}

struct Run {
    id: String,
    stop: Arc<AtomicBool>,
}

/// State shared with the per-job monitor threads.
struct Shared {
    cfg: SparkConfig,
    events: UnboundedSender<BackendEvent>,
    runs: Mutex<HashMap<usize, Run>>,
}

impl Shared {
    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Run>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn job_dir(&self, id: &str) -> PathBuf {
        self.cfg.jobs_dir().join(id)
    }

    fn fail(&self, idx: usize, reason: String) {
        self.runs().remove(&idx);
        let _ = self.events.send(BackendEvent::Failed { idx, reason });
    }
}

/// A real Spark standalone cluster on loopback.
pub struct SparkStandalone {
    shared: Arc<Shared>,
}

impl SparkStandalone {
    /// Starts the master (or reuses one already answering on the configured UI port,
    /// e.g. after a service restart) and waits until it is ALIVE. Blocks for up to two
    /// minutes.
    ///
    /// # Errors
    /// [`SparkError`] if the work directory cannot be made, the master cannot be
    /// started, or it is not ALIVE in time.
    pub fn start(
        cfg: SparkConfig,
        vms: usize,
        events: UnboundedSender<BackendEvent>,
    ) -> Result<SparkStandalone, SparkError> {
        if vms > 253 {
            return Err(SparkError::Setup(format!(
                "{vms} VMs: at most 253 fit in 127.0.0.2–127.0.0.254"
            )));
        }
        fs::create_dir_all(cfg.jobs_dir())?;
        let agent = monitor::agent();
        if !monitor::master_alive(&agent, cfg.master_ui_port) {
            let mut cmd = spark_class(&cfg, "org.apache.spark.deploy.master.Master");
            cmd.env("SPARK_LOCAL_IP", "127.0.0.1")
                .env(
                    "SPARK_MASTER_OPTS",
                    format!("-Dspark.master.rest.enabled=false {FAST_JVM}"),
                )
                .args(["--host", "127.0.0.1", "--port"])
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
            while !monitor::master_alive(&agent, cfg.master_ui_port) {
                if t0.elapsed() > Duration::from_secs(120) {
                    return Err(SparkError::Setup(format!(
                        "the master did not become ALIVE in 120 s (see {})",
                        cfg.work_dir.join("master.log").display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        Ok(SparkStandalone {
            shared: Arc::new(Shared {
                cfg,
                events,
                runs: Mutex::new(HashMap::new()),
            }),
        })
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
}

/// `spark-class <main>` with the environment every daemon needs.
fn spark_class(cfg: &SparkConfig, main: &str) -> Command {
    let mut cmd = Command::new(cfg.spark_home.join("bin/spark-class"));
    cmd.arg(main)
        .env("SPARK_HOME", &cfg.spark_home)
        .env("SPARK_NO_DAEMONIZE", "1")
        .env("SPARK_DAEMON_MEMORY", "256m");
    cmd
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Executor memory of `job`, MiB.
fn executor_mib(job: &Launch) -> u64 {
    (job.submission.executor_memory_gib * f64::from(MIB_PER_GIB)) as u64
}

/// Starts one reservation worker per VM of `job.placement` (numbered after any the job
/// already had).
fn start_workers(cfg: &SparkConfig, dir: &Path, job: &Launch) -> std::io::Result<()> {
    let id = &job.submission.id;
    let workers = dir.join("workers");
    fs::create_dir_all(&workers)?;
    let before = fs::read_dir(&workers)?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .count();
    for (k, &(vm, n)) in (before..).zip(&job.placement.executors_per_vm) {
        let script = dir.join(format!("discover-{n}.sh"));
        let addresses: Vec<String> = (0..n).map(|i| format!("\"{i}\"")).collect();
        fs::write(
            &script,
            format!(
                "#!/bin/sh\necho '{{\"name\":\"{id}\",\"addresses\":[{}]}}'\n",
                addresses.join(",")
            ),
        )?;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
        let ip = vm_address(vm).to_string();
        let mut cmd = spark_class(cfg, "org.apache.spark.deploy.worker.Worker");
        cmd.env("SPARK_LOCAL_IP", &ip)
            .env(
                "SPARK_WORKER_OPTS",
                format!(
                    "-Dspark.worker.resource.{id}.amount={n} \
                     -Dspark.worker.resource.{id}.discoveryScript={} {FAST_JVM}",
                    script.display()
                ),
            )
            .args(["--host", &ip, "--port", "0", "--webui-port", "0", "--cores"])
            .arg((n * job.submission.executor_cores).to_string())
            .arg("--memory")
            .arg(format!("{}m", u64::from(n) * executor_mib(job)))
            .arg("--work-dir")
            .arg(dir.join("work"))
            .arg(cfg.master_url());
        spawn_group(
            &mut cmd,
            &workers.join(format!("{vm}-{k}.log")),
            &workers.join(format!("{vm}-{k}.pid")),
            None,
        )?;
    }
    Ok(())
}

/// Submits `job`'s application with `spark-submit`, started without a shell: through
/// `frugal record-exit`, which records the exit status in `dir/exit_code` so it survives
/// a service restart, or directly with a thread recording it when no recorder is set.
fn start_driver(cfg: &SparkConfig, dir: &Path, job: &Launch) -> std::io::Result<()> {
    let s = &job.submission;
    let id = &s.id;
    let application = s
        .application(&cfg.apps_dir)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.to_string()))?;
    let ui = free_port()?;
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
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("PYSPARK_PYTHON", &cfg.python)
        .args(["--master", &cfg.master_url(), "--name", id])
        .arg("--driver-memory")
        .arg(format!("{}m", cfg.driver_memory_mib))
        .args(["--driver-java-options", FAST_JVM]);
    let ec = s.executor_cores;
    for conf in [
        "spark.driver.host=127.0.0.1".to_string(),
        "spark.driver.bindAddress=127.0.0.1".to_string(),
        format!("spark.ui.port={ui}"),
        "spark.ui.showConsoleProgress=false".to_string(),
        format!("spark.pyspark.python={}", cfg.python.display()),
        format!("spark.executor.memory={}m", executor_mib(job)),
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

/// Stops every reservation worker of the job in `dir`.
fn stop_workers(dir: &Path) {
    for pid_file in pid_files(&dir.join("workers"), |_| true) {
        stop_pid_file(&pid_file, 3000);
    }
}

/// Running-process PID files (`*.pid`) in `dir` whose stem passes `keep`.
fn pid_files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pid"))
        .filter(|p| p.file_stem().and_then(|s| s.to_str()).is_some_and(&keep))
        .collect();
    files.sort();
    files
}

impl Backend for SparkStandalone {
    fn name(&self) -> &'static str {
        "spark-standalone"
    }

    /// A VM's workers start with the jobs placed on it, so turning it on needs nothing.
    fn power_on(&self, _vm: VmId) {}

    /// Stops whatever still runs on `vm`. The workers are claimed before this returns,
    /// so a job launched on the VM right after keeps its new workers.
    fn power_off(&self, vm: VmId) {
        let prefix = format!("{vm}-");
        let pids: Vec<u32> = fs::read_dir(self.shared.cfg.jobs_dir())
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|dir| pid_files(&dir.path().join("workers"), |s| s.starts_with(&prefix)))
            .filter_map(|f| claim(&f))
            .collect();
        std::thread::spawn(move || {
            for pid in pids.into_iter().filter(|&p| alive(p)) {
                stop_group(pid, 3000);
            }
        });
    }

    fn launch(&self, job: Launch) {
        let idx = job.idx;
        let id = job.submission.id.clone();
        let dir = self.shared.job_dir(&id);
        let _ = fs::remove_dir_all(&dir);
        let started = fs::create_dir_all(&dir)
            .and_then(|_| start_workers(&self.shared.cfg, &dir, &job))
            .and_then(|_| start_driver(&self.shared.cfg, &dir, &job));
        match started {
            Ok(()) => self.watch(idx, id),
            Err(e) => {
                stop_workers(&dir);
                self.shared
                    .fail(idx, format!("could not start the job on Spark: {e}"));
            }
        }
    }

    fn add_executors(&self, job: Launch) {
        let dir = self.shared.job_dir(&job.submission.id);
        if let Err(e) = start_workers(&self.shared.cfg, &dir, &job) {
            stop_pid_file(&dir.join("driver.pid"), 3000);
            stop_workers(&dir);
            self.shared.fail(
                job.idx,
                format!("could not start a replacement reservation worker: {e}"),
            );
        }
    }

    fn stop(&self, idx: usize) {
        let Some(run) = self.shared.runs().remove(&idx) else {
            return;
        };
        run.stop.store(true, Ordering::SeqCst);
        let dir = self.shared.job_dir(&run.id);
        let mut pids: Vec<u32> = claim(&dir.join("driver.pid")).into_iter().collect();
        pids.extend(
            pid_files(&dir.join("workers"), |_| true)
                .iter()
                .filter_map(|f| claim(f)),
        );
        std::thread::spawn(move || {
            for pid in pids.into_iter().filter(|&p| alive(p)) {
                stop_group(pid, 3000);
            }
        });
    }

    fn reattach(&self, job: &Launch) -> bool {
        let dir = self.shared.job_dir(&job.submission.id);
        let running =
            dir.join("exit_code").exists() || read_pid(&dir.join("driver.pid")).is_some_and(alive);
        if running {
            self.watch(job.idx, job.submission.id.clone());
        } else {
            stop_workers(&dir);
        }
        running
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
            stop_workers(&dir.path());
        }
        stop_pid_file(&self.shared.cfg.work_dir.join("master.pid"), 3000);
    }
}

//! Reservation workers on the agent's host: started from a [`WorkerOrder`] with the
//! recipe of the Spark backend (one standalone worker per (job, VM) offering the job's
//! resource) or, for the emulated backend, as an idle placeholder process; found again
//! by their command-line marker, stopped by process group.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use super::Runtime;
use super::cgroup::WorkerGroups;
use super::protocol::{WorkerOrder, worker_marker};
use crate::process::spawn_group;

/// JVM flags that halve JVM start-up on small machines (C1 only, serial GC).
pub const FAST_JVM: &str = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

/// `spark-class <main>` with the environment every Spark daemon needs.
pub fn spark_class(spark_home: &Path, main: &str) -> Command {
    let mut cmd = Command::new(spark_home.join("bin/spark-class"));
    cmd.arg(main)
        .env("SPARK_HOME", spark_home)
        .env("SPARK_NO_DAEMONIZE", "1")
        .env("SPARK_DAEMON_MEMORY", "256m");
    cmd
}

/// Starts the worker `order` for `host` on `address` under `runtime`, in a `cpu` group of
/// its own if `groups` is given, with its log and PID file (and a Spark worker's
/// discovery script) in `dir`. Returns its PID (its process group).
///
/// # Errors
/// If a file cannot be written or the process cannot be started.
pub fn start(
    runtime: &Runtime,
    groups: Option<&WorkerGroups>,
    dir: &Path,
    host: &str,
    address: &str,
    order: &WorkerOrder,
) -> std::io::Result<u32> {
    fs::create_dir_all(dir)?;
    let name = &order.name;
    let mut cmd = match runtime {
        Runtime::Spark { spark_home } => spark_worker(spark_home, dir, host, address, order)?,
        // A shell idling in a loop: its command line keeps the marker (as `$0`) for as
        // long as it runs, and stopping its process group stops it.
        Runtime::Emulated => {
            let mut c = Command::new("sh");
            c.args(["-c", "while :; do sleep 3600; done"])
                .arg(worker_marker(host, name));
            c
        }
    };
    if let Some(g) = groups {
        cmd = g.wrap(name, order.cores, &cmd)?;
    }
    spawn_group(
        &mut cmd,
        &dir.join(format!("{name}.log")),
        &dir.join(format!("{name}.pid")),
        None,
    )
}

/// The command of a Spark standalone worker for `order`, after writing its resource
/// discovery script into `dir`.
fn spark_worker(
    spark_home: &Path,
    dir: &Path,
    host: &str,
    address: &str,
    order: &WorkerOrder,
) -> std::io::Result<Command> {
    let (name, resource, n) = (&order.name, &order.resource, order.executors);
    let script = dir.join(format!("{name}.discover.sh"));
    let addresses: Vec<String> = (0..n).map(|i| format!("\"{i}\"")).collect();
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{{\"name\":\"{resource}\",\"addresses\":[{}]}}'\n",
            addresses.join(",")
        ),
    )?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
    let mut cmd = spark_class(spark_home, "org.apache.spark.deploy.worker.Worker");
    cmd.env("SPARK_LOCAL_IP", address)
        .env(
            "SPARK_WORKER_OPTS",
            format!(
                "{} -Dspark.worker.resource.{resource}.amount={n} \
                 -Dspark.worker.resource.{resource}.discoveryScript={} {FAST_JVM}",
                worker_marker(host, name),
                script.display()
            ),
        )
        .args([
            "--host",
            address,
            "--port",
            "0",
            "--webui-port",
            "0",
            "--cores",
        ])
        .arg(order.cores.to_string())
        .arg("--memory")
        .arg(format!("{}m", order.memory_mib))
        .arg("--work-dir")
        .arg(dir.join(format!("{name}.work")))
        .arg(&order.master_url);
    Ok(cmd)
}

/// The reservation workers of `host` running on this machine, by name, with their PIDs:
/// every process whose command line carries the host's marker.
pub fn running(host: &str) -> BTreeMap<String, u32> {
    let prefix = worker_marker(host, "");
    let mut found = BTreeMap::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let name = cmdline
            .split(|&b| b == 0)
            .filter_map(|arg| std::str::from_utf8(arg).ok())
            .find_map(|arg| arg.strip_prefix(prefix.as_str()));
        if let Some(name) = name
            && crate::process::alive(pid)
        {
            found.insert(name.to_string(), pid);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process carrying a host's marker is found by that host only, with its PID, and
    /// not once it has exited.
    #[test]
    fn workers_are_found_by_their_marker() {
        let host = format!("test-host-{}", std::process::id());
        // The shell waits in its `read` builtin, so no exec of a lone command in place
        // can replace the command line that carries the marker.
        let mut child = Command::new("sh")
            .args(["-c", "read line"])
            .arg(worker_marker(&host, "job-1-0"))
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // `spawn` may return before the kernel has published the new command line (a
        // vfork parent resumes before exec has set up the arguments), so the scan is
        // retried as the agent's next beat would.
        let t0 = std::time::Instant::now();
        let mut found = running(&host);
        while found.is_empty() && t0.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(10));
            found = running(&host);
        }
        assert_eq!(found.get("job-1-0"), Some(&child.id()), "{found:?}");
        assert_eq!(found.len(), 1);
        assert!(running(&format!("{host}x")).is_empty(), "another host's");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(running(&host).is_empty());
    }
}

//! CPU shares in cgroup v1, for testbeds that stand VMs up as processes on one machine
//! (`frugal serve --testbed`, [`crate::provision::testbed`]).
//!
//! A VM's agent runs in the VM's `cpu` group, capped at its cores' share of the machine.
//! That cap alone lets a lone executor use the idle share of its VM's other cores, so a
//! 1-core executor alone on a 4-core VM ran 2–3× faster than two packed onto a 2-core
//! VM, which real VMs (where an executor's cores are its own) do not show. With
//! `frugal agent --worker-core-share F` each reservation worker — a Spark worker and the
//! executors it launches, which inherit its group — runs in its own group below the
//! agent's, capped at `F` of a physical core per core it offers: an executor's speed
//! then does not depend on what else its VM runs, as on real VMs.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cgroup v1 `cpu` hierarchy.
pub const CPU_ROOT: &str = "/sys/fs/cgroup/cpu";
/// The CPU bandwidth period, microseconds (the kernel's default).
pub const CFS_PERIOD_US: u64 = 100_000;

/// The CFS quota, microseconds per [`CFS_PERIOD_US`], that gives `cores` cores at
/// `core_share` of a physical core each; at least 1 ms (the kernel's minimum).
///
/// E.g. 2 cores at 0.25: 50 000 µs per 100 000 µs, half a physical core.
pub fn cpu_quota_us(cores: u32, core_share: f64) -> u64 {
    (f64::from(cores) * core_share * CFS_PERIOD_US as f64)
        .round()
        .max(1000.0) as u64
}

/// Caps the `cpu` group `dir` (created if missing) at `quota_us` per period.
///
/// # Errors
/// If the directory or a control file cannot be written.
pub fn cap_cpu(dir: &Path, quota_us: u64) -> io::Result<()> {
    set(&dir.join("cpu.cfs_period_us"), &CFS_PERIOD_US.to_string())?;
    set(&dir.join("cpu.cfs_quota_us"), &quota_us.to_string())
}

/// Writes `value` to the cgroup file `path`, creating its group; an error names the file.
///
/// # Errors
/// If the group cannot be created or the file written.
pub fn set(path: &Path, value: &str) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(named)?;
    }
    fs::write(path, value).map_err(named)
}

/// The command line `sh -c 'echo $$ > G1/cgroup.procs && … && exec "$@"' sh` that moves
/// itself into the groups `groups` and then runs what follows it (so the whole process
/// tree it starts is in them from its first instruction).
pub fn entering(groups: &[&Path]) -> Vec<String> {
    let moves: Vec<String> = groups
        .iter()
        .map(|g| format!("echo $$ > {}", g.join("cgroup.procs").display()))
        .collect();
    vec![
        "sh".into(),
        "-c".into(),
        format!("{} && exec \"$@\"", moves.join(" && ")),
        "sh".into(),
    ]
}

/// Removes group `dir` and every group below it, deepest first, after `kill` was called
/// with each PID they hold; a group whose processes have not exited after 5 s stays.
pub fn remove_tree(dir: &Path, kill: &dyn Fn(&str)) {
    let Ok(children) = fs::read_dir(dir) else {
        return;
    };
    for child in children.flatten().filter(|c| c.path().is_dir()) {
        remove_tree(&child.path(), kill);
    }
    if let Ok(procs) = fs::read_to_string(dir.join("cgroup.procs")) {
        procs.lines().for_each(kill);
    }
    // Killed processes leave the group as they exit.
    for _ in 0..50 {
        if fs::remove_dir(dir).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The reservation workers' groups: one per worker, below the agent's own `cpu` group.
#[derive(Clone, Debug)]
pub struct WorkerGroups {
    /// The agent's group.
    dir: PathBuf,
    /// Share of a physical core per core a worker offers.
    core_share: f64,
}

impl WorkerGroups {
    /// The groups below this process's `cpu` group (from `/proc/self/cgroup`).
    ///
    /// # Errors
    /// A message if this process is in no v1 `cpu` group that it can see and write (e.g.
    /// under `ip netns exec`, which hides the cgroup file system: a testbed's agents enter
    /// their namespace with `nsenter --net`).
    pub fn of_this_process(core_share: f64) -> Result<Self, String> {
        let table = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("/proc/self/cgroup: {e}"))?;
        let path = table
            .lines()
            .filter_map(|line| {
                let mut fields = line.splitn(3, ':');
                fields.next()?;
                Some((fields.next()?, fields.next()?))
            })
            .find(|(controllers, _)| controllers.split(',').any(|c| c == "cpu"))
            .map(|(_, path)| path.trim_start_matches('/'))
            .ok_or("this process is in no cgroup v1 `cpu` group")?;
        let dir = Path::new(CPU_ROOT).join(path);
        if !dir.join("cpu.cfs_quota_us").exists() {
            return Err(format!(
                "{} is not visible: the cgroup file system is not mounted here",
                dir.display()
            ));
        }
        Ok(Self { dir, core_share })
    }

    /// `cmd` run inside worker `name`'s group, capped for `cores` cores (the group is
    /// created).
    ///
    /// # Errors
    /// If the group cannot be created or capped.
    pub fn wrap(&self, name: &str, cores: u32, cmd: &Command) -> io::Result<Command> {
        let group = self.dir.join(name);
        cap_cpu(&group, cpu_quota_us(cores, self.core_share))?;
        let line = entering(&[&group]);
        let mut wrapped = Command::new(&line[0]);
        wrapped
            .args(&line[1..])
            .arg(cmd.get_program())
            .args(cmd.get_args());
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => wrapped.env(key, v),
                None => wrapped.env_remove(key),
            };
        }
        if let Some(dir) = cmd.get_current_dir() {
            wrapped.current_dir(dir);
        }
        Ok(wrapped)
    }

    /// Removes the groups of workers that no longer run (a group still holding a
    /// process is busy and stays until a later call).
    pub fn prune(&self, running: &BTreeMap<String, u32>) {
        let Ok(groups) = fs::read_dir(&self.dir) else {
            return;
        };
        for g in groups.flatten().filter(|g| g.path().is_dir()) {
            let name = g.file_name().to_string_lossy().into_owned();
            if !running.contains_key(&name) {
                let _ = fs::remove_dir(g.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 core at 0.25 is a quarter of the 100 ms period; the floor is 1 ms.
    #[test]
    fn quotas_are_cores_times_share_of_the_period() {
        assert_eq!(cpu_quota_us(1, 0.25), 25_000);
        assert_eq!(cpu_quota_us(4, 0.25), 100_000);
        assert_eq!(cpu_quota_us(3, 0.5), 150_000);
        assert_eq!(cpu_quota_us(1, 0.001), 1000);
    }

    #[test]
    fn the_wrapper_moves_itself_then_execs() {
        let line = entering(&[Path::new("/g/cpu/a"), Path::new("/g/memory/a")]);
        assert_eq!(
            line[2],
            "echo $$ > /g/cpu/a/cgroup.procs && echo $$ > /g/memory/a/cgroup.procs && exec \"$@\""
        );
        assert_eq!(line[3], "sh");
    }
}

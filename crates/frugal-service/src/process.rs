//! Processes the Spark backend starts: each in its own process group (so it outlives a
//! crashed service and can be stopped as a whole), its PID in a file under the work
//! directory (so a restarted service finds it again).

use std::fs;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Starts `cmd` in a new process group with stdout and stderr appended to `log`, writes
/// its PID to `pid_file` and reaps it when it exits — writing its exit status (128 + n
/// for death by signal n) atomically to `exit_file` if given. Returns the PID (= group
/// id).
pub fn spawn_group(
    cmd: &mut Command,
    log: &Path,
    pid_file: &Path,
    exit_file: Option<&Path>,
) -> io::Result<u32> {
    use std::os::unix::process::ExitStatusExt;
    let out = fs::OpenOptions::new().create(true).append(true).open(log)?;
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    let mut child = cmd.spawn()?;
    let pid = child.id();
    fs::write(pid_file, pid.to_string())?;
    let exit_file = exit_file.map(Path::to_path_buf);
    std::thread::spawn(move || {
        let Ok(status) = child.wait() else { return };
        if let Some(file) = exit_file {
            let code = status
                .code()
                .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
            let tmp = file.with_extension("tmp");
            let _ = fs::write(&tmp, format!("{code}\n")).and_then(|_| fs::rename(&tmp, &file));
        }
    });
    Ok(pid)
}

/// The PID stored in `pid_file`, if it holds one.
pub fn read_pid(pid_file: &Path) -> Option<u32> {
    fs::read_to_string(pid_file).ok()?.trim().parse().ok()
}

/// True while process `pid` exists and has not exited (a zombie counts as exited).
pub fn alive(pid: u32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised command name, which may contain spaces.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        .is_some_and(|state| state != 'Z' && state != 'X')
}

/// Sends SIGTERM to process group `pid`, then SIGKILL if it is still there after
/// `grace_ms` milliseconds.
pub fn stop_group(pid: u32, grace_ms: u64) {
    let group = Pid::from_raw(pid as i32);
    if killpg(group, Signal::SIGTERM).is_err() {
        return;
    }
    let step = std::time::Duration::from_millis(20);
    for _ in 0..grace_ms / 20 {
        if !alive(pid) {
            return;
        }
        std::thread::sleep(step);
    }
    let _ = killpg(group, Signal::SIGKILL);
}

/// Sends SIGKILL to the process whose PID is the decimal text `pid` (as `ip netns pids`
/// and `cgroup.procs` list them); anything else is ignored.
pub fn kill_listed(pid: &str) {
    if let Ok(pid) = pid.trim().parse::<i32>() {
        let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Takes the process of `pid_file` over for stopping: renames the file to `*.stopped`
/// (so monitors do not mistake the exit for a failure and nobody else stops it) and
/// returns its PID.
pub fn claim(pid_file: &Path) -> Option<u32> {
    let pid = read_pid(pid_file)?;
    fs::rename(pid_file, pid_file.with_extension("stopped")).ok()?;
    Some(pid)
}

/// Stops the group whose PID is in `pid_file` (see [`claim`]).
pub fn stop_pid_file(pid_file: &Path, grace_ms: u64) {
    if let Some(pid) = claim(pid_file)
        && alive(pid)
    {
        stop_group(pid, grace_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_started_watched_and_stopped() {
        let dir = std::env::temp_dir().join(format!("frugal-proc-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("sleep.pid");
        let pid = spawn_group(
            Command::new("sh").args(["-c", "sleep 30"]),
            &dir.join("sleep.log"),
            &pid_file,
            None,
        )
        .unwrap();
        assert_eq!(read_pid(&pid_file), Some(pid));
        assert!(alive(pid));
        stop_pid_file(&pid_file, 2000);
        let t0 = std::time::Instant::now();
        while alive(pid) && t0.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!alive(pid), "the group was stopped");
        assert!(!pid_file.exists() && pid_file.with_extension("stopped").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}

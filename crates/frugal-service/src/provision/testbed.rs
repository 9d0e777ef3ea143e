//! A hybrid testbed on one machine, on top of the [`super::Netns`] provisioner (papers 004
//! §6.1.1 and 000 §7.1 ran on real clusters; this is how frugal stands one up locally):
//!
//! - **Two sites.** The local site's VMs sit on the provisioner's bridge `<P>br` with the
//!   control node (the service, the Spark master and the drivers, as paper 000 §7 keeps
//!   its master on the private cloud); the cloud site's VMs sit on a second bridge
//!   `<P>cb`. One veth pair `<P>xl`–`<P>xc` joins the two bridges, and every byte
//!   between the sites crosses it: each end is limited with a `tbf` queue to
//!   [`Testbed::cross_site_mbit`] (so both directions are). Each VM's own link is
//!   limited to [`Testbed::in_site_mbit`] in both directions (the bridge side and the
//!   VM's `eth0`). The papers' ratio is about 2 Gbit/s within a region to 600 Mbit/s
//!   across (paper 000 §7.1). Only rates are emulated: this kernel has no `netem`, so
//!   the tens of milliseconds of latency between real regions are absent.
//! - **Each VM's share of the machine.** A VM's processes (its agent and every Spark
//!   worker and executor it starts) run in cgroup v1 `cpu` and `memory` groups
//!   `<P>/vm<k>`: CPU quota [`Testbed::core_share`] of a physical core per VM core
//!   (`cpu.cfs_quota_us` over a 100 ms period) and [`Testbed::mib_per_gib`] MiB of
//!   memory per GiB of the instance type (`memory.limit_in_bytes`).
//!
//! [`purge`] removes everything a testbed (or a plain netns cluster) of a prefix left
//! behind: processes, namespaces, links, bridges and cgroups. The live driver calls it
//! before and after every run, and when a run is interrupted.

use std::path::{Path, PathBuf};
use std::process::Command;

use frugal_core::cluster::{Site, VmId};
use frugal_core::resources::Resources;

use super::{ProvisionError, ip};

/// The cgroup v1 hierarchies a testbed uses.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";
/// The CPU bandwidth period, microseconds (the kernel's default).
const CFS_PERIOD_US: u64 = 100_000;

/// Scale and links of a testbed: what a VM of the cluster gets of this machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Testbed {
    /// Share of one physical core each VM core gets, in (0, 64].
    pub core_share: f64,
    /// MiB of this machine's memory per GiB of a VM's instance type, ≥ 64.
    pub mib_per_gib: u32,
    /// Rate of each VM's link within its site, Mbit/s.
    pub in_site_mbit: f64,
    /// Rate of the link between the two sites, Mbit/s (each direction).
    pub cross_site_mbit: f64,
    /// Each VM's site and capacity, by id.
    pub vms: Vec<(Site, Resources)>,
}

impl Testbed {
    /// Checks the scale and that this machine has what the testbed needs: root, the cgroup
    /// v1 `cpu` and `memory` controllers and `tc`.
    ///
    /// # Errors
    /// [`ProvisionError`] naming the bad setting or the missing piece.
    pub fn check(&self) -> Result<(), ProvisionError> {
        let bad = |what: String| Err(ProvisionError::Failed(what));
        if !(self.core_share > 0.0 && self.core_share <= 64.0) {
            return bad(format!(
                "--testbed-core-share {}: must be in (0, 64]",
                self.core_share
            ));
        }
        if self.mib_per_gib < 64 {
            return bad(format!(
                "--testbed-mib-per-gib {}: must be at least 64",
                self.mib_per_gib
            ));
        }
        for (flag, rate) in [
            ("--testbed-in-site-mbit", self.in_site_mbit),
            ("--testbed-cross-site-mbit", self.cross_site_mbit),
        ] {
            if !(1.0..=100_000.0).contains(&rate) {
                return bad(format!("{flag} {rate}: must be in [1, 100000]"));
            }
        }
        check_machine().map_err(|what| ProvisionError::Failed(format!("the testbed needs {what}")))
    }

    /// The site of VM `vm` (local if the cluster does not say).
    pub fn site(&self, vm: VmId) -> Site {
        self.vms.get(vm as usize).map_or(Site::Local, |v| v.0)
    }

    /// The cgroup directories of VM `vm` under `prefix`: (cpu, memory).
    pub fn cgroups(prefix: &str, vm: VmId) -> (PathBuf, PathBuf) {
        let dir = |c: &str| {
            Path::new(CGROUP_ROOT)
                .join(c)
                .join(prefix)
                .join(format!("vm{vm}"))
        };
        (dir("cpu"), dir("memory"))
    }

    /// Creates VM `vm`'s cgroups with its limits; returns the wrapper that starts a
    /// command inside them (`sh -c 'echo $$ > …; exec "$@"' sh`).
    ///
    /// # Errors
    /// [`ProvisionError`] if a cgroup file cannot be written.
    pub fn enter_cgroups(&self, prefix: &str, vm: VmId) -> Result<Vec<String>, ProvisionError> {
        let capacity = self.vms.get(vm as usize).map_or(Resources::ZERO, |v| v.1);
        let (cpu, memory) = Testbed::cgroups(prefix, vm);
        let quota = (f64::from(capacity.cores()) * self.core_share * CFS_PERIOD_US as f64)
            .round()
            .max(1000.0) as u64;
        let bytes =
            (capacity.memory_gib() * f64::from(self.mib_per_gib) * 1_048_576.0).round() as u64;
        write(&cpu.join("cpu.cfs_period_us"), &CFS_PERIOD_US.to_string())?;
        write(&cpu.join("cpu.cfs_quota_us"), &quota.to_string())?;
        write(&memory.join("memory.limit_in_bytes"), &bytes.to_string())?;
        let procs = |d: &Path| d.join("cgroup.procs").display().to_string();
        Ok(vec![
            "sh".into(),
            "-c".into(),
            format!(
                "echo $$ > {} && echo $$ > {} && exec \"$@\"",
                procs(&cpu),
                procs(&memory)
            ),
            "sh".into(),
        ])
    }

    /// Limits interface `dev` (in namespace `ns`, or this one) to `mbit` Mbit/s on egress
    /// with a token bucket (burst: 10 ms at the rate, at least 32 KiB).
    ///
    /// # Errors
    /// [`ProvisionError`] with `tc`'s message.
    pub fn shape(ns: Option<&str>, dev: &str, mbit: f64) -> Result<(), ProvisionError> {
        let burst = ((mbit * 1e6 / 8.0 * 0.010) as u64).max(32 * 1024);
        let rate = format!("{}kbit", (mbit * 1000.0).round() as u64);
        let mut cmd = match ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, "tc"]);
                c
            }
            None => Command::new("tc"),
        };
        cmd.args(["qdisc", "replace", "dev", dev, "root", "tbf", "rate", &rate]);
        cmd.args(["burst", &burst.to_string(), "latency", "100ms"]);
        let out = cmd
            .output()
            .map_err(|e| ProvisionError::Failed(format!("tc on {dev}: {e}")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(ProvisionError::Failed(format!(
                "tc on {dev}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }

    /// Sets up the cloud bridge `cloud` and the shaped link joining it to the local
    /// bridge `local` (nothing if they exist).
    ///
    /// # Errors
    /// [`ProvisionError`] with the failing command's message.
    pub fn link_sites(&self, prefix: &str, local: &str) -> Result<String, ProvisionError> {
        let cloud = format!("{prefix}cb");
        let (xl, xc) = (format!("{prefix}xl"), format!("{prefix}xc"));
        if ip(&["link", "show", &cloud]).is_err() {
            ip(&["link", "add", &cloud, "type", "bridge"])?;
        }
        ip(&["link", "set", &cloud, "up"])?;
        if ip(&["link", "show", &xl]).is_err() {
            ip(&["link", "add", &xl, "type", "veth", "peer", "name", &xc])?;
        }
        ip(&["link", "set", &xl, "master", local, "up"])?;
        ip(&["link", "set", &xc, "master", &cloud, "up"])?;
        Testbed::shape(None, &xl, self.cross_site_mbit)?;
        Testbed::shape(None, &xc, self.cross_site_mbit)?;
        Ok(cloud)
    }
}

/// Checks that this machine can host a testbed: root, iproute2's `ip` and `tc`, and the
/// cgroup v1 `cpu` and `memory` controllers.
///
/// # Errors
/// The first missing piece (e.g. "iproute2's `tc`").
pub fn check_machine() -> Result<(), String> {
    let missing = |what: String| Err(what);
    if !nix::unistd::geteuid().is_root() {
        return missing("root (cgroups, namespaces, tc)".into());
    }
    for program in ["ip", "tc"] {
        if Command::new(program).arg("-V").output().is_err() {
            return missing(format!("iproute2's `{program}`"));
        }
    }
    for controller in ["cpu", "memory"] {
        let dir = Path::new(CGROUP_ROOT).join(controller);
        if !dir.join("cgroup.procs").exists() {
            return missing(format!(
                "the cgroup v1 `{controller}` controller at {}",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Writes `value` to the cgroup file `path`, creating its directory.
fn write(path: &Path, value: &str) -> Result<(), ProvisionError> {
    let failed = |e: std::io::Error| ProvisionError::Failed(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    std::fs::write(path, value).map_err(failed)
}

/// Removes VM `vm`'s cgroups (once its processes are gone; a group with processes left
/// cannot be removed and stays, which [`purge`] retries).
pub fn remove_cgroups(prefix: &str, vm: VmId) {
    let (cpu, memory) = Testbed::cgroups(prefix, vm);
    let _ = std::fs::remove_dir(cpu);
    let _ = std::fs::remove_dir(memory);
}

/// The network namespaces `<prefix>-…`.
fn namespaces(prefix: &str) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    text.unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|ns| ns.starts_with(&format!("{prefix}-")))
        .map(String::from)
        .collect()
}

/// The links of this namespace a cluster of `prefix` made ([`is_ours`]).
fn links(prefix: &str) -> Vec<String> {
    let out = Command::new("ip").args(["-o", "link", "show"]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    text.unwrap_or_default()
        .lines()
        .filter_map(|line| line.split(": ").nth(1)?.split('@').next())
        .filter(|name| is_ours(prefix, name))
        .map(String::from)
        .collect()
}

/// Everything of prefix `prefix` on this machine, to check that nothing was left
/// behind: namespaces `<prefix>-…`, links `<prefix>…` and cgroups `<prefix>/…`.
pub fn leftovers(prefix: &str) -> Vec<String> {
    let mut found: Vec<String> = namespaces(prefix)
        .into_iter()
        .map(|ns| format!("namespace {ns}"))
        .collect();
    found.extend(links(prefix).into_iter().map(|l| format!("link {l}")));
    for controller in ["cpu", "memory"] {
        let dir = Path::new(CGROUP_ROOT).join(controller).join(prefix);
        if dir.exists() {
            found.push(format!("cgroup {}", dir.display()));
        }
    }
    found
}

/// True for the links a cluster of `prefix` makes: `<P>br`, `<P>cb`, `<P>xl`, `<P>xc`
/// and `<P>v<k>`.
fn is_ours(prefix: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    matches!(rest, "br" | "cb" | "xl" | "xc")
        || rest
            .strip_prefix('v')
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Kills every process in the namespaces and cgroups of `prefix` and removes the
/// namespaces, links, bridges and cgroups. Idempotent; errors are ignored (what cannot
/// be removed is what [`leftovers`] then reports).
pub fn purge(prefix: &str) {
    let kill = |pid: &str| {
        if let Ok(pid) = pid.trim().parse::<i32>() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    };
    for ns in namespaces(prefix) {
        if let Ok(pids) = Command::new("ip").args(["netns", "pids", &ns]).output() {
            String::from_utf8_lossy(&pids.stdout)
                .split_whitespace()
                .for_each(kill);
        }
        let _ = ip(&["netns", "del", &ns]);
    }
    for controller in ["cpu", "memory"] {
        let dir = Path::new(CGROUP_ROOT).join(controller).join(prefix);
        let Ok(groups) = std::fs::read_dir(&dir) else {
            continue;
        };
        for group in groups.flatten().filter(|g| g.path().is_dir()) {
            if let Ok(procs) = std::fs::read_to_string(group.path().join("cgroup.procs")) {
                procs.lines().for_each(kill);
            }
            // The killed processes leave the group as they exit.
            for _ in 0..50 {
                if std::fs::remove_dir(group.path()).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
    for name in links(prefix) {
        let _ = ip(&["link", "del", &name]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_prefixs_own_links_are_ours() {
        for name in ["fgbr", "fgcb", "fgxl", "fgxc", "fgv0", "fgv12"] {
            assert!(is_ours("fg", name), "{name}");
        }
        for name in ["fgv", "fgvx", "fgbr2", "fgxbr", "eth0", "fg", "xfgbr"] {
            assert!(!is_ours("fg", name), "{name}");
        }
    }

    #[test]
    fn bad_scales_are_refused_naming_the_flag() {
        let t = Testbed {
            core_share: 0.0,
            mib_per_gib: 512,
            in_site_mbit: 200.0,
            cross_site_mbit: 60.0,
            vms: vec![],
        };
        let e = t.check().unwrap_err().to_string();
        assert!(e.contains("--testbed-core-share 0"), "{e}");
        let t = Testbed {
            core_share: 0.5,
            cross_site_mbit: 0.0,
            ..t
        };
        let e = t.check().unwrap_err().to_string();
        assert!(e.contains("--testbed-cross-site-mbit 0"), "{e}");
    }
}

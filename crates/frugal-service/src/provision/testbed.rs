//! A hybrid testbed on one machine, on top of the [`super::Netns`] provisioner (papers 004
//! §6.1.1 and 000 §7.1 ran on real clusters; this is how frugal stands one up locally):
//!
//! - **Two sites.** The local site's VMs sit on the provisioner's bridge `<P>br` with the
//!   control node (the service, the Spark master and the drivers, as paper 000 §7 keeps
//!   its master on the private cloud); the cloud site's VMs sit on a second bridge
//!   `<P>cb`. One veth pair `<P>xl`–`<P>xc` joins the two bridges, and every byte
//!   between the sites crosses it: each end is limited with `htb` to
//!   [`Testbed::cross_site_mbit`] (so both directions are). Each VM's own link is
//!   limited to [`Testbed::in_site_mbit`] in both directions (the bridge side and the
//!   VM's `eth0`). On every shaped link the service's traffic (heartbeats, orders) is
//!   sent before the rest ([`Testbed::shape`]). The papers' ratio is about 2 Gbit/s within a region to 600 Mbit/s
//!   across (paper 000 §7.1). Only rates are emulated: this kernel has no `netem`, so
//!   the tens of milliseconds of latency between real regions are absent.
//! - **Each VM's share of the machine.** A VM's processes (its agent and every Spark
//!   worker and executor it starts) run in cgroup v1 `cpu` and `memory` groups
//!   `<P>/vm<k>`, with [`Testbed::mib_per_gib`] MiB of memory per GiB of the instance type
//!   (`memory.limit_in_bytes`).
//! - **Each executor's share.** The agent runs with `--worker-core-share`, so each
//!   reservation worker and its executors get a group `<P>/vm<k>/<worker>` capped at
//!   [`Testbed::core_share`] of a physical core per core they offer
//!   (`cpu.cfs_quota_us` over a 100 ms period; [`crate::agent::cgroup`]): an executor is
//!   as fast alone on a big VM as packed with others on a small one, as on real VMs. The
//!   VM's group itself is not capped — its workers' caps add up to at most its cores ×
//!   the share — so the agent is never throttled behind its executors (it would miss
//!   heartbeats). The agents enter their namespace with `nsenter --net` (not `ip netns
//!   exec`, which remounts `/sys` and hides the cgroup file system from them).
//! - **What shares what.** The caps add up to the VMs' cores × the share, which can exceed
//!   this machine (8 VM cores at 0.25 are its 2 cores), so busy VMs also compete for the
//!   physical cores, which VMs of a real cloud do not. Two choices make that competition
//!   fair. Each VM's `cpu` group weighs [`SHARES_PER_CORE`] × its cores (`cpu.shares`),
//!   so a 4-core VM is entitled to twice a 2-core VM's time, as in a cloud, where a VM's
//!   vCPUs are its own. With the kernel's default, every VM weighs the same, and two jobs
//!   packed on a 4-core VM ran 1.8× their solo time where jobs alone on 2-core VMs beside
//!   them ran 1.5×. The control plane (the service, and the Spark master and drivers it
//!   starts) runs in a group of its own, `<P>/control`, which weighs as much as all the
//!   VMs together ([`Testbed::enter_control_plane`]). It then gets the CPU it asks for,
//!   which is far less than its share, and does not slow down behind the executors. What
//!   remains of the machine is shared by the VMs in proportion to their cores. The
//!   `cpuacct` groups `<P>` and `<P>/control` count the CPU time of the whole testbed and
//!   of its control plane ([`cpu_seconds`]).
//!
//! [`purge`] removes everything a testbed (or a plain netns cluster) of a prefix left
//! behind: processes, namespaces, links, bridges and cgroups. The live driver calls it
//! before and after every run, and when a run is interrupted.

use std::path::{Path, PathBuf};
use std::process::Command;

use frugal_core::cluster::{Site, VmId};
use frugal_core::resources::Resources;

use super::netns::kill_in_namespace;
use super::{ProvisionError, ip, run};
use crate::agent::cgroup::{entering, remove_tree, set};
use crate::process::kill_listed;

/// The cgroup v1 hierarchies a testbed uses.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The controllers whose groups a testbed makes (and [`purge`] removes).
const CONTROLLERS: [&str; 3] = ["cpu", "cpuacct", "memory"];

/// CFS weight (`cpu.shares`) of a VM's `cpu` group per core of its instance type (1024 is
/// the kernel's default weight of one group).
pub const SHARES_PER_CORE: u64 = 1024;

/// The name of the control plane's groups below the prefix's.
const CONTROL: &str = "control";

/// One testbed group in each controller it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    /// The `cpu` group (weight and caps).
    pub cpu: PathBuf,
    /// The `cpuacct` group (CPU time used).
    pub cpuacct: PathBuf,
    /// The `memory` group (limit).
    pub memory: PathBuf,
}

impl Groups {
    /// Group `name` below `prefix` in each controller.
    fn named(prefix: &str, name: &str) -> Groups {
        let dir = |c: &str| Path::new(CGROUP_ROOT).join(c).join(prefix).join(name);
        Groups {
            cpu: dir("cpu"),
            cpuacct: dir("cpuacct"),
            memory: dir("memory"),
        }
    }
}

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
    /// v1 `cpu`, `cpuacct` and `memory` controllers and `tc`.
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

    /// The cgroups of VM `vm` under `prefix`.
    pub fn cgroups(prefix: &str, vm: VmId) -> Groups {
        Groups::named(prefix, &format!("vm{vm}"))
    }

    /// The `cpu.shares` of VM `vm`'s group: [`SHARES_PER_CORE`] × its cores (at least 2,
    /// the kernel's minimum).
    pub fn shares(&self, vm: VmId) -> u64 {
        let cores = self.vms.get(vm as usize).map_or(0, |v| v.1.cores());
        (SHARES_PER_CORE * u64::from(cores)).max(2)
    }

    /// Moves this process (the service that runs the testbed) into the control plane's
    /// groups `<prefix>/control`, whose `cpu.shares` are the sum of the VMs' (see the
    /// module doc); what it starts from now on (the Spark master, the drivers) is in them
    /// too. The groups are created if missing.
    ///
    /// # Errors
    /// [`ProvisionError`] naming the cgroup file that cannot be written.
    pub fn enter_control_plane(&self, prefix: &str) -> Result<(), ProvisionError> {
        let g = Groups::named(prefix, CONTROL);
        let failed = |e: std::io::Error| ProvisionError::Failed(e.to_string());
        let shares: u64 = (0..self.vms.len() as VmId).map(|vm| self.shares(vm)).sum();
        set(&g.cpu.join("cpu.shares"), &shares.max(2).to_string()).map_err(failed)?;
        let me = std::process::id().to_string();
        for dir in [&g.cpu, &g.cpuacct] {
            set(&dir.join("cgroup.procs"), &me).map_err(failed)?;
        }
        Ok(())
    }

    /// Creates VM `vm`'s cgroups with its limits; returns the wrapper that starts VM
    /// `vm`'s agent inside them and in namespace `ns`, and the agent's worker core share
    /// (each of its workers in a group of its own).
    ///
    /// # Errors
    /// [`ProvisionError`] if a cgroup file cannot be written.
    pub fn enter(
        &self,
        prefix: &str,
        vm: VmId,
        ns: &str,
    ) -> Result<(Vec<String>, Option<f64>), ProvisionError> {
        let capacity = self.vms.get(vm as usize).map_or(Resources::ZERO, |v| v.1);
        let g = Testbed::cgroups(prefix, vm);
        let bytes =
            (capacity.memory_gib() * f64::from(self.mib_per_gib) * 1_048_576.0).round() as u64;
        let failed = |e: std::io::Error| ProvisionError::Failed(e.to_string());
        // The VM's own group is not capped: its workers' caps add up to at most its cores
        // × the share, and its agent must not be throttled behind its executors (a starved
        // agent misses heartbeats and the service takes the VM for lost).
        set(&g.cpu.join("cpu.cfs_quota_us"), "-1").map_err(failed)?;
        set(&g.cpu.join("cpu.shares"), &self.shares(vm).to_string()).map_err(failed)?;
        set(&g.memory.join("memory.limit_in_bytes"), &bytes.to_string()).map_err(failed)?;
        std::fs::create_dir_all(&g.cpuacct)
            .map_err(|e| ProvisionError::Failed(format!("{}: {e}", g.cpuacct.display())))?;
        let mut wrapper = entering(&[&g.cpu, &g.cpuacct, &g.memory]);
        wrapper.extend([
            "nsenter".into(),
            format!("--net=/run/netns/{ns}"),
            "--".into(),
        ]);
        Ok((wrapper, Some(self.core_share)))
    }

    /// Limits interface `dev` (in namespace `ns`, or this one) to `mbit` Mbit/s on egress
    /// with `htb` (burst: 10 ms at the rate, at least 32 KiB), in two classes that share
    /// the rate: the service's traffic (TCP port `control_port`: the agents' heartbeats
    /// and their orders) is sent first, everything else after it. Real links queue fairly
    /// across flows; this kernel has neither `sfq` nor `fq_codel`, and one FIFO queue
    /// full of shuffle traffic dropped heartbeats for 10 s, so the service took a VM for
    /// lost.
    ///
    /// # Errors
    /// [`ProvisionError`] with `tc`'s message.
    pub fn shape(
        ns: Option<&str>,
        dev: &str,
        mbit: f64,
        control_port: u16,
    ) -> Result<(), ProvisionError> {
        let burst = ((mbit * 1e6 / 8.0 * 0.010) as u64)
            .max(32 * 1024)
            .to_string();
        let kbit = |m: f64| format!("{}kbit", (m * 1000.0).round().max(8.0) as u64);
        // The service's class is guaranteed 1 % of the rate (at least 1 Mbit/s, at most
        // half); either class may borrow up to the whole rate.
        let control_mbit = (mbit / 100.0).max(1.0).min(mbit / 2.0);
        let (rate, control, bulk) = (kbit(mbit), kbit(control_mbit), kbit(mbit - control_mbit));
        let port = control_port.to_string();
        let tc = |args: &[&str]| match ns {
            Some(ns) => run("ip", &[&["netns", "exec", ns, "tc"], args].concat()),
            None => run("tc", args),
        };
        let b = burst.as_str();
        let _ = tc(&["qdisc", "del", "dev", dev, "root"]);
        tc(&[
            "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "20",
        ])?;
        tc(&[
            "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", &rate,
            "burst", b, "cburst", b,
        ])?;
        for (class, guaranteed, prio) in [("1:10", &control, "0"), ("1:20", &bulk, "1")] {
            tc(&[
                "class", "add", "dev", dev, "parent", "1:1", "classid", class, "htb", "rate",
                guaranteed, "ceil", &rate, "prio", prio, "burst", b, "cburst", b, "quantum",
                "60000",
            ])?;
        }
        for side in ["dport", "sport"] {
            tc(&[
                "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                "match", "ip", side, &port, "0xffff", "flowid", "1:10",
            ])?;
        }
        Ok(())
    }

    /// Sets up the cloud bridge `cloud` and the shaped link joining it to the local
    /// bridge `local` (nothing if they exist).
    ///
    /// # Errors
    /// [`ProvisionError`] with the failing command's message.
    pub fn link_sites(
        &self,
        prefix: &str,
        local: &str,
        control_port: u16,
    ) -> Result<String, ProvisionError> {
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
        Testbed::shape(None, &xl, self.cross_site_mbit, control_port)?;
        Testbed::shape(None, &xc, self.cross_site_mbit, control_port)?;
        Ok(cloud)
    }
}

/// Checks that this machine can host a testbed: root, iproute2's `ip` and `tc`, and the
/// cgroup v1 `cpu`, `cpuacct` and `memory` controllers.
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
    if Command::new("nsenter").arg("-V").output().is_err() {
        return missing("util-linux's `nsenter`".into());
    }
    for controller in CONTROLLERS {
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

/// Removes VM `vm`'s cgroups and its workers' (killing what they still hold: the VM is
/// off).
pub fn remove_cgroups(prefix: &str, vm: VmId) {
    let g = Testbed::cgroups(prefix, vm);
    for dir in [&g.cpu, &g.cpuacct, &g.memory] {
        remove_tree(dir, &kill_listed);
    }
}

/// CPU time used so far by the testbed of `prefix` and by its control plane, seconds:
/// `(control plane, everything)`, from the `cpuacct` groups `<prefix>/control` and
/// `<prefix>` (a VM's time stays counted in `<prefix>` after its group is removed: the
/// kernel charges every ancestor). `None` if the testbed has no such groups.
pub fn cpu_seconds(prefix: &str) -> Option<(f64, f64)> {
    let read = |dir: &Path| -> Option<f64> {
        let ns: u64 = std::fs::read_to_string(dir.join("cpuacct.usage"))
            .ok()?
            .trim()
            .parse()
            .ok()?;
        Some(ns as f64 / 1e9)
    };
    let all = Path::new(CGROUP_ROOT).join("cpuacct").join(prefix);
    Some((read(&all.join(CONTROL))?, read(&all)?))
}

/// Moves this process back to the root groups if it is in one of `prefix`'s (a service
/// purging its own testbed at shutdown must not kill itself).
fn leave(prefix: &str) {
    let Ok(table) = std::fs::read_to_string("/proc/self/cgroup") else {
        return;
    };
    let me = std::process::id().to_string();
    for line in table.lines() {
        let mut fields = line.splitn(3, ':').skip(1);
        let (Some(controllers), Some(path)) = (fields.next(), fields.next()) else {
            continue;
        };
        let ours = path
            .strip_prefix('/')
            .and_then(|p| p.strip_prefix(prefix))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if !ours {
            continue;
        }
        for c in controllers.split(',').filter(|c| CONTROLLERS.contains(c)) {
            let _ = std::fs::write(Path::new(CGROUP_ROOT).join(c).join("cgroup.procs"), &me);
        }
    }
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
    for controller in CONTROLLERS {
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

/// Kills every process in the namespaces and cgroups of `prefix` (but the calling process,
/// which first leaves them) and removes the namespaces, links, bridges and cgroups.
/// Idempotent; errors are ignored (what cannot
/// be removed is what [`leftovers`] then reports).
pub fn purge(prefix: &str) {
    for ns in namespaces(prefix) {
        kill_in_namespace(&ns);
        let _ = ip(&["netns", "del", &ns]);
    }
    leave(prefix);
    for controller in CONTROLLERS {
        remove_tree(
            &Path::new(CGROUP_ROOT).join(controller).join(prefix),
            &kill_listed,
        );
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

    #[test]
    fn a_vm_weighs_1024_per_core_and_a_vm_with_no_cores_the_kernels_minimum() {
        let vm = |cores: u32| (Site::Local, Resources::new(cores, 2048));
        let t = Testbed {
            core_share: 0.25,
            mib_per_gib: 512,
            in_site_mbit: 200.0,
            cross_site_mbit: 60.0,
            vms: vec![vm(2), vm(4), vm(0)],
        };
        assert_eq!((t.shares(0), t.shares(1), t.shares(2)), (2048, 4096, 2));
        // A VM the cluster does not list has no cores.
        assert_eq!(t.shares(7), 2);
        let g = Testbed::cgroups("fg", 1);
        assert_eq!(g.cpu, Path::new("/sys/fs/cgroup/cpu/fg/vm1"));
        assert_eq!(g.cpuacct, Path::new("/sys/fs/cgroup/cpuacct/fg/vm1"));
        assert_eq!(g.memory, Path::new("/sys/fs/cgroup/memory/fg/vm1"));
    }
}

//! The service's view of its hosts: which agent runs which VM, when each was last heard
//! from, and the reservation workers each VM must run (the orders every heartbeat
//! answers with).
//!
//! Failure detection (all times wall-clock):
//! - A VM that is on is **lost** when its host has not heartbeated for
//!   [`HostTimeouts::lost_after`] (default 10 s = 10 missed beats), or, right after it
//!   was powered on or re-attached, when no agent for it has heartbeated within
//!   [`HostTimeouts::boot`] (default 60 s). A crashed host, a killed agent and a network
//!   partition all look the same from here, and are handled the same: the VM's workers
//!   are dropped from the orders and [`BackendEvent::VmLost`] tells the service, which
//!   replaces the VM's executors elsewhere.
//! - A worker that was reported running and no longer is, while its host still
//!   heartbeats, has exited: [`BackendEvent::Lost`] for its job and VM. A worker not
//!   reported running within [`HostTimeouts::boot`] of being ordered, or that the agent
//!   reports it could not start, is lost too.
//!
//! After a service restart no orders are given ([`Orders::workers`] is `None`) until the
//! running jobs have been re-attached; then a reported worker of a re-attached job is
//! adopted as it is, and any other worker is stopped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::Ipv4Addr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use frugal_core::cluster::VmId;

use crate::agent::protocol::{Heartbeat, HostedVm, Orders, WorkerOrder};
use crate::backend::BackendEvent;

/// When hosts and workers count as lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostTimeouts {
    /// Silence after which a host is lost.
    pub lost_after: Duration,
    /// Time a new host (or a new worker) has to show up.
    pub boot: Duration,
}

impl Default for HostTimeouts {
    fn default() -> Self {
        HostTimeouts {
            lost_after: Duration::from_secs(10),
            boot: Duration::from_secs(60),
        }
    }
}

struct Ordered {
    order: WorkerOrder,
    /// The service's index of the job.
    idx: usize,
    /// Reported running at least once.
    seen: bool,
    since: Instant,
}

struct Agent {
    vms: Vec<HostedVm>,
    last: Instant,
}

#[derive(Default)]
struct Inner {
    restored: bool,
    agents: HashMap<String, Agent>,
    /// VMs that are on, since when (power-on or re-attach).
    on: HashMap<VmId, Instant>,
    /// Ordered workers by name.
    workers: BTreeMap<String, Ordered>,
    /// Running jobs by id: index and whether their workers may be adopted.
    jobs: HashMap<String, (usize, bool)>,
    /// Next worker number per job.
    next: HashMap<String, u32>,
}

impl Inner {
    /// VM `vm` is no longer expected up and runs nothing.
    fn drop_vm(&mut self, vm: VmId) {
        self.on.remove(&vm);
        self.workers.retain(|_, w| w.order.vm != vm);
    }
}

/// The registry of hosts and ordered workers.
pub struct Hosts {
    inner: Mutex<Inner>,
    timeouts: HostTimeouts,
}

impl Hosts {
    /// An empty registry.
    pub fn new(timeouts: HostTimeouts) -> Hosts {
        Hosts {
            inner: Mutex::new(Inner::default()),
            timeouts,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// VM `vm` was powered on (or hosts a re-attached job): its agent must heartbeat
    /// within the boot timeout.
    pub fn vm_on(&self, vm: VmId) {
        self.lock().on.entry(vm).or_insert_with(Instant::now);
    }

    /// The VM an agent reports at address `ip`.
    pub fn vm_at(&self, ip: Ipv4Addr) -> Option<VmId> {
        let text = ip.to_string();
        self.lock()
            .agents
            .values()
            .flat_map(|a| &a.vms)
            .find(|v| v.address == text)
            .map(|v| v.id)
    }

    /// True while VM `vm` is on (powered on, or hosting a re-attached job).
    pub fn is_on(&self, vm: VmId) -> bool {
        self.lock().on.contains_key(&vm)
    }

    /// VM `vm` was powered off: it runs nothing from now on.
    pub fn vm_off(&self, vm: VmId) {
        self.lock().drop_vm(vm);
    }

    /// Running job `id` (index `idx`) has a worker per entry of `orders` (a launch or a
    /// replacement); the names are assigned here.
    pub fn order(&self, id: &str, idx: usize, orders: Vec<WorkerOrder>) {
        let mut g = self.lock();
        g.jobs.entry(id.to_string()).or_insert((idx, false));
        for mut o in orders {
            let k = g.next.entry(id.to_string()).or_insert(0);
            o.name = format!("{id}-{}-{k}", o.vm);
            *k += 1;
            g.workers.insert(
                o.name.clone(),
                Ordered {
                    order: o,
                    idx,
                    seen: false,
                    since: Instant::now(),
                },
            );
        }
    }

    /// Job `id` was re-attached after a restart: its VMs are expected up and its running
    /// workers are adopted when their agents report them.
    pub fn reattach(&self, id: &str, idx: usize, vms: impl Iterator<Item = VmId>) {
        let mut g = self.lock();
        g.jobs.insert(id.to_string(), (idx, true));
        for vm in vms {
            g.on.entry(vm).or_insert_with(Instant::now);
        }
    }

    /// Job `id` ended or was stopped: its workers are no longer ordered.
    pub fn forget(&self, id: &str) {
        let mut g = self.lock();
        g.jobs.remove(id);
        g.next.remove(id);
        g.workers.retain(|_, w| w.order.resource != id);
    }

    /// Executors per VM (in VM order) of job `id`'s workers reported running, or `None`
    /// while one of them is an adopted worker of unknown size.
    pub fn observed(&self, id: &str) -> Option<Vec<(VmId, u32)>> {
        let g = self.lock();
        let mut per_vm: BTreeMap<VmId, u32> = BTreeMap::new();
        for w in g
            .workers
            .values()
            .filter(|w| w.order.resource == id && w.seen)
        {
            if w.order.executors == 0 {
                return None;
            }
            *per_vm.entry(w.order.vm).or_default() += w.order.executors;
        }
        Some(per_vm.into_iter().collect())
    }

    /// Every running job is re-attached: heartbeats get orders from now on.
    pub fn restored(&self) {
        self.lock().restored = true;
    }

    /// Handles a heartbeat: records the host, checks its workers against the orders
    /// (returning the events that follows) and returns its orders.
    pub fn heartbeat(&self, hb: &Heartbeat) -> (Orders, Vec<BackendEvent>) {
        let mut events = Vec::new();
        let mut g = self.lock();
        let now = Instant::now();
        if !g.agents.contains_key(&hb.host) {
            tracing::info!(host = %hb.host, vms = ?hb.vms.iter().map(|v| v.id).collect::<Vec<_>>(), "agent registered");
        }
        g.agents.insert(
            hb.host.clone(),
            Agent {
                vms: hb.vms.clone(),
                last: now,
            },
        );
        if !g.restored {
            return (Orders { workers: None }, events);
        }
        // A spot interruption notice: the host's VMs are going within two minutes, so
        // they are lost now — their executors re-placed before the machine disappears.
        if let Some(notice) = &hb.interruption {
            for v in &hb.vms {
                if g.on.contains_key(&v.id) {
                    tracing::warn!(vm = v.id, host = %hb.host, notice = %notice, "spot interruption notice");
                    g.drop_vm(v.id);
                    events.push(BackendEvent::VmLost {
                        vm: v.id,
                        reason: format!("spot interruption notice on host {}: {notice}", hb.host),
                    });
                }
            }
        }
        let vms: HashSet<VmId> = hb.vms.iter().map(|v| v.id).collect();
        let running: HashSet<&str> = hb.running.iter().map(String::as_str).collect();
        // Adopt the running workers of re-attached jobs.
        for name in &hb.running {
            if g.workers.contains_key(name) {
                continue;
            }
            let Some((job, vm)) = parse_name(name).filter(|(_, vm)| vms.contains(vm)) else {
                continue;
            };
            if let Some(&(idx, true)) = g.jobs.get(job) {
                tracing::info!(worker = %name, vm, "adopted a running worker after a restart");
                let order = WorkerOrder {
                    name: name.clone(),
                    vm,
                    resource: job.to_string(),
                    executors: 0,
                    cores: 0,
                    memory_mib: 0,
                    master_url: String::new(),
                };
                g.workers.insert(
                    name.clone(),
                    Ordered {
                        order,
                        idx,
                        seen: true,
                        since: now,
                    },
                );
            }
        }
        let failed: HashMap<&str, &str> = hb
            .failed
            .iter()
            .map(|f| (f.name.as_str(), f.error.as_str()))
            .collect();
        let boot = self.timeouts.boot;
        let mut gone = Vec::new();
        for (name, w) in g
            .workers
            .iter_mut()
            .filter(|(_, w)| vms.contains(&w.order.vm))
        {
            if running.contains(name.as_str()) {
                w.seen = true;
            } else if w.seen || failed.contains_key(name.as_str()) || now - w.since > boot {
                let why = failed.get(name.as_str()).copied().unwrap_or(if w.seen {
                    "it exited"
                } else {
                    "it did not start in time"
                });
                tracing::warn!(worker = %name, vm = w.order.vm, reason = why, "reservation worker lost");
                gone.push(name.clone());
                events.push(BackendEvent::Lost {
                    idx: w.idx,
                    vm: w.order.vm,
                    // An adopted worker's size is not known (orders are not stored).
                    executors: (w.order.executors > 0).then_some(w.order.executors),
                });
            }
        }
        for name in gone {
            g.workers.remove(&name);
        }
        let orders = g
            .workers
            .values()
            .filter(|w| vms.contains(&w.order.vm))
            .map(|w| w.order.clone())
            .collect();
        (
            Orders {
                workers: Some(orders),
            },
            events,
        )
    }

    /// The VMs found lost now (see the module doc), each with why; they are forgotten
    /// (off, no orders) as they are reported.
    pub fn check(&self) -> Vec<(VmId, String)> {
        let mut g = self.lock();
        let now = Instant::now();
        let mut lost = Vec::new();
        for (&vm, &since) in &g.on {
            let last = g
                .agents
                .iter()
                .filter(|(_, a)| a.vms.iter().any(|v| v.id == vm))
                .map(|(host, a)| (host.as_str(), a.last))
                .max_by_key(|&(_, t)| t);
            let why = match last {
                Some((host, t)) if t >= since => (now - t > self.timeouts.lost_after).then(|| {
                    format!(
                        "no heartbeat from host {host} for {} s",
                        self.timeouts.lost_after.as_secs_f64()
                    )
                }),
                _ => (now - since > self.timeouts.boot).then(|| {
                    format!(
                        "no agent registered within {} s of power-on",
                        self.timeouts.boot.as_secs_f64()
                    )
                }),
            };
            if let Some(why) = why {
                lost.push((vm, why));
            }
        }
        lost.sort();
        for &(vm, _) in &lost {
            g.drop_vm(vm);
        }
        lost
    }
}

/// `(job id, vm)` of a worker named `<job id>-<vm>-<k>`.
fn parse_name(name: &str) -> Option<(&str, VmId)> {
    let mut parts = name.rsplitn(3, '-');
    let _k: u32 = parts.next()?.parse().ok()?;
    let vm = parts.next()?.parse().ok()?;
    Some((parts.next()?, vm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_job_and_vm() {
        assert_eq!(parse_name("pr-1-3-0"), Some(("pr-1", 3)));
        assert_eq!(parse_name("job_7-12-4"), Some(("job_7", 12)));
        assert_eq!(parse_name("job"), None);
        assert_eq!(parse_name("job-x-1"), None);
    }

    const MS: Duration = Duration::from_millis(1);

    fn registry() -> Hosts {
        Hosts::new(HostTimeouts {
            lost_after: 100 * MS,
            boot: 400 * MS,
        })
    }

    fn beat(host: &str, vm: VmId, running: &[&str]) -> Heartbeat {
        Heartbeat {
            host: host.into(),
            vms: vec![HostedVm {
                id: vm,
                address: format!("10.0.0.{}", vm + 2),
            }],
            cores: 2,
            memory_gib: 2.0,
            running: running.iter().map(|s| s.to_string()).collect(),
            failed: Vec::new(),
            interruption: None,
        }
    }

    fn order(vm: VmId, n: u32) -> WorkerOrder {
        WorkerOrder {
            name: String::new(),
            vm,
            resource: "job".into(),
            executors: n,
            cores: n,
            memory_mib: 512 * u64::from(n),
            master_url: "spark://10.0.0.1:7077".into(),
        }
    }

    fn names(o: &Orders) -> Vec<String> {
        o.workers
            .as_ref()
            .unwrap()
            .iter()
            .map(|w| w.name.clone())
            .collect()
    }

    #[test]
    fn no_orders_before_restore_then_each_host_gets_its_own() {
        let h = registry();
        h.order("job", 7, vec![order(1, 1), order(2, 2)]);
        assert_eq!(h.heartbeat(&beat("a", 1, &[])).0.workers, None);
        h.restored();
        assert_eq!(names(&h.heartbeat(&beat("a", 1, &[])).0), ["job-1-0"]);
        assert_eq!(names(&h.heartbeat(&beat("b", 2, &[])).0), ["job-2-1"]);
        h.forget("job");
        assert!(names(&h.heartbeat(&beat("b", 2, &["job-2-1"])).0).is_empty());
    }

    #[test]
    fn a_worker_seen_then_missing_is_lost_and_no_longer_ordered() {
        let h = registry();
        h.restored();
        h.order("job", 7, vec![order(1, 2)]);
        let (_, ev) = h.heartbeat(&beat("a", 1, &[]));
        assert!(ev.is_empty(), "not started yet is not lost");
        let (_, ev) = h.heartbeat(&beat("a", 1, &["job-1-0"]));
        assert!(ev.is_empty());
        let (o, ev) = h.heartbeat(&beat("a", 1, &[]));
        assert_eq!(
            ev,
            [BackendEvent::Lost {
                idx: 7,
                vm: 1,
                executors: Some(2)
            }]
        );
        assert!(names(&o).is_empty());
    }

    /// Only workers reported running count, summed per VM; an adopted worker's unknown
    /// size makes the whole report unknown rather than short.
    #[test]
    fn observed_executors_are_the_reported_workers_sizes() {
        let h = registry();
        h.restored();
        h.order("job", 7, vec![order(1, 1), order(2, 2), order(2, 1)]);
        assert_eq!(h.observed("job"), Some(vec![]));
        h.heartbeat(&beat("a", 1, &["job-1-0"]));
        h.heartbeat(&beat("b", 2, &["job-2-1"]));
        assert_eq!(h.observed("job"), Some(vec![(1, 1), (2, 2)]));
        h.heartbeat(&beat("b", 2, &["job-2-1", "job-2-2"]));
        assert_eq!(h.observed("job"), Some(vec![(1, 1), (2, 3)]));
        assert_eq!(h.observed("other"), Some(vec![]));

        let h = registry();
        h.reattach("job", 4, [1].into_iter());
        h.restored();
        h.heartbeat(&beat("a", 1, &["job-1-0"]));
        assert_eq!(h.observed("job"), None, "adopted: size unknown");
    }

    #[test]
    fn a_worker_the_agent_cannot_start_is_lost() {
        let h = registry();
        h.restored();
        h.order("job", 3, vec![order(1, 1)]);
        let mut hb = beat("a", 1, &[]);
        hb.failed.push(crate::agent::protocol::FailedWorker {
            name: "job-1-0".into(),
            error: "no java".into(),
        });
        assert_eq!(
            h.heartbeat(&hb).1,
            [BackendEvent::Lost {
                idx: 3,
                vm: 1,
                executors: Some(1)
            }]
        );
    }

    #[test]
    fn a_vm_is_found_at_the_address_its_agent_reports() {
        let h = registry();
        assert_eq!(h.vm_at("10.0.0.5".parse().unwrap()), None);
        h.heartbeat(&beat("host-a", 3, &[]));
        assert_eq!(h.vm_at("10.0.0.5".parse().unwrap()), Some(3));
        assert_eq!(h.vm_at("10.0.0.6".parse().unwrap()), None);
    }

    #[test]
    fn an_interruption_notice_loses_the_hosts_vms_once() {
        let h = registry();
        h.restored();
        h.vm_on(2);
        let mut b = beat("host-b", 2, &[]);
        b.interruption = Some("{\"action\": \"terminate\"}".into());
        let (_, events) = h.heartbeat(&b);
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(
            matches!(&events[0], BackendEvent::VmLost { vm: 2, reason } if reason.contains("spot interruption notice"))
        );
        assert!(!h.is_on(2));
        let (_, again) = h.heartbeat(&b);
        assert!(again.is_empty(), "reported once: {again:?}");
    }

    #[test]
    fn silent_hosts_and_hosts_that_never_came_up_are_lost_once() {
        let h = registry();
        h.restored();
        h.vm_on(1);
        h.vm_on(2);
        h.heartbeat(&beat("a", 1, &[]));
        assert!(h.check().is_empty());
        std::thread::sleep(150 * MS);
        h.heartbeat(&beat("a", 1, &[]));
        assert!(
            h.check().is_empty(),
            "VM 2 is still within its boot timeout"
        );
        std::thread::sleep(150 * MS);
        assert_eq!(
            h.check(),
            [(1, "no heartbeat from host a for 0.1 s".to_string())]
        );
        std::thread::sleep(100 * MS);
        assert_eq!(
            h.check(),
            [(
                2,
                "no agent registered within 0.4 s of power-on".to_string()
            )]
        );
        assert!(h.check().is_empty(), "each loss is reported once");
    }

    #[test]
    fn after_a_restart_workers_of_reattached_jobs_are_adopted_and_others_stopped() {
        let h = registry();
        h.reattach("job", 4, [1].into_iter());
        h.restored();
        let (o, ev) = h.heartbeat(&beat("a", 1, &["job-1-0", "old-1-0", "job-2-0"]));
        assert!(ev.is_empty());
        assert_eq!(
            names(&o),
            ["job-1-0"],
            "the others are not ordered, so stopped"
        );
        let (_, ev) = h.heartbeat(&beat("a", 1, &[]));
        assert_eq!(
            ev,
            [BackendEvent::Lost {
                idx: 4,
                vm: 1,
                executors: None
            }]
        );
    }
}

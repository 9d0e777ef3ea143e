//! The Kubernetes shell around the core controller: what the API server's pods say in,
//! what to do to them out — sans-I/O, so every rule here is tested without a server.
//!
//! [`Shell::observe`] takes a snapshot of the pods that name frugal as their scheduler and
//! the time, and returns [`Action`]s (bind a pod, create or delete a VM's node, say why a
//! pod waits). The caller ([`crate::run`]) lists the pods, calls it and applies the
//! actions; an action that fails is simply asked for again by a later snapshot, because
//! every rule is level-triggered: it compares what the pods are with what the controller
//! holds.
//!
//! The rules, each changing what happens:
//! - **A gang is whole** when at least E pods of its application are unbound
//!   ([`crate::gang`]); before that it waits, with a `WaitingForGang` condition. Only then
//!   does its job join the controller's queue, arriving at the instant the earliest of its
//!   pods was created (clamped to the shell's clock) — so the deadline counts from the
//!   driver's first request, as a submission's would.
//! - **The controller's decisions are the only placements.** When a job starts
//!   ([`Effect::Launch`]), each VM of its placement receives as many of the gang's pods as
//!   it has executors there, in pod-name order over VMs in placement order; nothing is
//!   bound before the whole gang fits.
//! - **A placed job's pods are bound to its placement** whenever a snapshot shows one
//!   unbound (a bind that failed because the API server went away, or an executor Spark
//!   replaced): to a VM of the placement with fewer live pods than executors. Nothing is
//!   placed twice.
//! - **A job ends** when none of its pods is left or every one has ended (`Succeeded` or
//!   `Failed`): completed if any pod succeeded or none is left (Spark deletes its
//!   executors when the application ends), failed otherwise.
//! - **An application that asks for executors after its job ended** (Spark lost every
//!   executor at once, deleted them, and requested replacements) is a new gang: a new job,
//!   arriving when its first new pod was created; the ended job's record keeps the bill of
//!   its VMs' time.
//! - **A gang the policy can never place** (larger than the cluster) is refused: an event
//!   and an `Unschedulable` condition on each pod; it is not queued again while its pods
//!   stay. A gang that waits for room says so (`Queued`), with what its cheapest
//!   placement would cost on the idle cluster (paper 000 Eq. 16, the exact optimum).
//! - **A VM is a node**: a node exists exactly while its VM is on (billed, busy or kept
//!   alive): [`Shell::vms_on`] is what the caller makes the API server's nodes match, so
//!   a node whose creation failed is created again at the next pass.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::api::core::v1::Pod;

use frugal_core::cluster::VmId;
use frugal_core::control::{Controller, Event};
use frugal_core::lifecycle::JobState;
use frugal_core::policy::PolicyKind;
use frugal_sim::experiment::Setup;
use frugal_sim::{Inputs, RunResult, RunTime};

use crate::gang::{APP_LABEL, GangSpec, pod_name};

/// A pod, by namespace and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PodKey {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl PodKey {
    /// The key of `pod`.
    pub fn of(pod: &Pod) -> PodKey {
        PodKey {
            namespace: pod
                .metadata
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into()),
            name: pod.metadata.name.clone().unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for PodKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Why a pod is not bound, as its `PodScheduled=False` condition says.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// CamelCase reason (`WaitingForGang`, `MissingAnnotation`, `Unschedulable`, …).
    pub reason: &'static str,
    /// What a person reads.
    pub message: String,
}

/// What the caller must do to the API server.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Bind `pod` to VM `vm`'s node.
    Bind {
        /// The pod.
        pod: PodKey,
        /// The VM.
        vm: VmId,
    },
    /// Set `pod`'s `PodScheduled` condition to false with this reason (only sent when it
    /// changes).
    Wait {
        /// The pod.
        pod: PodKey,
        /// Why.
        why: Waiting,
    },
    /// Record a `Warning` event on `pod` (once per gang and reason).
    Warn {
        /// The pod.
        pod: PodKey,
        /// CamelCase reason.
        reason: &'static str,
        /// What a person reads.
        message: String,
    },
}

/// The shell; see the module doc.
pub struct Shell {
    /// The settings it runs under (cluster, billing, keep-alive, queue…), as the
    /// simulator's replay of it ([`Shell::whatif`]) runs under them.
    setup: Setup,
    ctl: Controller,
    /// Each application in the controller, by its job index.
    gangs: HashMap<String, usize>,
    /// The condition last set on each waiting pod, so it is set once per change.
    said: HashMap<PodKey, Waiting>,
    /// The exact optimum, for what a waiting gang would cost on the idle cluster.
    optimal: frugal_core::policy::Optimal,
    /// That cost for each job, dollars, computed once when it joins.
    cheapest: HashMap<usize, f64>,
}

impl Shell {
    /// A shell placing with `policy` under `setup` (its cluster all off), with the same
    /// scheduler and controller settings the simulator would use
    /// ([`frugal_sim::engine::SimConfig::scheduler`]).
    pub fn new(setup: Setup, policy: PolicyKind) -> Shell {
        let built = policy.build(&setup.policy);
        let cfg = setup.sim_config(built.as_ref());
        let (cluster, scheduler) = cfg.scheduler(&setup.cluster, built);
        let ctl = Controller::new(&cluster, Some(scheduler), cfg.control());
        Shell {
            setup,
            ctl,
            gangs: HashMap::new(),
            said: HashMap::new(),
            optimal: Default::default(),
            cheapest: HashMap::new(),
        }
    }

    /// The controller (jobs, fleet, bill).
    pub fn controller(&self) -> &Controller {
        &self.ctl
    }

    /// The settings it runs under.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// This shell's history replayed in the simulator under `policy` — `frugal whatif`
    /// for the Kubernetes face. Each job arrives when it arrived here and is offered
    /// when this shell first offered it; a job that ended runs for its measured time ×
    /// (the model's estimate for the placement it gets / the estimate for the one it had
    /// here), and a failed one fails again; a cancelled job is cancelled at its time.
    /// Under this shell's own policy the replay makes the same decisions, so its bill is
    /// this shell's ([`frugal_core::fleet`]'s rules on the same power record).
    pub fn whatif(&self, policy: PolicyKind) -> RunResult {
        let jobs = self.ctl.jobs().to_vec();
        let duration = self.ctl.scheduler().config().duration;
        let cluster = self.ctl.empty_cluster();
        let mut inputs = Inputs {
            run_times: Some(Vec::with_capacity(jobs.len())),
            offered_at: Some(Vec::with_capacity(jobs.len())),
            ..Inputs::default()
        };
        for (k, job) in jobs.iter().enumerate() {
            let r = self.ctl.get(k);
            let run_time = r.and_then(|r| match (r.state, r.start, r.finish, &r.placement) {
                (JobState::Completed | JobState::Failed, Some(s), Some(f), Some(p)) => {
                    let m = duration.duration(job, cluster, p);
                    (m > 0.0).then(|| RunTime::Factor((f - s) / m))
                }
                _ => None,
            });
            if r.is_some_and(|r| r.state == JobState::Failed) {
                inputs.failures.push(k);
            }
            if let Some(r) = r
                && r.state == JobState::Cancelled
                && let Some(f) = r.finish
            {
                inputs.cancels.push((k, f));
            }
            inputs.run_times.as_mut().expect("set above").push(run_time);
            let offered = r.and_then(|r| r.offered_at);
            inputs.offered_at.as_mut().expect("set above").push(offered);
        }
        self.setup
            .replay(policy.build(&self.setup.policy), &jobs, &inputs)
    }

    /// The VMs that are on: each must have a node.
    pub fn vms_on(&self) -> impl Iterator<Item = VmId> + '_ {
        let fleet = self.ctl.fleet();
        (0..fleet.len() as VmId).filter(move |&vm| fleet.is_on(vm))
    }

    /// Forgets the condition last set on `pod` (its update failed: set it again).
    pub fn forget(&mut self, pod: &PodKey) {
        self.said.remove(pod);
    }

    /// The job index of application `app`, if it joined the controller.
    pub fn job_of(&self, app: &str) -> Option<usize> {
        self.gangs.get(app).copied()
    }

    /// One pass over a snapshot of frugal's pods at `now` (seconds on the shell's clock;
    /// `created` gives a pod's creation on that clock). See the module doc for the rules.
    pub fn observe(
        &mut self,
        pods: &[Pod],
        now: f64,
        created: impl Fn(&Pod) -> Option<f64>,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let mut by_app: BTreeMap<&str, Vec<&Pod>> = BTreeMap::new();
        for pod in pods {
            match pod.metadata.labels.as_ref().and_then(|l| l.get(APP_LABEL)) {
                Some(app) => by_app.entry(app.as_str()).or_default().push(pod),
                None if unbound(pod) => self.wait(
                    &mut actions,
                    pod,
                    Waiting {
                        reason: "MissingLabel",
                        message: format!(
                            "pod {} has no label {APP_LABEL}: frugal places Spark executors by application",
                            pod_name(pod)
                        ),
                    },
                ),
                None => {}
            }
        }
        for v in by_app.values_mut() {
            v.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        }
        // Ends first: at one instant, freed executors are free for the arrivals.
        // The controller's effects need no action of their own: binds follow its records
        // and nodes its fleet ([`Shell::vms_on`]), both read after the pass.
        let known: Vec<(String, usize)> = self.gangs.iter().map(|(a, i)| (a.clone(), *i)).collect();
        for (app, idx) in known {
            let live = by_app.get(app.as_str());
            if self.ctl.record(idx).state == JobState::Running {
                let ended = live.is_none_or(|p| p.iter().all(|p| phase_ended(p)));
                if ended {
                    let ok = live.is_none_or(|p| p.iter().any(|p| phase(p) == Some("Succeeded")));
                    let state = if ok {
                        JobState::Completed
                    } else {
                        JobState::Failed
                    };
                    let event = Event::Finish {
                        job: idx,
                        state,
                        reason: None,
                    };
                    self.ctl.handle(event, now);
                }
            } else if live.is_none() {
                // Its pods are gone: a queued job leaves the queue; an ended one is
                // forgotten (its record stays in the controller for the bill).
                if self.ctl.record(idx).state == JobState::Queued {
                    self.ctl.handle(Event::Cancel { job: idx }, now);
                }
                self.gangs.remove(&app);
                self.cheapest.remove(&idx);
            } else if matches!(
                self.ctl.record(idx).state,
                JobState::Completed | JobState::Failed
            ) && live.is_some_and(|p| p.iter().any(|p| unbound(p)))
            {
                // Its job ended, yet the application asks for executors again: Spark lost
                // every executor at once (deleted for missed heartbeats), the job ended with
                // none left, and the driver requested replacements. They are a new gang,
                // formed below in this pass; left to the ended job, no rule would place them.
                // Only a job that ran: a refused (unschedulable) gang stays refused.
                self.gangs.remove(&app);
                self.cheapest.remove(&idx);
            }
        }
        // New gangs.
        for (app, group) in &by_app {
            if self.gangs.contains_key(*app) {
                continue;
            }
            let free: Vec<&Pod> = group.iter().copied().filter(|p| unbound(p)).collect();
            if free.is_empty() {
                continue;
            }
            let spec = match GangSpec::of_gang(app, &free) {
                Ok(s) => s,
                Err(e) => {
                    for p in &free {
                        let why = Waiting {
                            reason: e.reason(),
                            message: e.to_string(),
                        };
                        self.wait(&mut actions, p, why);
                    }
                    continue;
                }
            };
            if (free.len() as u64) < u64::from(spec.executors) {
                for p in &free {
                    let why = Waiting {
                        reason: "WaitingForGang",
                        message: format!(
                            "{} of application {app}'s {} executor pods exist; frugal places them all at once",
                            free.len(),
                            spec.executors
                        ),
                    };
                    self.wait(&mut actions, p, why);
                }
                continue;
            }
            let arrival = free
                .iter()
                .filter_map(|p| created(p))
                .fold(now, f64::min)
                .max(0.0);
            let job = spec.job(arrival);
            let usd = frugal_core::policy::objective::cheapest_cost(
                &mut self.optimal,
                &job,
                self.ctl.empty_cluster(),
            );
            let (idx, _) = self.ctl.add(job, None, now);
            self.cheapest.insert(idx, usd);
            self.gangs.insert((*app).to_string(), idx);
            if self.ctl.record(idx).state == JobState::Unschedulable {
                let message = format!(
                    "application {app} ({} executors of {} cores and {} MiB) cannot be placed even on the whole cluster",
                    spec.executors, spec.demand.0[0], spec.demand.0[1]
                );
                actions.push(Action::Warn {
                    pod: PodKey::of(free[0]),
                    reason: "FailedScheduling",
                    message: message.clone(),
                });
                for p in &free {
                    let why = Waiting {
                        reason: "Unschedulable",
                        message: message.clone(),
                    };
                    self.wait(&mut actions, p, why);
                }
            }
        }
        self.ctl.handle(Event::Schedule, now);
        // Binds and waits, from the controller's records (level-triggered).
        for (app, group) in &by_app {
            let Some(idx) = self.gangs.get(*app) else {
                continue;
            };
            let r = self.ctl.record(*idx);
            match r.state {
                JobState::Running => {
                    let placement = r.placement.clone().expect("running jobs are placed");
                    self.bind(&mut actions, group, &placement);
                }
                JobState::Queued => {
                    let why = r
                        .reason
                        .clone()
                        .unwrap_or_else(|| "no placement fits the free capacity now".into());
                    let usd = self.cheapest.get(idx).copied().unwrap_or(f64::INFINITY);
                    let message = format!(
                        "queued: {why}; its cheapest placement on the idle cluster costs ${usd:.4} (paper 000 Eq. 16)"
                    );
                    for p in group.iter().filter(|p| unbound(p)) {
                        let why = Waiting {
                            reason: "Queued",
                            message: message.clone(),
                        };
                        self.wait(&mut actions, p, why);
                    }
                }
                _ => {}
            }
        }
        let live: std::collections::HashSet<PodKey> = pods.iter().map(PodKey::of).collect();
        self.said.retain(|k, _| live.contains(k));
        actions
    }

    /// Binds `group`'s unbound pods to the VMs of `placement` with fewer live pods than
    /// executors (VMs in placement order, pods in name order).
    fn bind(
        &mut self,
        actions: &mut Vec<Action>,
        group: &[&Pod],
        placement: &frugal_core::placement::Placement,
    ) {
        let mut room: Vec<(VmId, u32)> = placement.executors_per_vm.clone();
        for p in group.iter().filter(|p| !unbound(p) && !phase_ended(p)) {
            if let Some(vm) = p
                .spec
                .as_ref()
                .and_then(|s| s.node_name.as_deref())
                .and_then(vm_of_node)
                && let Some(slot) = room.iter_mut().find(|(v, _)| *v == vm)
            {
                slot.1 = slot.1.saturating_sub(1);
            }
        }
        for p in group.iter().filter(|p| unbound(p)) {
            let Some(slot) = room.iter_mut().find(|(_, n)| *n > 0) else {
                break;
            };
            slot.1 -= 1;
            self.said.remove(&PodKey::of(p));
            actions.push(Action::Bind {
                pod: PodKey::of(p),
                vm: slot.0,
            });
        }
    }

    /// Says once why `pod` waits.
    fn wait(&mut self, actions: &mut Vec<Action>, pod: &Pod, why: Waiting) {
        let key = PodKey::of(pod);
        if self.said.get(&key) != Some(&why) {
            self.said.insert(key.clone(), why.clone());
            actions.push(Action::Wait { pod: key, why });
        }
    }
}

/// The node name of VM `vm`: `frugal-vm-<id>`.
pub fn node_name(vm: VmId) -> String {
    format!("frugal-vm-{vm}")
}

/// The VM of a node frugal named, if it is one.
pub fn vm_of_node(name: &str) -> Option<VmId> {
    name.strip_prefix("frugal-vm-")?.parse().ok()
}

fn unbound(pod: &Pod) -> bool {
    pod.spec.as_ref().is_none_or(|s| s.node_name.is_none()) && !phase_ended(pod)
}

fn phase(pod: &Pod) -> Option<&str> {
    pod.status.as_ref()?.phase.as_deref()
}

fn phase_ended(pod: &Pod) -> bool {
    matches!(phase(pod), Some("Succeeded" | "Failed"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gang::{ESTIMATED_DURATION, EXECUTORS, ROLE_LABEL};
    use frugal_core::{Preset, PricingModel, QueueDiscipline};

    /// Preset small-hybrid under first fit, VMs off at once when idle.
    fn shell() -> Shell {
        let cluster = Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap();
        Shell::new(
            crate::setup(cluster, QueueDiscipline::Fcfs),
            PolicyKind::FirstFit,
        )
    }

    fn pod(app: &str, name: &str, executors: u32, cores: u32) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "ns",
                "annotations": {EXECUTORS: executors.to_string(), ESTIMATED_DURATION: "100"},
                "labels": {APP_LABEL: app, ROLE_LABEL: "executor"}},
            "spec": {"containers": [{"name": "e",
                "resources": {"requests": {"cpu": cores.to_string(), "memory": "1Gi"}}}]}
        }))
        .unwrap()
    }

    fn binds(actions: &[Action]) -> Vec<(String, VmId)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Bind { pod, vm } => Some((pod.name.clone(), *vm)),
                _ => None,
            })
            .collect()
    }

    fn apply(pods: &mut [Pod], actions: &[Action]) {
        for (name, vm) in binds(actions) {
            let p = pods
                .iter_mut()
                .find(|p| p.metadata.name.as_deref() == Some(&name))
                .unwrap();
            p.spec.as_mut().unwrap().node_name = Some(node_name(vm));
        }
    }

    fn no_created(_: &Pod) -> Option<f64> {
        None
    }

    #[test]
    fn a_gang_waits_until_whole_then_is_bound_all_at_once() {
        let mut sh = shell();
        let mut pods = vec![pod("a", "a1", 3, 1), pod("a", "a2", 3, 1)];
        let acts = sh.observe(&pods, 0.0, no_created);
        assert!(binds(&acts).is_empty());
        assert_eq!(
            acts.iter()
                .filter(|a| matches!(a, Action::Wait { why, .. } if why.reason == "WaitingForGang"))
                .count(),
            2
        );
        // Said once: the same snapshot sets no condition again.
        assert!(sh.observe(&pods, 1.0, no_created).is_empty());
        pods.push(pod("a", "a3", 3, 1));
        let acts = sh.observe(&pods, 2.0, no_created);
        let b = binds(&acts);
        assert_eq!(b.len(), 3);
        // The binds never reached the API server: the next snapshot asks for the same
        // VMs again, and the controller still holds one job.
        let again = sh.observe(&pods, 3.0, no_created);
        assert_eq!(binds(&again), b);
        assert_eq!(sh.controller().records().count(), 1);
        apply(&mut pods, &again);
        assert!(binds(&sh.observe(&pods, 4.0, no_created)).is_empty());
        assert!(sh.vms_on().count() > 0);
        // Every pod succeeded: the job completes and its VMs go off.
        for p in &mut pods {
            p.status =
                Some(serde_json::from_value(serde_json::json!({"phase": "Succeeded"})).unwrap());
        }
        sh.observe(&pods, 50.0, no_created);
        let idx = sh.job_of("a").unwrap();
        assert_eq!(sh.controller().record(idx).state, JobState::Completed);
        assert_eq!(sh.controller().record(idx).finish, Some(50.0));
        assert_eq!(sh.vms_on().count(), 0);
    }

    #[test]
    fn a_replaced_executor_joins_its_gangs_placement() {
        let mut sh = shell();
        let mut pods = vec![pod("a", "a1", 2, 1), pod("a", "a2", 2, 1)];
        let acts = sh.observe(&pods, 0.0, no_created);
        apply(&mut pods, &acts);
        let placed = binds(&acts);
        // Spark replaces a2 by a3 (a2 failed): a3 goes where a2 was.
        pods[1].status =
            Some(serde_json::from_value(serde_json::json!({"phase": "Failed"})).unwrap());
        pods.push(pod("a", "a3", 2, 1));
        let acts = sh.observe(&pods, 5.0, no_created);
        assert_eq!(binds(&acts), [("a3".to_string(), placed[1].1)]);
    }

    #[test]
    fn executors_requested_again_after_the_job_ended_are_a_new_gang() {
        let mut sh = shell();
        let mut pods = vec![pod("a", "a1", 2, 1), pod("a", "a2", 2, 1)];
        let acts = sh.observe(&pods, 0.0, no_created);
        apply(&mut pods, &acts);
        assert_eq!(binds(&acts).len(), 2);
        // Spark deletes both executors (lost heartbeats): none is left, the job ends.
        sh.observe(&[], 130.0, no_created);
        let first = sh.job_of("a").unwrap();
        assert_eq!(sh.controller().record(first).state, JobState::Completed);
        // The driver asks for two new executors: they are placed, as a second job.
        let mut again = vec![pod("a", "a3", 2, 1), pod("a", "a4", 2, 1)];
        let acts = sh.observe(&again, 135.0, no_created);
        assert_eq!(binds(&acts).len(), 2, "{acts:?}");
        apply(&mut again, &acts);
        let second = sh.job_of("a").unwrap();
        assert_ne!(second, first);
        assert_eq!(sh.controller().records().count(), 2);
        assert_eq!(sh.controller().record(second).state, JobState::Running);
        // Bound, they are not a third gang.
        assert!(binds(&sh.observe(&again, 136.0, no_created)).is_empty());
        assert_eq!(sh.controller().records().count(), 2);
    }

    #[test]
    fn a_gang_larger_than_the_cluster_is_refused_once_with_a_reason() {
        let mut sh = shell();
        let pods = vec![pod("big", "b1", 1, 4096)];
        let acts = sh.observe(&pods, 0.0, no_created);
        assert!(acts.iter().any(|a| matches!(
            a,
            Action::Warn {
                reason: "FailedScheduling",
                ..
            }
        )));
        assert!(
            acts.iter()
                .any(|a| matches!(a, Action::Wait { why, .. } if why.reason == "Unschedulable"))
        );
        assert!(sh.observe(&pods, 1.0, no_created).is_empty());
        let idx = sh.job_of("big").unwrap();
        assert_eq!(sh.controller().record(idx).state, JobState::Unschedulable);
    }

    #[test]
    fn a_gang_arrives_when_its_first_pod_was_created() {
        let mut sh = shell();
        let pods = vec![pod("a", "a1", 1, 1)];
        sh.observe(&pods, 10.0, |_| Some(4.0));
        let idx = sh.job_of("a").unwrap();
        assert_eq!(sh.controller().job(idx).arrival, 4.0);
    }

    /// Drives a shell through `steps`: each adds a gang of (executors, cores) at the
    /// next instant, then ends the gang `end % running` if `end` is given; the rest end one
    /// by one. Returns the shell and the last instant.
    fn drive(steps: &[((u32, u32), Option<usize>)]) -> (Shell, f64) {
        let mut sh = shell();
        let mut pods: Vec<Pod> = Vec::new();
        let mut t = 0.0;
        let app = |p: &Pod| p.metadata.labels.as_ref().unwrap()[APP_LABEL].clone();
        let end_app = |pods: &mut Vec<Pod>, a: &str| pods.retain(|p| app(p) != a);
        for (k, &((executors, cores), end)) in steps.iter().enumerate() {
            for e in 0..executors {
                pods.push(pod(
                    &format!("app{k}"),
                    &format!("app{k}-{e}"),
                    executors,
                    cores,
                ));
            }
            t += 7.3;
            let acts = sh.observe(&pods, t, no_created);
            apply(&mut pods, &acts);
            if let Some(end) = end {
                let mut bound: Vec<String> = pods
                    .iter()
                    .filter(|p| p.spec.as_ref().unwrap().node_name.is_some())
                    .map(app)
                    .collect();
                bound.dedup();
                if !bound.is_empty() {
                    end_app(&mut pods, &bound[end % bound.len()]);
                    t += 13.1;
                    let acts = sh.observe(&pods, t, no_created);
                    apply(&mut pods, &acts);
                }
            }
        }
        while !pods.is_empty() {
            // The first bound gang ends (a queued one would be cancelled instead).
            let a = pods
                .iter()
                .find(|p| p.spec.as_ref().unwrap().node_name.is_some())
                .map(app)
                .unwrap_or_else(|| app(&pods[0]));
            end_app(&mut pods, &a);
            t += 11.7;
            let acts = sh.observe(&pods, t, no_created);
            apply(&mut pods, &acts);
        }
        (sh, t)
    }

    /// Gangs arriving, waiting for room, ending at odd instants: the simulator replaying
    /// the history under the same policy bills exactly what the shell's fleet did.
    #[test]
    fn whatif_under_the_same_policy_bills_the_same() {
        let steps = [
            ((2, 2), None),
            ((3, 1), Some(0)),
            ((1, 4), None),
            ((4, 2), Some(0)),
            ((2, 1), None),
        ];
        let (sh, t) = drive(&steps);
        let ctl = sh.controller();
        assert!(ctl.records().all(|(_, r)| r.state == JobState::Completed));
        let bill = ctl.fleet().cost(t);
        let replay = sh.whatif(PolicyKind::FirstFit).summary.total_cost;
        assert!(bill > 0.0);
        assert!(
            (replay - bill).abs() <= 1e-12 * bill,
            "shell ${bill}, replay ${replay}"
        );
    }

    /// The same for 200 seeded cases of random gangs and orders of ends: the Kubernetes
    /// face and the simulator are one controller under two clocks. (Cases come from a
    /// splitmix64 stream rather than proptest, which this crate does not depend on.)
    #[test]
    fn the_replay_bills_what_the_shell_did_in_any_history() {
        let mut state = 0x5eed_u64;
        let mut next = move |n: u64| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) % n
        };
        for case in 0..200 {
            let steps: Vec<((u32, u32), Option<usize>)> = (0..1 + next(11))
                .map(|_| {
                    let gang = (1 + next(5) as u32, 1 + next(4) as u32);
                    let end = (next(2) == 0).then(|| next(4) as usize);
                    (gang, end)
                })
                .collect();
            let (sh, t) = drive(&steps);
            let bill = sh.controller().fleet().cost(t);
            let replay = sh.whatif(PolicyKind::FirstFit).summary.total_cost;
            assert!(
                (replay - bill).abs() <= 1e-9 * bill.max(1e-9),
                "case {case} {steps:?}: shell ${bill}, replay ${replay}"
            );
        }
    }

    /// A gang that waits for room says so, with what its cheapest placement on the idle
    /// cluster costs.
    #[test]
    fn a_waiting_gang_says_what_it_would_cost() {
        let mut sh = shell();
        let cores = sh.controller().cluster().total_capacity.0[0];
        let mut pods: Vec<Pod> = (0..cores)
            .map(|e| pod("a", &format!("a{e}"), cores, 1))
            .collect();
        let acts = sh.observe(&pods, 0.0, no_created);
        apply(&mut pods, &acts);
        assert_eq!(
            binds(&acts).len(),
            cores as usize,
            "the first gang fills the cluster"
        );
        pods.push(pod("b", "b0", 1, 1));
        let acts = sh.observe(&pods, 1.0, no_created);
        let why = acts
            .iter()
            .find_map(|a| match a {
                Action::Wait { pod, why } if pod.name == "b0" => Some(why.clone()),
                _ => None,
            })
            .expect("b0 is told why it waits");
        assert_eq!(why.reason, "Queued");
        assert!(
            why.message
                .contains("cheapest placement on the idle cluster costs $0."),
            "{}",
            why.message
        );
    }
}

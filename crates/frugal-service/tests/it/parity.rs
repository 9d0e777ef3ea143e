//! One fleet, one bill: random histories driven through the service — its live state and
//! its durable store, on a manual clock, restarted midway from the store with a gap of
//! wall-clock time between closing and rebuilding ([`RESTART_GAP_S`]) — and through
//! the simulator give the same bill (to 1e-9 $), the same per-job states and instants,
//! and the same deadline-met count, under per-second and per-hour billing, keep-alive 0,
//! 60 s and until the paid hour ends, and boot latency 0 and 30 s.
//!
//! The service side does what its scheduling loop does at each instant (the backend's
//! events, then one pass) and what `Service::apply` does with the effects (changes and
//! power records to the store); the "backend" is the history: each launched job ends
//! after its measured run time, VMs are lost or refused at given instants. At one instant
//! the events come in the simulator's order (ends, cancellations, VM events, arrivals).
//!
//! With a contention model (some histories), jobs run exactly as the model predicts: the
//! simulator ends each at its predicted end, and the service's backend ends each at the
//! end its record predicts, moved whenever the controller reports the job changed. A
//! restart rebuilds the fluid from the stored ends, which float arithmetic repeats only to
//! within rounding, so those histories compare instants and bills to 1e-6.

use std::collections::BTreeMap;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::contention::{ContentionModel, LoadUnit, Scope};
use frugal_core::control::Event;
use frugal_core::fleet::{KeepAlive, billed_at};
use frugal_core::lifecycle::{DeadlineCount, JobState, deadline_outcome};
use frugal_core::scheduler::Scheduler;
use frugal_core::{
    Backfill, DurationModel, PolicyKind, PolicyParams, Preset, PricingModel, QueueDiscipline, Rut,
    SchedulerConfig,
};
use frugal_service::clock::Clock;
use frugal_service::{
    Durability, Effect, State, Store, StoreLimits, StoredJob, Submission, restore_state,
};
use frugal_sim::engine::{Inputs, RunTime, SimConfig, VmEvent, VmEventKind, simulate_with};
use proptest::prelude::*;

/// One submitted job of a history.
#[derive(Clone, Debug)]
struct Sub {
    arrival: f64,
    executors: u32,
    cores: u32,
    estimate_s: f64,
    /// Measured run time ÷ estimate.
    factor: f64,
    /// Deadline ÷ estimate, after the arrival.
    slack: Option<f64>,
    cancel_after: Option<f64>,
    fails: bool,
}

#[derive(Clone, Debug)]
struct History {
    subs: Vec<Sub>,
    vm_events: Vec<VmEvent>,
    restart_at: f64,
    billing: BillingGranularity,
    keep_alive: KeepAlive,
    boot_s: f64,
    policy: PolicyKind,
    admission_control: bool,
    contention: Option<ContentionModel>,
}

fn sub() -> impl Strategy<Value = Sub> {
    (
        0u32..40,
        1u32..5,
        1u32..4,
        30u32..1500,
        prop_oneof![Just(1.0), 0.5f64..2.0],
        prop::option::of(1.0f64..3.0),
        prop::option::of(prop_oneof![Just(0.0), 1.0f64..2000.0]),
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(gap, executors, cores, est, factor, slack, cancel_after, fails)| Sub {
                arrival: f64::from(gap * 30),
                executors,
                cores,
                estimate_s: f64::from(est),
                factor,
                slack,
                cancel_after,
                fails,
            },
        )
}

fn history() -> impl Strategy<Value = History> {
    (
        prop::collection::vec(sub(), 1..25),
        prop::collection::vec((0u32..8000, 0u32..8, prop::bool::ANY), 0..4),
        0u32..6000,
        prop_oneof![
            Just(BillingGranularity::PerSecond),
            Just(BillingGranularity::PerHour)
        ],
        prop_oneof![
            Just(KeepAlive::Seconds(0.0)),
            Just(KeepAlive::Seconds(60.0)),
            Just(KeepAlive::UntilPaidHourEnds)
        ],
        prop_oneof![Just(0.0), Just(30.0)],
        prop_oneof![
            Just(PolicyKind::FirstFit),
            Just(PolicyKind::BestFitDecreasing)
        ],
        prop::bool::weighted(0.3),
        prop::option::weighted(
            0.4,
            (
                prop_oneof![Just(Scope::Cluster), Just(Scope::Site)],
                prop_oneof![Just(LoadUnit::Jobs), Just(LoadUnit::Cores)],
                prop_oneof![Just(1.0), Just(2.5), Just(6.0)],
                prop_oneof![Just(None), Just(Some(0.13)), Just(Some(0.5))],
            ),
        ),
    )
        .prop_map(
            |(mut subs, events, restart, billing, keep_alive, boot_s, policy, ac, contention)| {
                // Arrivals as cumulative gaps (several may share an instant).
                let mut t = 0.0;
                for s in &mut subs {
                    t += s.arrival;
                    s.arrival = t;
                }
                let vm_events = events
                    .into_iter()
                    .map(|(at, vm, lost)| VmEvent {
                        at_s: f64::from(at),
                        vm: vm % cluster().len() as u32,
                        event: if lost {
                            VmEventKind::Lost
                        } else {
                            VmEventKind::Refused
                        },
                    })
                    .collect();
                History {
                    subs,
                    vm_events,
                    restart_at: f64::from(restart) + 0.5,
                    billing,
                    keep_alive,
                    boot_s,
                    policy,
                    admission_control: ac,
                    contention: contention.map(|(scope, load, capacity, slope)| ContentionModel {
                        scope,
                        load,
                        capacity,
                        slope,
                    }),
                }
            },
        )
}

fn cluster() -> Cluster {
    Preset::SmallHybrid
        .config(PricingModel::Model1)
        .build("small")
        .unwrap()
}

fn scheduler_config(h: &History) -> SchedulerConfig {
    SchedulerConfig {
        discipline: QueueDiscipline::Edf,
        admission_control: h.admission_control,
        rut: Rut::default(),
        duration: DurationModel {
            contention: h.contention,
            ..DurationModel::default()
        },
        boot_latency_s: h.boot_s,
        charge_decision_time: false,
        backfill: Backfill::Easy,
    }
}

fn submission(k: usize, s: &Sub) -> Submission {
    let deadline = s
        .slack
        .map(|x| format!(r#","deadline_s":{}"#, (x * s.estimate_s).round()))
        .unwrap_or_default();
    let body = format!(
        r#"{{"id":"j{k}","executors":{},"executor_cores":{},"executor_memory_gib":2,
            "estimated_duration_s":{}{deadline}}}"#,
        s.executors, s.cores, s.estimate_s
    );
    Submission::parse(body.as_bytes()).unwrap()
}

/// What both sides end with: per job (state, start, finish), the bill, deadlines met.
#[derive(Debug, PartialEq)]
struct RunTotals {
    jobs: Vec<(JobState, Option<f64>, Option<f64>)>,
    deadlines: DeadlineCount,
}

fn simulated(h: &History) -> (RunTotals, f64) {
    let jobs: Vec<_> = (h.subs.iter().enumerate())
        .map(|(k, s)| submission(k, s).job(s.arrival))
        .collect();
    let inputs = Inputs {
        // Under contention the jobs run as the model predicts.
        run_times: h.contention.is_none().then(|| {
            (h.subs.iter())
                .map(|s| Some(RunTime::Seconds(s.factor * s.estimate_s)))
                .collect()
        }),
        offered_at: None,
        cancels: (h.subs.iter().enumerate())
            .filter_map(|(k, s)| s.cancel_after.map(|c| (k, s.arrival + c)))
            .collect(),
        failures: (h.subs.iter().enumerate())
            .filter(|(_, s)| s.fails)
            .map(|(k, _)| k)
            .collect(),
        vm_events: h.vm_events.clone(),
    };
    let cfg = SimConfig {
        scheduler: scheduler_config(h),
        billing: h.billing,
        keep_alive: h.keep_alive,
        budget_per_hour: None,
    };
    let policy = h.policy.build(&PolicyParams::default());
    let r = simulate_with(&cluster(), &jobs, policy, cfg, &inputs);
    let mut deadlines = DeadlineCount::default();
    for (j, rec) in r.jobs.iter().enumerate() {
        deadlines.add(deadline_outcome(
            jobs[j].deadline,
            rec.status,
            rec.finish,
            f64::INFINITY,
        ));
    }
    let jobs = r
        .jobs
        .iter()
        .map(|j| (j.status, j.start, j.finish))
        .collect();
    (RunTotals { jobs, deadlines }, r.summary.total_cost)
}

/// An event the "backend" (the history) delivers.
#[derive(Clone, Debug, PartialEq)]
enum Ev {
    Ends(String),
    Cancel(String),
    Vm(VmEvent),
    Arrives(usize),
}

impl Ev {
    fn order(&self) -> u8 {
        match self {
            Ev::Ends(_) => 0,
            Ev::Cancel(_) => 1,
            Ev::Vm(_) => 2,
            Ev::Arrives(_) => 3,
        }
    }
}

struct Served {
    url: String,
    store: Store,
    st: State,
    /// (time, order, sequence) → event.
    events: BTreeMap<(u64, u8, u64), Ev>,
    seq: u64,
}

fn key(t: f64) -> u64 {
    // Times are ≥ 0: their bit patterns sort as the numbers do.
    t.to_bits()
}

impl Served {
    fn push(&mut self, t: f64, ev: Ev) {
        self.seq += 1;
        self.events.insert((key(t), ev.order(), self.seq), ev);
    }

    fn fresh_state(h: &History) -> State {
        let policy = h.policy.build(&PolicyParams::default());
        State::new(
            cluster(),
            Scheduler::new(policy, scheduler_config(h)),
            h.billing,
            h.keep_alive,
            None,
        )
    }

    async fn open(url: &str) -> Store {
        Store::open(
            url,
            Durability::Process,
            Clock::new(1.0),
            StoreLimits::default(),
        )
        .await
        .unwrap()
    }

    /// What `Service::apply` does: changes and power records to the store; a launch
    /// books the job's end after its measured run time, a stop forgets it.
    fn apply(&mut self, h: &History, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Changed(idx) => {
                    self.store.update(self.st.update_of(idx)).unwrap();
                    let e = self.st.entry(idx);
                    if h.contention.is_some() && e.state == JobState::Running {
                        // Its predicted end moved: the backend ends it there.
                        let id = e.submission.id.clone();
                        let end = e.finish.unwrap();
                        self.events.retain(|_, ev| *ev != Ev::Ends(id.clone()));
                        self.push(end, Ev::Ends(id));
                    }
                }
                Effect::VmOn(vm, at) => self.store.vm_on(vm, at).unwrap(),
                Effect::VmOff(vm, at) => self.store.vm_off(vm, at).unwrap(),
                Effect::VmLost { vm, at, refused } => self.store.vm_event(vm, at, refused).unwrap(),
                Effect::Launch(idx) => {
                    let e = self.st.entry(idx);
                    let id = e.submission.id.clone();
                    let k: usize = id[1..].parse().unwrap();
                    let end = match h.contention {
                        Some(_) => e.finish.unwrap(),
                        None => e.start.unwrap() + h.subs[k].factor * h.subs[k].estimate_s,
                    };
                    self.events.retain(|_, ev| *ev != Ev::Ends(id.clone()));
                    self.push(end, Ev::Ends(id));
                }
                Effect::Stop(idx) => {
                    let id = self.st.entry(idx).submission.id.clone();
                    self.events.retain(|_, ev| *ev != Ev::Ends(id.clone()));
                }
                Effect::AddExecutors { .. } => {}
            }
        }
    }

    /// A restart at `now`: the store is closed and opened again, the live state rebuilt
    /// from it; the backend still runs every running job.
    async fn restart(&mut self, h: &History, now: f64) {
        self.store.flush().await.unwrap();
        self.store = Served::open(&self.url).await;
        self.st = Served::fresh_state(h);
        let jobs: Vec<StoredJob> = self.store.jobs().await.unwrap();
        let intervals = self.store.vm_intervals().await.unwrap();
        let losses = self.store.vm_events().await.unwrap();
        let effects = restore_state(&mut self.st, jobs, &intervals, &losses, now, &mut |_| true);
        self.apply(h, effects);
    }
}

/// How long after closing its store the restarted service rebuilds its state, seconds of
/// service time: a restart's 1–20 ms of wall-clock time at a speed-up of 1.
const RESTART_GAP_S: f64 = 0.02;

async fn served(h: &History, dir: &std::path::Path) -> (RunTotals, f64) {
    let url = format!("sqlite:{}", dir.join("frugal.db").display());
    let store = Served::open(&url).await;
    let mut s = Served {
        url,
        store,
        st: Served::fresh_state(h),
        events: BTreeMap::new(),
        seq: 0,
    };
    for (k, sub) in h.subs.iter().enumerate() {
        s.push(sub.arrival, Ev::Arrives(k));
        if let Some(c) = sub.cancel_after {
            s.push(sub.arrival + c, Ev::Cancel(format!("j{k}")));
        }
    }
    for e in &h.vm_events {
        s.push(e.at_s, Ev::Vm(*e));
    }
    let mut restarted = false;
    let mut last = (f64::NEG_INFINITY, 0);
    loop {
        let next_event = s.events.keys().next().map(|k| f64::from_bits(k.0));
        let wake = s.st.next_wake();
        let Some(now) = [next_event, wake]
            .into_iter()
            .flatten()
            .min_by(f64::total_cmp)
        else {
            break;
        };
        last = if now == last.0 {
            (now, last.1 + 1)
        } else {
            (now, 0)
        };
        assert!(
            last.1 < 100,
            "stuck at {now} s: wake {wake:?}, events {:?}",
            s.events
        );
        if !restarted && h.restart_at <= now {
            restarted = true;
            // A real restart takes wall-clock time: the state is rebuilt that much later
            // than the store was closed (never past the next event). Its off/on pair is no
            // power cycle (`Controller::restore_power`), so the bill is the simulator's.
            s.restart(h, (h.restart_at + RESTART_GAP_S).min(now)).await;
            continue;
        }
        let mut effects = Vec::new();
        while let Some(entry) = s.events.first_entry() {
            if f64::from_bits(entry.key().0) != now {
                break;
            }
            match entry.remove() {
                Ev::Ends(id) => {
                    let idx = s.st.find(&id).unwrap();
                    let k: usize = id[1..].parse().unwrap();
                    let (state, reason) = if h.subs[k].fails {
                        (JobState::Failed, Some("exit code 1".to_string()))
                    } else {
                        (JobState::Completed, None)
                    };
                    let event = Event::Finish {
                        job: idx,
                        state,
                        reason,
                    };
                    effects.extend(s.st.handle(event, now));
                }
                Ev::Cancel(id) => {
                    if let Some(idx) = s.st.find(&id) {
                        effects.extend(s.st.cancel(idx, now).unwrap_or_default());
                    }
                }
                Ev::Vm(e) => match e.event {
                    VmEventKind::Lost => {
                        let event = Event::VmLost {
                            vm: e.vm,
                            reason: "lost".into(),
                        };
                        effects.extend(s.st.handle(event, now));
                    }
                    VmEventKind::Refused => {
                        if s.st.controller().fleet().is_on(e.vm) {
                            let event = Event::PowerOnRefused {
                                vm: e.vm,
                                reason: "refused".into(),
                            };
                            effects.extend(s.st.handle(event, now));
                        }
                    }
                },
                Ev::Arrives(k) => {
                    let sub = submission(k, &h.subs[k]);
                    assert!(s.store.insert(&sub, now).await.unwrap());
                    let job = sub.job(now);
                    effects.extend(s.st.add(sub, job, JobState::Queued, now).1);
                }
            }
        }
        effects.extend(s.st.schedule(now));
        s.apply(h, effects);
    }
    s.store.flush().await.unwrap();
    let stored = s.store.jobs().await.unwrap();
    let mut deadlines = DeadlineCount::default();
    let mut jobs = Vec::new();
    for j in &stored {
        let deadline = j.submission.job(j.arrival).deadline;
        deadlines.add(deadline_outcome(deadline, j.state, j.finish, f64::INFINITY));
        // The simulator records a finish only for a job that started.
        jobs.push((j.state, j.start, j.start.and(j.finish)));
    }
    let c = cluster();
    let mut bill = 0.0;
    for (vm, v) in c.vms.iter().enumerate() {
        let iv: Vec<(f64, f64)> = s
            .store
            .vm_intervals()
            .await
            .unwrap()
            .into_iter()
            .filter(|&(w, ..)| w as usize == vm)
            .map(|(_, on, off)| (on, off.expect("every VM is off at the end")))
            .collect();
        bill += billed_at(h.billing, &iv, v.price_per_second, f64::INFINITY);
    }
    (RunTotals { jobs, deadlines }, bill)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_service_and_the_simulator_keep_one_bill(h in history()) {
        let ((service, service_bill), (sim, sim_bill)) = both(&h);
        if h.contention.is_none() {
            prop_assert_eq!(&service.jobs, &sim.jobs);
        } else {
            prop_assert!(same_within(&service.jobs, &sim.jobs, 1e-6), "service {:?}\nsimulator {:?}", service.jobs, sim.jobs);
        }
        prop_assert_eq!(service.deadlines, sim.deadlines);
        let tolerance = if h.contention.is_none() { 1e-9 } else { 1e-6 };
        prop_assert!(
            (service_bill - sim_bill).abs() <= tolerance,
            "service {} $, simulator {} $", service_bill, sim_bill
        );
    }
}

/// `h` served (in a directory of its own, removed after) and simulated: each side's
/// totals and bill.
fn both(h: &History) -> ((RunTotals, f64), (RunTotals, f64)) {
    let dir = std::env::temp_dir().join(format!(
        "frugal-parity-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let service = rt.block_on(served(h, &dir));
    drop(rt);
    std::fs::remove_dir_all(&dir).ok();
    (service, simulated(h))
}

/// The service's and the simulator's bills for `h`.
fn bills(h: &History) -> (f64, f64) {
    let ((_, service), (_, simulator)) = both(h);
    (service, simulator)
}

/// A case the property found (the service billed $36, the simulator $39.60): VM 0's
/// keep-alive runs out at 3,600 s, the instant job 5 arrives, and first fit turns it off
/// and on again in that instant — no power cycle, so the controller sends neither the off
/// nor the on, and the store keeps one interval from 0 s. The fleet used to note a
/// power-on asked for at 3,600 s, so a refusal at 5,731 s rolled back to 3,600 s in the
/// simulator and to 0 s in the service restarted in between. Now the reopened interval
/// keeps the request that opened it (`Fleet::reopen`): both roll back to 0 s. By hand:
/// VM 0 billed nothing; VMs 1 and 2 on 0–7,200 s, two started hours at $7.20 and $10.80.
#[test]
fn an_off_and_on_in_one_instant_keeps_the_power_on_a_refusal_rolls_back_to() {
    let sub = |arrival: f64, executors: u32, cores: u32| Sub {
        arrival,
        executors,
        cores,
        estimate_s: 30.0,
        factor: 1.0,
        slack: None,
        cancel_after: None,
        fails: false,
    };
    let h = History {
        subs: vec![
            sub(0.0, 4, 3),
            sub(510.0, 1, 1),
            sub(660.0, 1, 1),
            sub(1710.0, 1, 1),
            sub(2580.0, 1, 1),
            sub(3600.0, 4, 3),
        ],
        vm_events: vec![VmEvent {
            at_s: 5731.0,
            vm: 0,
            event: VmEventKind::Refused,
        }],
        restart_at: 3600.5,
        billing: BillingGranularity::PerHour,
        keep_alive: KeepAlive::UntilPaidHourEnds,
        boot_s: 0.0,
        policy: PolicyKind::FirstFit,
        admission_control: false,
        contention: None,
    };
    let (service, simulator) = bills(&h);
    let by_hand = 2.0 * 7.2 + 2.0 * 10.8;
    assert!(
        (service - by_hand).abs() <= 1e-9 && (simulator - by_hand).abs() <= 1e-9,
        "service {service} $, simulator {simulator} $, by hand {by_hand} $"
    );
}

/// A distinct suffix per case (cases run one after another in a process).
/// The same states, and instants within `eps` seconds.
fn same_within(
    a: &[(JobState, Option<f64>, Option<f64>)],
    b: &[(JobState, Option<f64>, Option<f64>)],
    eps: f64,
) -> bool {
    let near = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => (x - y).abs() <= eps,
        (x, y) => x == y,
    };
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && near(x.1, y.1) && near(x.2, y.2))
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::SeqCst)
}

//! The environment against hand-worked examples and against the simulator.

use std::sync::Arc;

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::policy::{FirstFit, PlacementPolicy};
use frugal_core::{Job, JobKind, PolicyKind, PolicyParams, Preset, PricingModel, Resources};
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};
use frugal_sim::simulate;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn config(cluster: Cluster, workloads: Vec<Arc<[Job]>>, mode: Mode) -> EnvConfig {
    EnvConfig::paper002(cluster, workloads, mode, 0.5)
}

/// Paper 002 Fig. 2: VM1 {4 cores, 8 GiB}, VM2 {8, 16}; job1 = 2 × {4, 8}, job2 = 1 × {6, 10}.
fn figure_2() -> (Cluster, Arc<[Job]>) {
    let types = vec![
        InstanceType {
            name: "vm1".into(),
            capacity: Resources::from_gib(4, 8),
        },
        InstanceType {
            name: "vm2".into(),
            capacity: Resources::from_gib(8, 16),
        },
    ];
    let groups: Vec<VmGroup> = (0..2)
        .map(|t| VmGroup {
            instance_type: t,
            site: Site::Cloud,
            count: 1,
            price_per_second: 0.001 * (t + 1) as f64,
        })
        .collect();
    let job = |id: &str, e, c, m, t| Job {
        id: id.into(),
        kind: JobKind::CpuBound,
        executors: e,
        executor_demand: Resources::from_gib(c, m),
        arrival: 0.0,
        deadline: None,
        t_local: t,
        t_hybrid: t,
    };
    (
        Cluster::new(types, &groups),
        Arc::from(vec![
            job("job1", 2, 4, 8, 100.0),
            job("job2", 1, 6, 10, 50.0),
        ]),
    )
}

#[test]
fn figure_2a_an_invalid_placement_ends_the_episode() {
    let (cluster, jobs) = figure_2();
    let mut env = SparkPlacementEnv::new(config(cluster, vec![jobs], Mode::Paper)).unwrap();
    env.reset(Some(0));
    assert_eq!(env.observation_len(), 3 * 2 + 6);
    assert_eq!(env.step(1).unwrap().reward, 1.0);
    let s = env.step(1).unwrap();
    assert_eq!((s.reward, s.terminated), (-200.0, true));
    assert!(env.step(2).is_err());
}

#[test]
fn figure_2b_wait_for_resources_then_finish_with_the_episodic_reward() {
    let (cluster, jobs) = figure_2();
    let mut env = SparkPlacementEnv::new(config(cluster, vec![jobs], Mode::Masked)).unwrap();
    env.reset(Some(0));
    assert_eq!(env.step(1).unwrap().reward, 1.0);
    assert_eq!(env.step(2).unwrap().reward, 1.0);
    // job2 {6, 10} fits nowhere while job1 runs: only waiting is feasible.
    assert_eq!(env.action_mask(), &[true, false, false]);
    assert_eq!(env.current_job().unwrap().0.id, "job2");
    let s = env.step(0).unwrap();
    assert_eq!(s.reward, -1.0);
    assert_eq!(env.now(), 100.0);
    let last = env.step(2).unwrap();
    assert!(last.terminated);
    // job1 spread over 2 VMs (its kind prefers it): 100 s; job2 alone: 50 s, at T_min.
    // Cost: vm1 100 s × 0.001 + vm2 150 s × 0.002 = 0.4.
    let k = env.kpis();
    assert!((k.cost - 0.4).abs() < 1e-12, "{}", k.cost);
    assert_eq!(k.mean_duration_s, 75.0);
    let cost_max = (130.0 + 65.0) * 0.003;
    let expect = 1.0 + 10_000.0 * (0.5 * (1.0 - 0.4 / cost_max) + 0.5 * 1.0);
    assert!(
        (last.reward - expect).abs() < 1e-9,
        "{} vs {expect}",
        last.reward
    );
}

/// A job the cluster cannot hold whole now is not started (all or nothing, as the
/// scheduler places jobs): with job1 = 1 × {4, 8} on VM1, job3 = 3 × {4, 8} has only VM2's
/// two slots, so only waiting is feasible (masked), and an executor is invalid (paper);
/// once job1 ends, job3 fits and may start.
#[test]
fn a_job_that_does_not_fit_whole_now_only_waits() {
    let (cluster, _) = figure_2();
    let job = |id: &str, e| Job {
        id: id.into(),
        kind: JobKind::CpuBound,
        executors: e,
        executor_demand: Resources::from_gib(4, 8),
        arrival: 0.0,
        deadline: None,
        t_local: 100.0,
        t_hybrid: 100.0,
    };
    let jobs: Arc<[Job]> = Arc::from(vec![job("job1", 1), job("job3", 3)]);
    for mode in [Mode::Masked, Mode::Paper] {
        let mut env =
            SparkPlacementEnv::new(config(cluster.clone(), vec![Arc::clone(&jobs)], mode)).unwrap();
        env.reset(Some(0));
        assert_eq!(env.step(1).unwrap().reward, 1.0, "job1 on VM1");
        // job3 needs 3 slots; VM2 has 2, VM1 none: it cannot be held whole.
        assert_eq!(env.current_job().unwrap().0.id, "job3");
        assert_eq!(env.action_mask(), &[true, false, false]);
        let s = env.step(2).unwrap();
        assert_eq!(s.reward, -200.0);
        assert_eq!(s.terminated, mode == Mode::Paper, "{mode:?}");
        if mode == Mode::Masked {
            assert_eq!(env.step(0).unwrap().reward, -1.0);
            assert_eq!(env.now(), 100.0, "waited for job1's end");
            assert_eq!(env.action_mask(), &[false, true, true]);
        }
    }
}

/// Drives the environment with first fit, one executor at a time, waiting when the whole
/// job does not fit: the schedule, cost and times must be the simulator's (first fit,
/// FCFS).
#[test]
fn first_fit_through_the_environment_reproduces_the_simulator() {
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("p002")
        .unwrap();
    for (pattern, seed) in [(Pattern::Normal, 1), (Pattern::Burst, 2)] {
        let jobs = episodes(
            JobSource::Swim,
            Protocol::HeldOut,
            pattern,
            Split::Eval,
            seed,
        )
        .remove(0);
        let mut env = SparkPlacementEnv::new(config(
            cluster.clone(),
            vec![Arc::clone(&jobs)],
            Mode::Masked,
        ))
        .unwrap();
        env.reset(Some(0));
        let mut ff = FirstFit::default();
        while !env.is_done() {
            let (job, left) = env.current_job().expect("a job is offered");
            let mut rest = job.clone();
            rest.executors = left;
            let action = match ff.place(&rest, env.cluster().unwrap(), env.now()) {
                Some(p) => p.executors_per_vm[0].0 as usize + 1,
                None => 0,
            };
            env.step(action).unwrap();
        }
        let r = env.result().unwrap();
        let sim = env.config().sim;
        let expected = simulate(
            &cluster,
            &jobs,
            PolicyKind::FirstFit.build(&PolicyParams::default()),
            sim,
        );
        assert_eq!(r.jobs, expected.jobs);
        assert!((r.summary.total_cost - expected.summary.total_cost).abs() < 1e-9);
    }
}

#[test]
fn random_masked_episodes_end_and_are_deterministic() {
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("p002")
        .unwrap();
    let cfg = config(
        cluster,
        episodes(
            JobSource::Swim,
            Protocol::HeldOut,
            Pattern::Burst,
            Split::Train,
            1,
        ),
        Mode::Masked,
    );
    let run = |seed: u64| {
        let mut env = SparkPlacementEnv::new(cfg.clone()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut trace = Vec::new();
        env.reset(Some(seed));
        let mut steps = 0;
        while !env.is_done() {
            let valid: Vec<usize> = (0..env.action_count())
                .filter(|&a| env.action_mask()[a])
                .collect();
            assert!(!valid.is_empty(), "no feasible action at step {steps}");
            assert!(env.observation().iter().all(|x| (0.0..=1.0).contains(x)));
            let a = valid[rng.random_range(0..valid.len())];
            let s = env.step(a).unwrap();
            trace.push((a, s.reward.to_bits()));
            steps += 1;
        }
        let k = env.kpis();
        assert_eq!(k.jobs_scheduled, k.jobs_total);
        assert!(k.cost > 0.0);
        (trace, k.cost.to_bits())
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

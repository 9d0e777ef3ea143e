//! Agents train deterministically, and a checkpoint used as a placement policy in the
//! simulator acts exactly as the agent did in the environment.

use std::sync::Arc;

use frugal_agents::{AgentKind, Checkpoint, RlPolicy, TrainConfig, evaluate, train};
use frugal_core::{Preset, PricingModel};
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};
use frugal_sim::simulate;

fn env(split: Split) -> SparkPlacementEnv {
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("p002")
        .unwrap();
    SparkPlacementEnv::new(EnvConfig::paper002(
        cluster,
        episodes(
            JobSource::Swim,
            Protocol::HeldOut,
            Pattern::Normal,
            split,
            1,
        ),
        Mode::Masked,
        0.5,
    ))
    .unwrap()
}

fn trained(agent: AgentKind, seed: u64) -> (frugal_agents::Mlp, f64) {
    let mut e = env(Split::Train);
    let mut cfg = TrainConfig::paper002(agent, 8, seed);
    cfg.collect_episodes = 2;
    cfg.batch_size = 16;
    let net = train(&mut e, &cfg, |_, _| {}).unwrap();
    let (_, ret) = evaluate(&mut env(Split::Eval), &net, 0).unwrap();
    (net, ret)
}

#[test]
fn training_is_deterministic_for_a_seed() {
    for agent in [AgentKind::Dqn, AgentKind::Reinforce] {
        let a = trained(agent, 5).1;
        assert_eq!(a.to_bits(), trained(agent, 5).1.to_bits(), "{agent:?}");
    }
}

/// The agent's greedy episode in the environment and the same checkpoint run by the
/// simulator as `rl:<checkpoint>` give the same schedule and bill: on a light episode
/// (SWIM, normal) with a briefly trained agent, and on a saturated one (the paper's
/// generated burst, where jobs often cannot be held whole and must wait) with trained and
/// untrained networks.
#[test]
fn a_checkpoint_as_placement_policy_replays_the_agent() {
    let dir = std::env::temp_dir().join(format!("frugal-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("p002")
        .unwrap();
    let cases = [
        (JobSource::Swim, Pattern::Normal, Some(3)),
        (JobSource::Generator, Pattern::Burst, Some(4)),
        (JobSource::Generator, Pattern::Burst, None),
    ];
    for (k, (source, pattern, trained_seed)) in cases.into_iter().enumerate() {
        let jobs: Arc<[frugal_core::Job]> =
            episodes(source, Protocol::HeldOut, pattern, Split::Eval, 1).remove(0);
        let mut eval = SparkPlacementEnv::new(EnvConfig::paper002(
            cluster.clone(),
            vec![Arc::clone(&jobs)],
            Mode::Masked,
            0.5,
        ))
        .unwrap();
        let net = match trained_seed {
            Some(seed) => trained(AgentKind::Reinforce, seed).0,
            None => frugal_agents::Mlp::new(eval.observation_len(), 200, eval.action_count(), 7),
        };
        let (kpis, _) = evaluate(&mut eval, &net, 0).unwrap();
        let path = dir.join(format!("a{k}.safetensors"));
        let ck = Checkpoint {
            agent: AgentKind::Reinforce,
            vms: eval.action_count() - 1,
            hidden: 200,
            scale: *eval.observation_scale(),
            training: serde_json::json!({}),
        };
        ck.save(&net, &path).unwrap();
        let policy = RlPolicy::load(&path).unwrap();
        let r = simulate(&cluster, &jobs, Box::new(policy), eval.config().sim);
        assert_eq!(
            r.jobs,
            eval.result().unwrap().jobs,
            "{source:?} {pattern:?} {trained_seed:?}"
        );
        assert!(
            (r.summary.total_cost - kpis.cost).abs() < 1e-9,
            "{source:?} {pattern:?}: {} vs {}",
            r.summary.total_cost,
            kpis.cost
        );
        assert!((r.summary.mean_jct_s - kpis.mean_jct_s).abs() < 1e-9);
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(RlPolicy::load(&dir.join("missing.safetensors")).is_err());
}

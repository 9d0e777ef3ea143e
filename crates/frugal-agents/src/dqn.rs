//! Deep Q-learning (paper 002 §5.1, Alg. 1, Eq. 15–16).

use candle_core::{D, Device, Tensor};
use candle_nn::Optimizer;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_env::SparkPlacementEnv;

use crate::mlp::{Mlp, masked_argmax};
use crate::{AgentError, IterationStats, TrainConfig};

/// One transition (s, a, r, s', done) with the feasible actions of s'.
struct Transition {
    obs: Vec<f32>,
    action: u32,
    reward: f32,
    next_obs: Vec<f32>,
    next_mask: Vec<bool>,
    done: bool,
}

/// Rewards are divided by this before learning so that R_fixed-sized episodic rewards do
/// not swamp the ±1 step rewards in the squared TD error.
const REWARD_SCALE: f32 = 100.0;

pub(crate) fn train(
    env: &mut SparkPlacementEnv,
    cfg: &TrainConfig,
    mut on_iteration: impl FnMut(&IterationStats, &Mlp),
) -> Result<Mlp, AgentError> {
    let (d, a) = (env.observation_len(), env.action_count());
    let (online, mut opt) = Mlp::with_adam(d, cfg, a)?;
    let target = Mlp::new(d, cfg.hidden, a, cfg.seed)?;
    target.copy_from(&online)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x9e37_79b9);
    let mut buffer: Vec<Transition> = Vec::with_capacity(cfg.replay_capacity);
    let mut next_slot = 0;
    let mut weights = online.weights()?;
    let mut q = vec![0.0; a];
    env.reset(Some(cfg.seed));
    let mut episode_return = 0.0;
    let decay = (cfg.iterations / 10).max(1);
    for it in 1..=cfg.iterations {
        let eps = if it >= decay {
            cfg.epsilon
        } else {
            1.0 + (cfg.epsilon - 1.0) * it as f64 / decay as f64
        };
        let mut returns = Vec::new();
        for _ in 0..cfg.collect_steps {
            let obs = env.observation().to_vec();
            let feasible: Vec<usize> = (0..a).filter(|&i| env.action_mask()[i]).collect();
            let action = if rng.random::<f64>() < eps {
                feasible[rng.random_range(0..feasible.len())]
            } else {
                weights.forward(&obs, &mut q);
                masked_argmax(&q, env.action_mask()).unwrap_or(0)
            };
            let step = env.step(action)?;
            episode_return += step.reward;
            let t = Transition {
                obs,
                action: action as u32,
                reward: step.reward as f32 / REWARD_SCALE,
                next_obs: env.observation().to_vec(),
                next_mask: env.action_mask().to_vec(),
                done: step.terminated,
            };
            if buffer.len() < cfg.replay_capacity {
                buffer.push(t);
            } else {
                buffer[next_slot] = t;
                next_slot = (next_slot + 1) % cfg.replay_capacity;
            }
            if step.terminated || step.truncated {
                returns.push(episode_return);
                episode_return = 0.0;
                env.reset(None);
            }
        }
        let mut loss_value = 0.0;
        if buffer.len() >= cfg.batch_size {
            let idx: Vec<usize> = (0..cfg.batch_size)
                .map(|_| rng.random_range(0..buffer.len()))
                .collect();
            let loss = td_loss(&online, &target, &buffer, &idx, cfg.gamma, d, a)?;
            opt.backward_step(&loss)?;
            loss_value = f64::from(loss.to_scalar::<f32>()?);
            weights = online.weights()?;
        }
        if it % cfg.target_update == 0 {
            target.copy_from(&online)?;
        }
        let stats = IterationStats {
            iteration: it,
            mean_return: (!returns.is_empty())
                .then(|| returns.iter().sum::<f64>() / returns.len() as f64),
            loss: loss_value,
        };
        on_iteration(&stats, &online);
    }
    Ok(online)
}

/// Mean squared TD error (Eq. 16) of a minibatch, with the target network's value of the
/// best feasible next action.
fn td_loss(
    online: &Mlp,
    target: &Mlp,
    buffer: &[Transition],
    idx: &[usize],
    gamma: f64,
    d: usize,
    a: usize,
) -> Result<Tensor, AgentError> {
    let dev = Device::Cpu;
    let b = idx.len();
    let mut obs = Vec::with_capacity(b * d);
    let mut next = Vec::with_capacity(b * d);
    let mut bias = Vec::with_capacity(b * a);
    let (mut actions, mut rewards, mut alive) = (
        Vec::with_capacity(b),
        Vec::with_capacity(b),
        Vec::with_capacity(b),
    );
    for &i in idx {
        let t = &buffer[i];
        obs.extend_from_slice(&t.obs);
        next.extend_from_slice(&t.next_obs);
        bias.extend(t.next_mask.iter().map(|&ok| if ok { 0.0f32 } else { -1e9 }));
        actions.push(t.action);
        rewards.push(t.reward);
        alive.push(if t.done || !t.next_mask.iter().any(|&m| m) {
            0.0f32
        } else {
            1.0
        });
    }
    let obs = Tensor::from_vec(obs, (b, d), &dev)?;
    let next = Tensor::from_vec(next, (b, d), &dev)?;
    let bias = Tensor::from_vec(bias, (b, a), &dev)?;
    let actions = Tensor::from_vec(actions, (b, 1), &dev)?;
    let rewards = Tensor::from_vec(rewards, b, &dev)?;
    let alive = Tensor::from_vec(alive, b, &dev)?;
    let q = online.forward(&obs)?.gather(&actions, 1)?.squeeze(1)?;
    let next_q = target.forward(&next)?.add(&bias)?.max(D::Minus1)?.detach();
    let y = (rewards + (next_q * alive)?.affine(gamma, 0.0)?)?;
    Ok((q - y)?.sqr()?.mean_all()?)
}

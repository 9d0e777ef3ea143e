//! Deep Q-learning (paper 002 §5.1, Alg. 1, Eq. 15–16).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_env::SparkPlacementEnv;

use crate::mlp::{Mlp, Weights, masked_argmax};
use crate::{IterationStats, TrainConfig, TrainingError};

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
) -> Result<Mlp, TrainingError> {
    let a = env.action_count();
    let (mut online, mut adam) = cfg.network(env);
    let mut target = online.weights();
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x9e37_79b9);
    let mut buffer: Vec<Transition> = Vec::with_capacity(cfg.replay_capacity);
    let mut next_slot = 0;
    let mut weights = online.weights();
    let mut scratch = Scratch::default();
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
            loss_value = td_step(
                &online,
                &weights,
                &target,
                &buffer,
                &idx,
                cfg.gamma,
                &mut scratch,
            );
            adam.step(online.params_mut(), &scratch.grad);
            weights = online.weights();
        }
        if it % cfg.target_update == 0 {
            target = online.weights();
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

/// Buffers of one minibatch update, reused across iterations.
#[derive(Default)]
struct Scratch {
    obs: Vec<f32>,
    hidden: Vec<f32>,
    dz: Vec<f32>,
    grad: Vec<f32>,
    dh: Vec<f32>,
}

/// The gradient of the mean squared TD error (Eq. 16) of a minibatch, with the target
/// network's value of the best feasible next action, left in `s.grad`; returns the loss.
/// `weights` are the online network's.
fn td_step(
    online: &Mlp,
    weights: &Weights,
    target: &Weights,
    buffer: &[Transition],
    idx: &[usize],
    gamma: f64,
    s: &mut Scratch,
) -> f64 {
    let (d, h, a) = online.dims;
    let b = idx.len();
    let (mut q, mut next_q, mut target_hidden) = (vec![0.0; a], vec![0.0; a], vec![0.0; h]);
    s.obs.clear();
    s.hidden.resize(b * h, 0.0);
    s.dz.clear();
    s.dz.resize(b * a, 0.0);
    let mut loss = 0.0;
    for (k, &i) in idx.iter().enumerate() {
        let t = &buffer[i];
        s.obs.extend_from_slice(&t.obs);
        weights.forward_keep(&t.obs, &mut s.hidden[k * h..(k + 1) * h], &mut q);
        let alive = !t.done && t.next_mask.iter().any(|&m| m);
        let best_next = if alive {
            target.forward_keep(&t.next_obs, &mut target_hidden, &mut next_q);
            let best =
                masked_argmax(&next_q, &t.next_mask).expect("an alive state has a feasible action");
            f64::from(next_q[best])
        } else {
            0.0
        };
        let y = f64::from(t.reward) + gamma * best_next;
        let err = f64::from(q[t.action as usize]) - y;
        loss += err * err / b as f64;
        s.dz[k * a + t.action as usize] = (2.0 * err / b as f64) as f32;
    }
    debug_assert_eq!(s.obs.len(), b * d);
    s.grad.clear();
    s.grad.resize(online.params().len(), 0.0);
    online.backward(&s.obs, &s.hidden, &s.dz, &mut s.grad, &mut s.dh);
    loss
}

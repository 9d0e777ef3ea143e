//! REINFORCE (paper 002 §5.2, Alg. 2, Eq. 17–19).

use candle_core::{Device, Tensor};
use candle_nn::Optimizer;
use candle_nn::ops::log_softmax;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_env::SparkPlacementEnv;

use crate::mlp::Mlp;
use crate::{AgentError, IterationStats, TrainConfig};

pub(crate) fn train(
    env: &mut SparkPlacementEnv,
    cfg: &TrainConfig,
    mut on_iteration: impl FnMut(&IterationStats, &Mlp),
) -> Result<Mlp, AgentError> {
    let (d, a) = (env.observation_len(), env.action_count());
    let (net, mut opt) = Mlp::with_adam(d, cfg, a)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5851_f42d);
    let mut logits = vec![0.0; a];
    let mut probs = vec![0.0f64; a];
    let mut episode_seed = cfg.seed;
    for it in 1..=cfg.iterations {
        let mut weights = net.weights()?;
        let (mut obs, mut bias, mut actions, mut episode_of) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut returns = Vec::with_capacity(cfg.collect_episodes);
        for e in 0..cfg.collect_episodes {
            env.reset(Some(episode_seed));
            episode_seed += 1;
            let mut total = 0.0;
            while !env.is_done() {
                let o = env.observation();
                weights.forward(o, &mut logits);
                let mask = env.action_mask();
                let action = sample(&logits, mask, &mut probs, &mut rng);
                obs.extend_from_slice(o);
                bias.extend(mask.iter().map(|&ok| if ok { 0.0f32 } else { -1e9 }));
                actions.push(action as u32);
                episode_of.push(e);
                total += env.step(action)?.reward;
            }
            returns.push(total);
        }
        let n = returns.len() as f64;
        let mean = returns.iter().sum::<f64>() / n;
        let std = (returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n).sqrt();
        let advantage: Vec<f32> = returns
            .iter()
            .map(|r| {
                if cfg.baseline {
                    ((r - mean) / (std + 1e-8)) as f32
                } else {
                    (r / 10_000.0) as f32
                }
            })
            .collect();
        let steps = actions.len();
        let dev = Device::Cpu;
        let weights_t = Tensor::from_vec(
            episode_of
                .iter()
                .map(|&e| advantage[e])
                .collect::<Vec<f32>>(),
            steps,
            &dev,
        )?;
        let obs = Tensor::from_vec(obs, (steps, d), &dev)?;
        let bias = Tensor::from_vec(bias, (steps, a), &dev)?;
        let actions = Tensor::from_vec(actions, (steps, 1), &dev)?;
        let logp = log_softmax(&net.forward(&obs)?.add(&bias)?, 1)?
            .gather(&actions, 1)?
            .squeeze(1)?;
        // Eq. 19: ascend Σ_t ∇log π(a_t|s_t) · R(τ); averaged over the batch's steps.
        let loss = (logp * weights_t)?.mean_all()?.neg()?;
        opt.backward_step(&loss)?;
        let stats = IterationStats {
            iteration: it,
            mean_return: Some(mean),
            loss: f64::from(loss.to_scalar::<f32>()?),
        };
        on_iteration(&stats, &net);
    }
    Ok(net)
}

/// Samples an action from softmax(logits) restricted to the feasible ones.
fn sample(logits: &[f32], mask: &[bool], probs: &mut [f64], rng: &mut ChaCha8Rng) -> usize {
    let max = logits
        .iter()
        .zip(mask)
        .filter(|(_, ok)| **ok)
        .map(|(l, _)| *l)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for ((p, &l), &ok) in probs.iter_mut().zip(logits).zip(mask) {
        *p = if ok { f64::from(l - max).exp() } else { 0.0 };
        sum += *p;
    }
    let mut u = rng.random::<f64>() * sum;
    let mut last = 0;
    for (i, &p) in probs.iter().enumerate() {
        if p > 0.0 {
            last = i;
            if u < p {
                return i;
            }
            u -= p;
        }
    }
    last
}

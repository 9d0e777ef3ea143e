//! REINFORCE (paper 002 §5.2, Alg. 2, Eq. 17–19).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_env::SparkPlacementEnv;

use crate::mlp::Mlp;
use crate::{IterationStats, TrainConfig, TrainingError};

/// What one iteration's collection keeps per step: the input, the hidden activations and
/// the sampling probabilities, so the gradient needs no second forward pass.
#[derive(Default)]
struct Batch {
    obs: Vec<f32>,
    hidden: Vec<f32>,
    probs: Vec<f32>,
    actions: Vec<usize>,
    episode_of: Vec<usize>,
}

impl Batch {
    fn clear(&mut self) {
        self.obs.clear();
        self.hidden.clear();
        self.probs.clear();
        self.actions.clear();
        self.episode_of.clear();
    }
}

pub(crate) fn train(
    env: &mut SparkPlacementEnv,
    cfg: &TrainConfig,
    mut on_iteration: impl FnMut(&IterationStats, &Mlp),
) -> Result<Mlp, TrainingError> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5851_f42d);
    let a = env.action_count();
    let (mut net, mut adam) = cfg.network(env);
    let (mut logits, mut hidden) = (vec![0.0; a], vec![0.0; cfg.hidden]);
    let mut probs = vec![0.0f64; a];
    let mut batch = Batch::default();
    let (mut grad, mut dz, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    let mut episode_seed = cfg.seed;
    for it in 1..=cfg.iterations {
        let weights = net.weights();
        batch.clear();
        let mut returns = Vec::with_capacity(cfg.collect_episodes);
        for e in 0..cfg.collect_episodes {
            env.reset(Some(episode_seed));
            episode_seed += 1;
            let mut total = 0.0;
            while !env.is_done() {
                let o = env.observation();
                weights.forward_keep(o, &mut hidden, &mut logits);
                let mask = env.action_mask();
                let action = sample(&logits, mask, &mut probs, &mut rng);
                batch.obs.extend_from_slice(o);
                batch.hidden.extend_from_slice(&hidden);
                batch.probs.extend(probs.iter().map(|&p| p as f32));
                batch.actions.push(action);
                batch.episode_of.push(e);
                total += env.step(action)?.reward;
            }
            returns.push(total);
        }
        let n = returns.len() as f64;
        let mean = returns.iter().sum::<f64>() / n;
        let std = (returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n).sqrt();
        let advantage: Vec<f64> = returns
            .iter()
            .map(|r| {
                if cfg.baseline {
                    (r - mean) / (std + 1e-8)
                } else {
                    r / 10_000.0
                }
            })
            .collect();
        // Eq. 19: ascend Σ_t ∇log π(a_t|s_t) · R(τ), averaged over the batch's steps. The
        // loss is L = −(1/T) Σ_t A_t log π(a_t|s_t) with π the softmax over the feasible
        // actions, so ∂L/∂z_t = −(A_t/T)(onehot(a_t) − π_t).
        let steps = batch.actions.len();
        dz.clear();
        dz.resize(steps * a, 0.0f32);
        let mut loss = 0.0;
        for (t, row) in dz.chunks_exact_mut(a).enumerate() {
            let adv = advantage[batch.episode_of[t]];
            let p = &batch.probs[t * a..(t + 1) * a];
            let scale = (adv / steps as f64) as f32;
            for (k, (g, &pk)) in row.iter_mut().zip(p).enumerate() {
                let onehot = if k == batch.actions[t] { 1.0 } else { 0.0 };
                *g = -scale * (onehot - pk);
            }
            loss -= adv * f64::from(p[batch.actions[t]].max(1e-30)).ln() / steps as f64;
        }
        grad.clear();
        grad.resize(net.params().len(), 0.0);
        net.backward(&batch.obs, &batch.hidden, &dz, &mut grad, &mut scratch);
        adam.step(net.params_mut(), &grad);
        let stats = IterationStats {
            iteration: it,
            mean_return: Some(mean),
            loss,
        };
        on_iteration(&stats, &net);
    }
    Ok(net)
}

/// Samples an action from softmax(logits) restricted to the feasible ones; leaves the
/// normalised probabilities (0 for infeasible actions) in `probs`.
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
    let mut chosen = None;
    let mut last = 0;
    for (i, &p) in probs.iter().enumerate() {
        if p > 0.0 {
            last = i;
            if chosen.is_none() {
                if u < p {
                    chosen = Some(i);
                } else {
                    u -= p;
                }
            }
        }
    }
    probs.iter_mut().for_each(|p| *p /= sum);
    chosen.unwrap_or(last)
}

//! frugal-agents: deep-RL executor placement (paper 002 §5) — DQN and REINFORCE trained on
//! [`frugal_env`] (a one-hidden-layer network with its gradient and Adam in plain Rust,
//! see [`Mlp`]), checkpoints as safetensors, and trained agents as placement policies.

#![warn(missing_docs)]

mod checkpoint;
pub mod curves;
mod dqn;
mod mlp;
mod policy;
mod reinforce;
pub mod training;

pub use checkpoint::{Checkpoint, CurvePoint};
pub use mlp::{Adam, Mlp, Weights, masked_argmax};
pub use policy::{RlPolicy, load_policy};

use frugal_env::{EpisodeKpis, SparkPlacementEnv};

/// The learning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// Deep Q-learning with a replay buffer, a target network and ε-greedy collection
    /// (paper 002 §5.1, Alg. 1).
    Dqn,
    /// Monte-Carlo policy gradient (paper 002 §5.2, Alg. 2, Eq. 19).
    Reinforce,
    /// Maskable PPO trained outside frugal (sb3-contrib, through the Python package's
    /// `examples/paper002_ppo.py`) with the same network shape; frugal runs its policy but
    /// does not train it.
    Ppo,
}

/// Named as checkpoints name it (`dqn`, `reinforce`, `ppo`: serde); a spec or a flag names
/// only the two frugal trains ([`Choice::ALL`](frugal_core::spec::Choice::ALL)), and
/// [`TrainSpec::check`](training::TrainSpec::check) refuses `ppo` read from a file.
impl frugal_core::spec::Choice for AgentKind {
    const ALL: &'static [AgentKind] = &[AgentKind::Dqn, AgentKind::Reinforce];

    fn name(self) -> &'static str {
        match self {
            AgentKind::Dqn => "dqn",
            AgentKind::Reinforce => "reinforce",
            AgentKind::Ppo => "ppo",
        }
    }

    fn help(self) -> &'static str {
        match self {
            AgentKind::Dqn => "Deep Q-learning (paper 002 §5.1)",
            AgentKind::Reinforce => "REINFORCE policy gradient (paper 002 §5.2)",
            AgentKind::Ppo => "Maskable PPO, trained outside frugal (examples/paper002_ppo.py)",
        }
    }
}

frugal_core::choice! { impl Text for AgentKind }

/// Training hyper-parameters; defaults follow paper 002 Table 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainConfig {
    /// Algorithm.
    pub agent: AgentKind,
    /// Training iterations (paper: 10,000 normal, 20,000 burst).
    pub iterations: usize,
    /// Hidden units of the fully connected layer (200).
    pub hidden: usize,
    /// Adam learning rate (0.001).
    pub learning_rate: f64,
    /// Discount factor γ (0.9).
    pub gamma: f64,
    /// DQN: minibatch size (64).
    pub batch_size: usize,
    /// DQN: replay buffer capacity (10,000).
    pub replay_capacity: usize,
    /// DQN: environment steps collected per iteration (10).
    pub collect_steps: usize,
    /// DQN: final ε of ε-greedy (0.001), reached after a linear decay from 1 over the
    /// first tenth of the iterations.
    pub epsilon: f64,
    /// DQN: iterations between target-network updates.
    pub target_update: usize,
    /// REINFORCE: episodes collected per iteration (10).
    pub collect_episodes: usize,
    /// REINFORCE: subtract the mean episode return of the batch (and divide by its
    /// standard deviation).
    pub baseline: bool,
    /// Seed of the weights, the exploration and the episode draws.
    pub seed: u64,
}

impl TrainConfig {
    /// Table 5 defaults for `agent`.
    pub fn paper002(agent: AgentKind, iterations: usize, seed: u64) -> Self {
        TrainConfig {
            agent,
            iterations,
            hidden: 200,
            learning_rate: 1e-3,
            gamma: 0.9,
            batch_size: 64,
            replay_capacity: 10_000,
            collect_steps: 10,
            epsilon: 0.001,
            target_update: 100,
            collect_episodes: 10,
            baseline: true,
            seed,
        }
    }
}

impl TrainConfig {
    /// A fresh network for `env` (its observation in, one output per action; `hidden`
    /// units, weights from `seed`) and an Adam optimiser for it at `learning_rate`.
    pub(crate) fn network(&self, env: &SparkPlacementEnv) -> (Mlp, Adam) {
        let (d, a) = (env.observation_len(), env.action_count());
        let net = Mlp::new(d, self.hidden, a, self.seed);
        let adam = Adam::new(mlp::parameter_count(net.dims), self.learning_rate);
        (net, adam)
    }
}

/// Progress of training after one iteration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IterationStats {
    /// Iteration, from 1.
    pub iteration: usize,
    /// Mean undiscounted return of the episodes finished in this iteration (None if none).
    pub mean_return: Option<f64>,
    /// Training loss of the update.
    pub loss: f64,
}

/// Errors of training, checkpoints and trained policies.
#[derive(Debug, thiserror::Error)]
pub enum TrainingError {
    /// The environment was misused.
    #[error("environment: {0}")]
    Env(#[from] frugal_env::EnvError),
    /// A checkpoint is missing, unreadable or does not fit the cluster.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    /// frugal does not train this kind of agent (PPO is trained by the Python package).
    #[error("frugal trains DQN and REINFORCE agents, not {0:?}")]
    NotTrainable(AgentKind),
}

/// Trains an agent on `env`; `on_iteration` sees every iteration's statistics (for a
/// progress bar). Returns the trained network.
///
/// # Errors
/// [`TrainingError`] if candle or the environment fails.
pub fn train(
    env: &mut SparkPlacementEnv,
    cfg: &TrainConfig,
    on_iteration: impl FnMut(&IterationStats, &Mlp),
) -> Result<Mlp, TrainingError> {
    match cfg.agent {
        AgentKind::Dqn => dqn::train(env, cfg, on_iteration),
        AgentKind::Reinforce => reinforce::train(env, cfg, on_iteration),
        AgentKind::Ppo => Err(TrainingError::NotTrainable(cfg.agent)),
    }
}

/// Runs one greedy episode (masked argmax of the network's outputs) from `seed`; returns
/// its KPIs and undiscounted return.
///
/// # Errors
/// [`TrainingError`] if candle or the environment fails.
pub fn evaluate(
    env: &mut SparkPlacementEnv,
    net: &Mlp,
    seed: u64,
) -> Result<(EpisodeKpis, f64), TrainingError> {
    let mut w = net.weights();
    let mut out = vec![0.0; env.action_count()];
    env.reset(Some(seed));
    let mut total = 0.0;
    while !env.is_done() {
        w.forward(env.observation(), &mut out);
        let a = masked_argmax(&out, env.action_mask()).unwrap_or(0);
        total += env.step(a)?.reward;
    }
    Ok((env.kpis(), total))
}

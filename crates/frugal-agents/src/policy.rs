//! A trained agent as a placement policy, usable by the simulator and the service.

use std::path::Path;

use frugal_core::cluster::{Cluster, VmId};
use frugal_core::job::Job;
use frugal_core::placement::Placement;
use frugal_core::policy::{PlacementPolicy, PolicySpec};
use frugal_core::queue::QueueDiscipline;
use frugal_env::observation::{ObservationScale, encode, observation_len};

use crate::TrainingError;
use crate::checkpoint::Checkpoint;
use crate::mlp::{Weights, masked_argmax};

/// Places a job by asking the network for one executor at a time (greedy, masked
/// argmax), exactly as the agent acted in the environment: a job the cluster cannot hold
/// whole now waits without asking (the only feasible action there is waiting), and
/// choosing "wait" for the first executor (feasible only while some job runs) leaves the
/// job waiting.
pub struct RlPolicy {
    weights: Weights,
    scale: ObservationScale,
    vms: usize,
    scratch: Option<Cluster>,
    obs: Vec<f32>,
    mask: Vec<bool>,
    out: Vec<f32>,
}

impl RlPolicy {
    /// Loads a checkpoint written by `frugal train`.
    ///
    /// # Errors
    /// [`TrainingError::Checkpoint`] if the files are missing or invalid.
    pub fn load(path: &Path) -> Result<RlPolicy, TrainingError> {
        let (ck, net) = Checkpoint::load(path)?;
        Ok(RlPolicy {
            weights: net.weights(),
            scale: ck.scale,
            vms: ck.vms,
            scratch: None,
            obs: vec![0.0; observation_len(ck.vms)],
            mask: vec![false; ck.vms + 1],
            out: vec![0.0; ck.vms + 1],
        })
    }

    /// Number of VMs the agent was trained for.
    pub fn vms(&self) -> usize {
        self.vms
    }
}

impl PlacementPolicy for RlPolicy {
    fn name(&self) -> &'static str {
        "rl"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        if cluster.len() != self.vms {
            return None;
        }
        let scratch = match &mut self.scratch {
            Some(s) => {
                s.clone_from(cluster);
                s
            }
            None => self.scratch.insert(cluster.clone()),
        };
        let d = &job.executor_demand;
        if cluster.slots(d, |_| true) < u64::from(job.executors) {
            return None;
        }
        // As in the environment: waiting only while some job runs, never mid-job.
        let can_wait = scratch.vms.iter().any(|v| v.executors > 0);
        let mut p = Placement::with_capacity(job.executors as usize);
        for placed in 0..job.executors {
            encode(
                scratch,
                Some((job, job.executors - placed)),
                &self.scale,
                &mut self.obs,
            );
            self.mask[0] = placed == 0 && can_wait;
            for (i, v) in scratch.vms.iter().enumerate() {
                self.mask[i + 1] = v.free.fits(d);
            }
            self.weights.forward(&self.obs, &mut self.out);
            let action = masked_argmax(&self.out, &self.mask)?;
            if action == 0 {
                return None;
            }
            // Through the cluster's own method, so the copy's placement index stays in
            // step (the observation reads free resources and prices, not power states).
            let mut one = Placement::default();
            one.add((action - 1) as VmId, 1);
            scratch
                .reserve(&one, d, now, 0.0, &mut Vec::new())
                .expect("the mask admits only VMs with room");
            p.add((action - 1) as VmId, 1);
        }
        Some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}

/// Loads the checkpoint at `path` as a placement policy for `cluster` (the simulator's
/// `rl:` policies: `frugal_sim::options::choices::AgentLoader`).
///
/// # Errors
/// An unreadable checkpoint, or one trained on a cluster of another shape (the message
/// names both).
pub fn load_policy(path: &Path, cluster: &Cluster) -> anyhow::Result<Box<dyn PlacementPolicy>> {
    let name = PolicySpec::Rl(path.to_path_buf());
    let policy = RlPolicy::load(path).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    if policy.vms() != cluster.len() {
        anyhow::bail!(
            "{name}: the agent was trained on a cluster of {} VMs, this cluster has {} VMs ({}); \
             an agent only places on the cluster shape it was trained on",
            policy.vms(),
            cluster.len(),
            cluster.total_capacity
        );
    }
    Ok(Box::new(policy))
}

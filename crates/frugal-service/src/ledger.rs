//! What the service's placement decisions cost against the exact optimum at the same
//! instant (paper 000 Eq. 16, [`frugal_core::DecisionCost`]), kept for `/metrics`, the API
//! and the dashboard: running sums since the database began, the newest decisions, and the
//! sums' history.

use std::collections::VecDeque;

use serde::Serialize;
use utoipa::ToSchema;

use frugal_core::DecisionCost;
use frugal_core::cluster::VmId;

/// Newest decisions kept.
pub const RECENT: usize = 50;
/// Points of the sums' history kept (the oldest leave first).
pub const HISTORY: usize = 2000;

/// One placement decision.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct DecisionRecord {
    /// When, service seconds.
    pub at: f64,
    /// The job's id.
    pub job: String,
    /// Executors per VM, `[[vm, executors], …]`.
    #[schema(value_type = Vec<Vec<u32>>)]
    pub executors_per_vm: Vec<(VmId, u32)>,
    /// VMs it turned on.
    #[schema(value_type = Vec<u32>)]
    pub powered_on: Vec<VmId>,
    /// Its cost (Eq. 16), dollars.
    pub chosen_usd: f64,
    /// The optimum's, dollars.
    pub optimal_usd: f64,
}

/// The decisions' costs.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    chosen_total: f64,
    optimal_total: f64,
    /// Costs not yet seen by the metrics.
    new: Vec<DecisionCost>,
    recent: VecDeque<DecisionRecord>,
    /// (service seconds, Σ chosen, Σ optimal) after each decision.
    history: VecDeque<(f64, f64, f64)>,
}

impl Ledger {
    /// Records a decision.
    pub fn record(&mut self, r: DecisionRecord) {
        let cost = DecisionCost {
            chosen: r.chosen_usd,
            optimal: r.optimal_usd,
        };
        self.add(r.at, cost);
        self.new.push(cost);
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(r);
    }

    fn add(&mut self, at: f64, cost: DecisionCost) {
        self.chosen_total += cost.chosen;
        self.optimal_total += cost.optimal;
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history
            .push_back((at, self.chosen_total, self.optimal_total));
    }

    /// Restores the costs of stored decisions, `(start, cost)` in any order: they count in
    /// the sums and the history (by start), not as new decisions for the metrics.
    pub fn restore(&mut self, mut stored: Vec<(f64, DecisionCost)>) {
        stored.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (at, cost) in stored {
            self.add(at, cost);
        }
    }

    /// Takes the costs recorded since the last call.
    pub fn take_new(&mut self) -> Vec<DecisionCost> {
        std::mem::take(&mut self.new)
    }

    /// Σ chosen and Σ optimal cost, dollars.
    pub fn totals(&self) -> (f64, f64) {
        (self.chosen_total, self.optimal_total)
    }

    /// The newest decisions, newest last.
    pub fn recent(&self) -> impl Iterator<Item = &DecisionRecord> {
        self.recent.iter()
    }

    /// The sums after each decision, oldest first.
    pub fn history(&self) -> impl Iterator<Item = &(f64, f64, f64)> {
        self.history.iter()
    }
}

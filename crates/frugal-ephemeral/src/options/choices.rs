//! The stop rule of paper 001's metaheuristics as a [`Choice`](frugal_core::spec::Choice);
//! the spec's other closed sets are named on their library types ([`crate::DataCentre`],
//! [`crate::Strategy`], [`crate::ForecasterKind`], [`crate::PrimaryWorkload`],
//! [`crate::planner::Planner`]).

use frugal_core::choice;

choice! {
    /// When the metaheuristics stop.
    pub enum Stop {
        Patience = "patience": "After LS 1,000 steps or GA 50 generations without a better plan, or at the budget (paper 001 spec A14)",
        Budget = "budget": "At the budget only",
    }
}

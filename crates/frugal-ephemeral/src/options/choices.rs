//! The closed sets of paper 001's specs as [`Choice`](frugal_core::spec::Choice)s: data
//! centres, strategies, forecasters, shipped primary workloads, planners and stop rules,
//! each name with its meaning and source.

use frugal_core::choice;

use crate::planner::Planner;
use crate::{DataCentre, ForecasterKind, PrimaryWorkload, Strategy};

choice! {
    /// A data centre of paper 001 (Table II).
    pub enum DcArg => fn dc() -> DataCentre {
        Pc1 = "pc-1": "Private Company 1: 9 hosts, 2,208 GFLOP/s, 1.2 TB" => DataCentre::Pc1,
        Pc2 = "pc-2": "Private Company 2: 27 hosts, 3,552 GFLOP/s, 3.8 TB" => DataCentre::Pc2,
        University = "university": "University: 6 hosts, 1,363 GFLOP/s, 1.5 TB" => DataCentre::University,
    }
}

choice! {
    /// A scheduling strategy.
    pub enum StrategyArg => fn strategy() -> Strategy {
        Cuckoo = "cuckoo": "Cuckoo: weighted round-robin placement with 3 replicas, Hadoop's slot scheduler, kill on any violation (paper 001 §II-C)" => Strategy::Cuckoo,
        CuckooNewQos = "cuckoo-newqos": "Cuckoo with Salamander's QoS controller (RQ3, Fig. 5)" => Strategy::CuckooNewQos,
        CuckooFixedSlots = "cuckoo-fixed-slots": "Cuckoo as the paper describes it: every heartbeat fills all 20 map and 20 reduce slots, no load cap (`cuckoo` caps a tracker as Hadoop 1 does)" => Strategy::CuckooFixedSlots,
        SalamanderRffd = "salamander-rffd": "Salamander with the plan of Alg. 1 (Random First Fit Decreasing)" => Strategy::Salamander(Planner::Rffd),
        SalamanderExact = "salamander-exact": "Salamander with the proven-optimal plan (exact; milliseconds)" => Strategy::Salamander(Planner::Exact),
        SalamanderExactNetwork = "salamander-exact-network": "Salamander with the exact construction that also pays for the shuffle over the hosts' links (per-node caps; milliseconds)" => Strategy::Salamander(Planner::ExactNetwork),
        SalamanderGa = "salamander-ga": "Salamander with NSGA-III's plan (--budget)" => Strategy::Salamander(Planner::Ga),
        SalamanderLs = "salamander-ls": "Salamander with tabu + late-acceptance local search's plan (--budget)" => Strategy::Salamander(Planner::Ls),
    }
}

impl StrategyArg {
    /// Whether the strategy plans (Salamander's).
    pub fn plans(self) -> bool {
        matches!(self.strategy(), Strategy::Salamander(_))
    }

    /// Whether the strategy searches (and so takes --budget and --wall-clock-s).
    pub fn searches(self) -> bool {
        matches!(self, StrategyArg::SalamanderGa | StrategyArg::SalamanderLs)
    }
}

choice! {
    /// A forecaster of the primary workload.
    pub enum ForecasterArg => fn kind() -> ForecasterKind {
        SeasonalQuantile = "seasonal-quantile": "The 0.99 quantile of the same time of day over the past days" => ForecasterKind::SeasonalQuantile,
        QuantileRegression = "quantile-regression": "Linear quantile regression at 0.99 on the day before and the time of day, fitted per host and metric on days 1-4 (the paper's forecaster family)" => ForecasterKind::QuantileRegression,
        Oracle = "oracle": "The actual utilisation (perfect forecasts; an ablation)" => ForecasterKind::Oracle,
    }
}

choice! {
    /// A shipped primary workload.
    pub enum PrimaryWorkloadArg => fn workload() -> PrimaryWorkload {
        Gcd = "gcd": "CPU and memory of 42 Google cluster jobs (data/ephemeral/utilisation.csv.gz)" => PrimaryWorkload::Gcd,
        Planetlab = "planetlab": "The CPU-stress variant: PlanetLab VMs' CPU, the GCD trace's memory (data/ephemeral/utilisation-planetlab.csv.gz)" => PrimaryWorkload::Planetlab,
    }
}

choice! {
    /// A planner of Salamander's holistic scheduler.
    pub enum PlannerArg => fn planner() -> Planner {
        Rffd = "rffd": "Random First Fit Decreasing (Alg. 1)" => Planner::Rffd,
        Exact = "exact": "The proven optimum" => Planner::Exact,
        ExactNetwork = "exact-network": "The exact construction with the shuffle's cost (per-node caps)" => Planner::ExactNetwork,
        Ga = "ga": "NSGA-III" => Planner::Ga,
        Ls = "ls": "Tabu + late-acceptance local search" => Planner::Ls,
        Milp = "milp": "The joint optimum by a MILP (HiGHS: needs a build with --features highs, and --plan-slot-s a multiple of 60)" => Planner::Milp,
        MilpCold = "milp-cold": "The same MILP from scratch: no starting plan, no stop at the construction's bound (as the paper ran its CP solver)" => Planner::MilpCold,
    }
}

choice! {
    /// When the metaheuristics stop.
    pub enum StopArg {
        Patience = "patience": "After LS 1,000 steps or GA 50 generations without a better plan, or at the budget (paper 001 spec A14)",
        Budget = "budget": "At the budget only",
    }
}

//! Online multi-zone policies: each acts on the [`Env`](crate::zones::Env) once per tick
//! under the safety net, learning spot availability only by trying and probing.

pub mod greedy;
pub mod probing;
pub mod single;
pub mod skynomad;
pub mod uniform;

pub use greedy::Greedy;
pub use probing::UniformProbing;
pub use single::SingleZone;
pub use skynomad::SkyNomad;
pub use uniform::UniformFailover;

use crate::policy::SpotPolicySpec;
use crate::zones::env::ZonePolicy;

frugal_core::choice! {
    /// The multi-zone policies by name.
    pub enum ZonePolicyName {
        Optimal = "optimal": "frugal's exact offline optimum over (tick, zone, state)",
        UpS = "up-s": "UP(S): Uniform Progress, failing over to the cheapest other region (SkyPilot's eager failover)",
        UpA = "up-a": "UP(A): Uniform Progress, zones ranked by their last 5 spot samples",
        UpAp = "up-ap": "UP(AP): Uniform Progress, zones ranked by spot availability per dollar",
        SkyNomad = "skynomad": "SkyNomad as the H100 figures ran it: reference-cost V, lifetimes capped at 2 h (the artifact's unified_cost_model_risk)",
        SkyNomadRate = "skynomad-rate": "SkyNomad as Fig. 9b (V100) ran it: rate-ratio V, uncapped lifetimes, virtual availability",
        SkyNomadO = "skynomad-o": "SkyNomad(o): SkyNomad told each zone's true next spot lifetime, reference-cost V (H100 figures)",
        SkyNomadORate = "skynomad-o-rate": "SkyNomad(o) with the rate-ratio V (Fig. 9b)",
        SkyNomadAlpha05 = "skynomad-v-alpha05": "Table 2: skynomad-rate with V = c_od·r^0.5 (r: required over planned rate)",
        SkyNomadQuadratic = "skynomad-v-quadratic": "Table 2: skynomad-rate with the quadratic surrogate V = c_od·t/(T − t)·(P − p)/P",
        SkyNomadHjbExp = "skynomad-v-hjb-exp": "Table 2: skynomad-rate with the HJB exponential V = c_od·exp(r − 1)",
        SkyNomadTimeOnly = "skynomad-v-time-only": "Table 2: skynomad-rate with the time-only V = c_od·t/(T − t)",
        SkyNomadNeelyDpp = "skynomad-v-neely-dpp": "Table 2: skynomad-rate with Neely's drift-plus-penalty V = c_od·(1 + q/(P − p))",
        Greedy = "greedy": "greedy: keep spot; without it, the zone with the cheapest spot this tick; with none, idle until the safety net",
        Up = "up": "UP: paper 005's Uniform Progress in each zone alone, final tick billed (the figures' single-zone bar; a row per zone)",
    }
}

impl ZonePolicyName {
    /// A fresh instance (single-zone UP: for a one-zone setting,
    /// [`Setting::only`](crate::zones::Setting::only)).
    pub fn build(self) -> Box<dyn ZonePolicy + Send> {
        match self {
            ZonePolicyName::Optimal => Box::new(crate::zones::optimum::Exact::default()),
            ZonePolicyName::UpS => Box::new(UniformFailover::default()),
            ZonePolicyName::UpA => Box::new(UniformProbing::availability()),
            ZonePolicyName::UpAp => Box::new(UniformProbing::availability_per_price()),
            ZonePolicyName::SkyNomad => Box::new(SkyNomad::reference_cost()),
            ZonePolicyName::SkyNomadRate => Box::new(SkyNomad::rate_ratio()),
            ZonePolicyName::SkyNomadO => Box::new(SkyNomad::oracle_reference_cost()),
            ZonePolicyName::SkyNomadORate => Box::new(SkyNomad::oracle_rate_ratio()),
            ZonePolicyName::SkyNomadAlpha05
            | ZonePolicyName::SkyNomadQuadratic
            | ZonePolicyName::SkyNomadHjbExp
            | ZonePolicyName::SkyNomadTimeOnly
            | ZonePolicyName::SkyNomadNeelyDpp => {
                use skynomad::value::VShape;
                let shape = match self {
                    ZonePolicyName::SkyNomadAlpha05 => VShape::Alpha05,
                    ZonePolicyName::SkyNomadQuadratic => VShape::Quadratic,
                    ZonePolicyName::SkyNomadHjbExp => VShape::HjbExp,
                    ZonePolicyName::SkyNomadTimeOnly => VShape::TimeOnly,
                    _ => VShape::NeelyDpp,
                };
                Box::new(SkyNomad::shaped(
                    frugal_core::spec::Choice::name(self),
                    shape,
                ))
            }
            ZonePolicyName::Greedy => Box::new(Greedy),
            ZonePolicyName::Up => Box::new(SingleZone::new(
                SpotPolicySpec::UniformProgress.build(&crate::model::Prices::PAPER),
            )),
        }
    }
}

//! The tables of `frugal bag-of-tasks`: one row per (α, policy), and HA against FFD per α.

use frugal_bot::BotRow;
use frugal_bot::compare::Versus;

use crate::table::{Column, fixed, opt};

type R = Column<BotRow>;
type V = Column<Versus>;

fn runs_columns() -> Vec<R> {
    vec![
        R::new(["α", ""], |r| r.alpha.to_string()),
        R::new(["policy", ""], |r| r.policy.to_string()),
        R::new(["rent", "$"], |r| fixed(r.rent_cost_usd, 2)),
        R::new(["gap", "%"], |r| opt(r.gap_pct, 1)),
        R::new(["bound", "$"], |r| fixed(r.lower_bound_usd, 2)).wide_only(),
        R::new(["VMs", ""], |r| r.vms_rented.to_string()),
        R::new(["VM-h", ""], |r| r.vm_hours.to_string()),
        R::new(["PMs", "used"], |r| r.pms_used.to_string()).wide_only(),
        R::new(["local load", "core-h"], |r| fixed(r.local_load_core_h, 1)),
        R::new(["local work", "GHz·h"], |r| fixed(r.local_work_ghz_h, 1)).wide_only(),
        R::new(["makespan", "h"], |r| fixed(r.makespan_s / 3600.0, 1)),
        R::new(["util", ""], |r| {
            format!("{}%", fixed(r.utilisation_pct, 1))
        }),
        R::new(["util", "pooled"], |r| {
            format!("{}%", fixed(r.utilisation_pooled_pct, 1))
        })
        .wide_only(),
        R::new(["PM energy", "kWh"], |r| fixed(r.energy_kwh, 1)),
        R::new(["energy", "$"], |r| fixed(r.energy_cost_usd, 2))
            .sparse(|r| r.energy_cost_usd > 0.0),
        R::new(["total", "$"], |r| fixed(r.total_cost_usd, 2)).sparse(|r| r.energy_cost_usd > 0.0),
        R::new(["CPU", "s"], |r| opt(r.overhead_s, 4)),
        R::new(["RA", "moves"], |r| r.ra_moves.to_string()).wide_only(),
        R::new(["deadlines", "met"], |r| {
            format!("{}%", fixed(r.deadline_met_pct, 1))
        }),
    ]
}

/// The runs of one block.
pub fn runs(rows: &[BotRow], wide: bool, markdown: bool) -> String {
    if markdown {
        crate::table::markdown(runs_columns(), rows, 2)
    } else {
        crate::table::render(runs_columns(), rows, wide, 2)
    }
}

/// A percentage, or "–".
fn percent(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "–".into(), |v| format!("{}%", fixed(v, decimals)))
}

/// A signed percentage, or "–".
fn signed(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) => {
            let s = fixed(v, 1);
            if s.starts_with('-') {
                format!("{s}%")
            } else {
                format!("+{s}%")
            }
        }
    }
}

fn versus_columns() -> Vec<V> {
    vec![
        V::new(["α", ""], |v| v.alpha.to_string()),
        V::new(["HA rent", "saving"], |v| percent(v.ha_rent_saving_pct, 1)),
        V::new(["HA local", "load"], |v| {
            signed(v.ha_local_load_increase_pct)
        }),
        V::new(["HA", "makespan"], |v| signed(v.ha_makespan_increase_pct)),
        V::new(["HA", "util"], |v| signed(v.ha_utilisation_increase_pct)),
        V::new(["HA PM", "energy"], |v| signed(v.ha_energy_increase_pct)),
        V::new(["FFD", "VMs"], |v| signed(v.ffd_extra_vms_pct)),
        V::new(["RA makespan", "FFD / HA"], |v| {
            format!(
                "{} / {}",
                signed(v.ra_makespan_cut_ffd_pct.map(|x| -x)),
                signed(v.ra_makespan_cut_ha_pct.map(|x| -x))
            )
        }),
        V::new(["RA energy", "FFD / HA"], |v| {
            format!(
                "{} / {}",
                signed(v.ra_energy_cut_ffd_pct.map(|x| -x)),
                signed(v.ra_energy_cut_ha_pct.map(|x| -x))
            )
        }),
        V::new(["RA rent", "(max cut)"], |v| {
            percent(v.ra_rent_cut_max_pct, 2)
        }),
    ]
}

/// HA against FFD per α.
pub fn versus(rows: &[Versus], markdown: bool) -> String {
    if markdown {
        crate::table::markdown(versus_columns(), rows, 1)
    } else {
        crate::table::render(versus_columns(), rows, true, 1)
    }
}

//! The tables of `frugal ephemeral`: statistics per cell, and improvements over Cuckoo
//! beside the paper's.

use frugal_core::spec::Choice;
use frugal_ephemeral::ForecasterKind;
use frugal_ephemeral::summary::{Cell, Improvement};

use crate::table::{Column, fixed, opt};

type C = Column<Cell>;
type I = Column<Improvement>;

fn cell_columns() -> Vec<C> {
    vec![
        C::new(["DC", ""], |c| c.dc.to_string()),
        C::new(["chunk", "MiB"], |c| c.chunk_mib.to_string()),
        C::new(["S", "%"], |c| c.safety_margin_pct.to_string()),
        C::new(["strategy", ""], |c| c.strategy.to_string()),
        C::new(["volatility", "×"], |c| c.volatility.to_string()).sparse(|c| c.volatility != 1.0),
        C::new(["forecaster", ""], |c| c.forecaster.name().to_string())
            .sparse(|c| c.forecaster != ForecasterKind::SeasonalQuantile),
        C::new(["runs", ""], |c| c.runs.to_string()),
        C::new(["rejected", ""], |c| c.rejected.to_string()).sparse(|c| c.rejected > 0),
        C::new(["job time", "s"], |c| fixed(c.job_time_s, 0)),
        C::new(["min–max", "s"], |c| {
            format!(
                "{}–{}",
                fixed(c.job_time_min_s, 0),
                fixed(c.job_time_max_s, 0)
            )
        })
        .wide_only(),
        C::new(["vs Cuckoo", "%"], |c| opt(c.vs_cuckoo_pct, 1)),
        C::new(["plan", "s"], |c| opt(c.plan_makespan_s, 0))
            .sparse(|c| c.plan_makespan_s.is_some()),
        C::new(["plan+shuffle", "s"], |c| opt(c.plan_job_time_s, 0))
            .sparse(|c| c.plan_job_time_s.is_some())
            .wide_only(),
        C::new(["relaunched", "%"], |c| fixed(c.relaunched_pct, 1)),
        C::new(["relaunched", "p98 %"], |c| fixed(c.relaunched_p98_pct, 1)).wide_only(),
        C::new(["remote", "%"], |c| fixed(c.remote_pct, 1)),
    ]
}

/// Statistics per cell: within 120 columns, or every column when `wide`.
pub fn cells(cells: &[Cell], markdown: bool, wide: bool) -> String {
    if markdown {
        crate::table::markdown(cell_columns(), cells, 4)
    } else {
        crate::table::render(cell_columns(), cells, wide, 4)
    }
}

fn improvement_columns() -> Vec<I> {
    vec![
        I::new(["DC", ""], |i| i.dc.to_string()),
        I::new(["chunk", "MiB"], |i| i.chunk_mib.to_string()),
        I::new(["strategy", ""], |i| i.strategy.to_string()),
        I::new(["forecaster", ""], |i| i.forecaster.name().to_string())
            .sparse(|i| i.forecaster != ForecasterKind::SeasonalQuantile),
        I::new(["Cuckoo", "s"], |i| fixed(i.cuckoo_s, 0)),
        I::new(["strategy", "s"], |i| fixed(i.strategy_s, 0)),
        I::new(["faster", "%"], |i| fixed(i.improvement_pct, 1)),
        I::new(["paper", "%"], |i| opt(i.paper_pct, 1)),
    ]
}

/// Improvements over Cuckoo.
pub fn improvements(rows: &[Improvement], markdown: bool) -> String {
    if markdown {
        crate::table::markdown(improvement_columns(), rows, 3)
    } else {
        crate::table::render(improvement_columns(), rows, false, 3)
    }
}

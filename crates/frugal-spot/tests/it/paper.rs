//! The paper's Table 3 on its own 2-week traces (`../shared/data/spot-traces`, not shipped:
//! `--ignored`, run by CI where the folder is beside the project; skipped without it).

use frugal_spot::experiment::{SpotSpec, run};
use frugal_spot::policy::SpotPolicySpec;
use frugal_spot::summary::{Statistic, gap_closure, summarise};

/// The traces: `$FRUGAL_SHARED_DATA/spot-traces` (which must then exist: CI sets it), else
/// `../shared/data/spot-traces` beside the repository, else none (the test is skipped, or fails under
/// `FRUGAL_REQUIRE_REAL_PARTS`).
fn shared() -> Option<std::path::PathBuf> {
    if let Ok(data) = std::env::var("FRUGAL_SHARED_DATA") {
        let dir = std::path::Path::new(&data).join("spot-traces");
        assert!(
            dir.is_dir(),
            "FRUGAL_SHARED_DATA is set but {} is missing",
            dir.display()
        );
        return Some(dir);
    }
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/spot-traces");
    dir.is_dir().then_some(dir)
}

#[test]
#[ignore = "reads the paper's traces from ../shared"]
fn table_3_on_the_two_week_traces() {
    let Some(root) = shared() else {
        frugal_core::testing::skip("../shared/data/spot-traces (the paper's traces, not shipped)");
        return;
    };
    let spec = SpotSpec {
        traces: root
            .join("availability/1-node/aws-10-26-2022")
            .display()
            .to_string(),
        ticks: Some(1781),
        policies: vec![
            SpotPolicySpec::OnDemand,
            SpotPolicySpec::Greedy,
            SpotPolicySpec::UniformProgress,
            SpotPolicySpec::Omniscient,
        ],
        job_fraction: Some(0.8),
        ..SpotSpec::default()
    };
    let rows = run(&spec, &()).unwrap();
    assert_eq!(rows.len(), 8 * 300 * 4);
    let s = summarise(&rows);
    // Table 3: OD / spot hours (of progress) at f = 0.8.
    let published = [
        ("on-demand", 48.0, 0.0),
        ("greedy", 30.8, 17.2),
        ("uniform-progress", 25.1, 22.9),
        ("omniscient", 20.7, 27.4),
    ];
    for (policy, od, spot) in published {
        let p = s.iter().find(|p| p.policy == policy).unwrap();
        eprintln!(
            "{policy}: OD {:.1} ± {:.1} h (paper {od}), spot {:.1} ± {:.1} h (paper {spot}), \
             savings {:.1} %, deadlines {:.1} %",
            p.on_demand_work_h.0,
            p.on_demand_work_h.1,
            p.spot_work_h.0,
            p.spot_work_h.1,
            p.savings_pct,
            p.deadline_met_pct
        );
        assert!(
            (p.on_demand_work_h.0 - od).abs() <= 0.1 * od,
            "{policy} OD hours"
        );
        assert_eq!(p.deadline_met_pct, 100.0, "{policy} deadlines");
    }
    let closure = gap_closure(&rows, "greedy", "uniform-progress", Statistic::Mean, 1).unwrap();
    eprintln!("gap closure (mean): {closure:?}");
    assert!(closure.value > 1.0);
}

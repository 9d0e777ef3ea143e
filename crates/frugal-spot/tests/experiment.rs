//! Whole runs of a spec: determinism, a user's own policy, and bad input named.

use frugal_spot::experiment::{SpotSpec, run, run_with};
use frugal_spot::model::Mode;
use frugal_spot::policy::{Observation, PolicySpec, SpotPolicy};

fn small() -> SpotSpec {
    SpotSpec {
        policies: PolicySpec::ALL.to_vec(),
        windows: 3,
        ticks: Some(1781),
        ..SpotSpec::default()
    }
}

#[test]
fn rows_are_the_same_on_one_thread_or_many_and_the_optimum_is_cheapest() {
    let spec = small();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let rows = one.install(|| run(&spec, &())).unwrap();
    let many = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    assert_eq!(rows, many.install(|| run(&spec, &())).unwrap());
    assert_eq!(rows.len(), 8 * 3 * PolicySpec::ALL.len());
    assert!(
        rows.iter()
            .all(|r| r.traces == "synthetic" && r.deadline_met)
    );
    for r in &rows {
        let gap = r.gap_pct.unwrap();
        assert!(gap >= -1e-9, "{} below the optimum: {gap}", r.policy);
        if r.policy == "on-demand" {
            assert_eq!(r.savings_pct, 0.0);
        }
    }
}

/// A user's policy: spot when there is some, else on-demand.
struct SpotElseOnDemand;

impl SpotPolicy for SpotElseOnDemand {
    fn name(&self) -> String {
        "spot-else-on-demand".into()
    }
    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        if o.spot_available {
            Mode::Spot
        } else {
            Mode::OnDemand
        }
    }
}

#[test]
fn a_users_policy_runs_beside_the_built_in_ones() {
    let spec = SpotSpec {
        policies: vec![PolicySpec::Greedy, PolicySpec::Omniscient],
        ..small()
    };
    let mut mine: Vec<Box<dyn SpotPolicy>> = vec![Box::new(SpotElseOnDemand)];
    let rows = run_with(&spec, &mut mine, &()).unwrap();
    assert_eq!(rows.len(), 8 * 3 * 3);
    assert_eq!(rows[2].policy, "spot-else-on-demand");
    assert_eq!(rows[2].window, rows[0].window);
    assert!(rows[2].gap_pct.unwrap() >= 0.0);
    // Only the user's policies: allowed; none at all: refused.
    let spec = SpotSpec {
        policies: vec![],
        ..small()
    };
    assert_eq!(run_with(&spec, &mut mine, &()).unwrap().len(), 8 * 3);
    assert!(
        run(&spec, &())
            .unwrap_err()
            .to_string()
            .contains("policies")
    );
}

#[test]
fn bad_input_names_the_file_or_field() {
    let err = |spec: SpotSpec| run(&spec, &()).unwrap_err().to_string();
    let dir = std::env::temp_dir().join(format!("frugal-spot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("zone-a.json");
    std::fs::write(
        &file,
        r#"{"metadata": {"gap_seconds": 600}, "data": [1, 0, "x"]}"#,
    )
    .unwrap();
    let traces = dir.display().to_string();
    let e = err(SpotSpec {
        traces: traces.clone(),
        ..small()
    });
    assert!(e.contains("zone-a.json") && e.contains("data[2]"), "{e}");
    std::fs::write(&file, r#"{"metadata": {"gap_seconds": 0}, "data": [1]}"#).unwrap();
    let e = err(SpotSpec { traces, ..small() });
    assert!(
        e.contains("zone-a.json") && e.contains("gap_seconds"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let e = err(SpotSpec {
        deadline_h: Some(48.1),
        ..small()
    });
    assert!(e.contains("deadline_h") && e.contains("changeover"), "{e}");
    let e = err(SpotSpec {
        spot_price_per_h: -1.0,
        ..small()
    });
    assert!(e.contains("spot_price_per_h"), "{e}");
    let e = err(SpotSpec {
        traces: "no-such-folder".into(),
        ..small()
    });
    assert!(e.contains("traces") && e.contains("no-such-folder"), "{e}");
    let e = err(SpotSpec {
        zones: vec!["mars-1a".into()],
        ..small()
    });
    assert!(e.contains("zones") && e.contains("mars-1a"), "{e}");
    // A spec read from TOML names an unknown field.
    let e = toml::from_str::<SpotSpec>("polices = ['greedy']").unwrap_err();
    assert!(e.to_string().contains("polices"), "{e}");
}

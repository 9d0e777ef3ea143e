//! Whole runs of a spec: determinism, a user's own policy, and bad input named.

use frugal_spot::experiment::{SpotSpec, run, run_with};
use frugal_spot::model::Mode;
use frugal_spot::policy::{Observation, SpotPolicy, SpotPolicySpec};

fn small() -> SpotSpec {
    SpotSpec {
        policies: SpotPolicySpec::ALL.to_vec(),
        windows: Some(3),
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
    assert_eq!(rows.len(), 8 * 3 * SpotPolicySpec::ALL.len());
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
        policies: vec![SpotPolicySpec::Greedy, SpotPolicySpec::Omniscient],
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

/// A scratch folder of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("frugal-spot-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn an_optimum_too_large_to_compute_is_refused_naming_the_changeover_never_replaced() {
    // d = 0.1234 h = 444.24 s shares a unit of 0.24 s with 600-s ticks: 720,000 units of
    // work over 360 ticks, far past the DP's limit. The run is refused naming the setting
    // (it used to play on-demand in the optimum's row, below every other policy's bill).
    let spec = SpotSpec {
        changeover_h: 0.1234,
        policies: vec![SpotPolicySpec::Greedy, SpotPolicySpec::Omniscient],
        windows: Some(1),
        ..SpotSpec::default()
    };
    let e = run(&spec, &()).unwrap_err().to_string();
    assert!(
        e.contains("omniscient") && e.contains("changeover_h 0.1234 h") && e.contains("0.24 s"),
        "{e}"
    );
    // Without the exact policies the same setting runs.
    let rows = run(
        &SpotSpec {
            policies: vec![SpotPolicySpec::Greedy],
            ..spec
        },
        &(),
    )
    .unwrap();
    assert_eq!(rows.len(), 8);
}

#[test]
fn absurd_trace_values_are_refused_not_panicked_on() {
    let dir = scratch("absurd");
    let file = dir.join("z.json");
    std::fs::write(
        &file,
        r#"{"metadata": {"gap_seconds": 1e300}, "data": [1, 1, 1, 1]}"#,
    )
    .unwrap();
    for policies in [
        vec![SpotPolicySpec::Omniscient],
        vec![SpotPolicySpec::Greedy],
    ] {
        let e = run(
            &SpotSpec {
                traces: file.display().to_string(),
                policies,
                windows: Some(1),
                min_trace_left_h: Some(0.0),
                ..SpotSpec::default()
            },
            &(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("gap_seconds") && e.contains("fewer than"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_instance_has_spot_whenever_any_of_a_gangs_instances_could_be_had() {
    // A 4-node trace whose spot is never fully there but always partly: a 1-instance job
    // runs on spot all along; a gang of 4 never does.
    let dir = scratch("partial");
    let file = dir.join("z.json");
    let data = vec!["2"; 200].join(", ");
    std::fs::write(
        &file,
        format!(r#"{{"metadata": {{"gap_seconds": 600}}, "data": [{data}]}}"#),
    )
    .unwrap();
    let spec = |instances| SpotSpec {
        traces: file.display().to_string(),
        policies: vec![SpotPolicySpec::Greedy],
        instances,
        work_h: 8.0,
        windows: Some(1),
        min_trace_left_h: Some(10.0),
        ..SpotSpec::default()
    };
    let one = run(&spec(1), &()).unwrap();
    assert_eq!((one[0].window_spot_pct, one[0].spot_work_h), (100.0, 8.0));
    let four = run(&spec(4), &()).unwrap();
    assert_eq!((four[0].window_spot_pct, four[0].spot_work_h), (0.0, 0.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_named_trace_set_that_is_absent_is_refused_unless_a_fallback_is_asked_for() {
    // An empty folder stands in for a machine without the paper's traces.
    let empty = scratch("no-traces");
    let missing = empty.join("spot-traces");
    // SAFETY: this test binary's other tests do not read FRUGAL_SPOT_TRACES.
    unsafe { std::env::set_var("FRUGAL_SPOT_TRACES", &missing) };
    let spec = SpotSpec {
        traces: "2-week".into(),
        policies: vec![SpotPolicySpec::Greedy],
        windows: Some(1),
        ..SpotSpec::default()
    };
    let e = run(&spec, &()).unwrap_err().to_string();
    assert!(
        e.contains("traces") && e.contains("2-week") && e.contains("synthetic_fallback"),
        "{e}"
    );
    let rows = run(
        &SpotSpec {
            synthetic_fallback: true,
            ..spec
        },
        &(),
    )
    .unwrap();
    assert!(rows.iter().all(|r| r.traces == "synthetic"));
    unsafe { std::env::remove_var("FRUGAL_SPOT_TRACES") };
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn min_trace_left_must_be_hours() {
    for h in [f64::NAN, -1.0, f64::INFINITY] {
        let e = run(
            &SpotSpec {
                min_trace_left_h: Some(h),
                ..small()
            },
            &(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("min_trace_left_h"), "{e}");
    }
}

#[test]
fn a_fixed_start_and_the_per_tick_history() {
    use frugal_spot::experiment::history;
    // Ticks of 600 s: available for the first 10 ticks, then not, then again.
    let dir = scratch("start");
    let file = dir.join("z.json");
    let data: Vec<&str> = (0..400)
        .map(|t| if (10..20).contains(&t) { "0" } else { "1" })
        .collect();
    std::fs::write(
        &file,
        format!(
            r#"{{"metadata": {{"gap_seconds": 600}}, "data": [{}]}}"#,
            data.join(", ")
        ),
    )
    .unwrap();
    let spec = SpotSpec {
        traces: file.display().to_string(),
        policies: vec![SpotPolicySpec::Greedy],
        work_h: 2.0,
        changeover_h: 0.0,
        start_h: Some(1.0),
        min_trace_left_h: Some(10.0),
        ..SpotSpec::default()
    };
    // One window, at tick 6 (1 h of 600-s ticks): spot for 4 ticks, lost at tick 4.
    let rows = run(&spec, &()).unwrap();
    assert_eq!((rows.len(), rows[0].window), (1, 6));
    let h = history(&spec).unwrap();
    assert_eq!(h[0].tick, 0);
    assert_eq!(h[3].mode, "spot");
    assert!(h[4].preempted && !h[4].spot_available);
    let last = h.last().unwrap();
    assert!((last.work_done_h - 2.0).abs() < 1e-9);
    assert!((last.cost_usd - rows[0].cost_usd).abs() < 1e-6, "{last:?}");
    // One window only: another count is refused, and so is a start past the trace.
    let e = run(
        &SpotSpec {
            windows: Some(5),
            ..spec.clone()
        },
        &(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("windows") && e.contains("start_h"), "{e}");
    let e = run(
        &SpotSpec {
            start_h: Some(60.0),
            ..spec
        },
        &(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("start_h: 60 h"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! The trace readers fuzzed: any text, and trace-shaped JSON with absurd values (huge,
//! negative, fractional, non-numeric, mismatched lengths), is parsed or refused with an
//! error, never a panic; and every trace that parses runs — each policy, the exact optimum
//! included — to a result or an error, never a panic or a wrong optimum.

use proptest::prelude::*;
use serde_json::{Value, json};

use frugal_spot::SpotSpec;
use frugal_spot::experiment::run as run_spot;
use frugal_spot::model::Job;
use frugal_spot::policy::SpotPolicySpec;
use frugal_spot::trace::Trace;
use frugal_spot::zones::env::run as run_zones;
use frugal_spot::zones::policy::ZonePolicyName;
use frugal_spot::zones::{FinalTick, Setting, ZoneTrace};

/// A JSON number or not-quite-number of the kinds a hand-edited trace holds.
fn odd_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..3).prop_map(Value::from),
        1 => Just(json!(600)),
        1 => Just(json!(0)),
        1 => Just(json!(-1)),
        1 => Just(json!(0.5)),
        1 => Just(json!(1e-300)),
        1 => Just(json!(1e300)),
        1 => Just(json!(u64::MAX)),
        1 => Just(json!("600")),
        1 => Just(Value::Null),
    ]
}

/// A list of valid entries (`valid`), one of them perhaps replaced by an odd one.
fn mostly(valid: impl Strategy<Value = Value>) -> impl Strategy<Value = Vec<Value>> {
    (
        prop::collection::vec(valid, 0..40),
        prop::option::of((any::<prop::sample::Index>(), odd_number())),
    )
        .prop_map(|(mut v, odd)| {
            if let Some((i, x)) = odd
                && !v.is_empty()
            {
                let k = i.index(v.len());
                v[k] = x;
            }
            v
        })
}

/// A trace file's JSON: `metadata.gap_seconds`, `price_info`, `data` and maybe `prices`,
/// each field possibly absurd (huge, zero, tiny) or one entry of a list broken.
fn trace_json() -> impl Strategy<Value = Value> {
    let price = prop_oneof![
        8 => (0.01f64..10.0).prop_map(Value::from),
        1 => Just(json!(0.0)),
        1 => Just(json!(1e300)),
    ];
    (
        prop_oneof![4 => Just(json!(600)), 1 => odd_number()],
        prop_oneof![4 => (0.1f64..5.0).prop_map(Value::from), 1 => odd_number()],
        prop_oneof![4 => Just(json!(3.06)), 1 => odd_number()],
        mostly((0u64..2).prop_map(Value::from)),
        prop::option::of(mostly(price)),
    )
        .prop_map(|(gap, spot, od, data, prices)| trace_value(gap, spot, od, data, prices))
}

/// A trace file's JSON from its fields.
fn trace_value(
    gap: Value,
    spot: Value,
    od: Value,
    data: Vec<Value>,
    prices: Option<Vec<Value>>,
) -> Value {
    let mut v = json!({
        "metadata": {
            "gap_seconds": gap,
            "price_info": {"price": spot, "on_demand_price": od},
        },
        "data": data,
    });
    if let Some(p) = prices {
        v["prices"] = Value::from(p);
    }
    v
}

/// The fuzzed shape is the readers' format: sound values parse, and run, in both readers
/// (so the properties below are not vacuous).
#[test]
fn the_fuzzed_shape_parses_with_sound_values() {
    let v = trace_value(
        json!(600),
        json!(1.0),
        json!(3.06),
        vec![json!(0); 20],
        Some(vec![json!(0.9); 20]),
    );
    let t = Trace::parse("z", &v.to_string()).unwrap();
    assert_eq!(
        (t.values.len(), t.prices.as_ref().map(Vec::len)),
        (20, Some(20))
    );
    let z = ZoneTrace::parse("us-east-1c", &v.to_string()).unwrap();
    assert!(
        z.zone.available.iter().all(|&a| a),
        "0 is available in the preempted convention"
    );
}

fn scratch() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("frugal-spot-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_text_is_parsed_or_refused(text in ".{0,200}") {
        let _ = Trace::parse("z", &text);
        let _ = ZoneTrace::parse("z", &text);
    }

    /// A single-zone trace that parses runs under every built-in policy to a row or an
    /// error (the runner refuses an optimum above a policy).
    #[test]
    fn a_parsed_single_zone_trace_runs_or_is_refused(v in trace_json(), work_h in 0.1f64..3.0) {
        let text = v.to_string();
        if Trace::parse("z", &text).is_ok() {
            let file = scratch().join("z.json");
            std::fs::write(&file, &text).unwrap();
            let _ = run_spot(
                &SpotSpec {
                    traces: file.display().to_string(),
                    policies: SpotPolicySpec::ALL.to_vec(),
                    work_h,
                    windows: Some(1),
                    min_trace_left_h: Some(0.0),
                    ..SpotSpec::default()
                },
                &(),
            );
        }
    }

    /// A multi-zone trace that parses, as a one-zone setting, runs under every multi-zone
    /// policy to an outcome or an error, and the exact optimum is never above one that
    /// finishes.
    #[test]
    fn a_parsed_zone_trace_runs_or_is_refused(v in trace_json(), share in 0.1f64..0.9) {
        let Ok(t) = ZoneTrace::parse("us-east-1c", &v.to_string()) else {
            return Ok(());
        };
        let ticks = t.zone.available.len() as f64;
        let setting = Setting {
            zones: vec![t.window(0)],
            gap_s: t.gap_s,
            job: Job {
                work_s: share * ticks * t.gap_s,
                deadline_s: ticks * t.gap_s,
                changeover_s: 720.0,
                instances: 1,
            },
            checkpoint_gb: 50.0,
            final_tick: FinalTick::Bill,
            artifact_probe_billing: false,
        };
        if setting.check().is_err() {
            return Ok(());
        }
        let mut best = None;
        let mut costs = Vec::new();
        for &p in <ZonePolicyName as frugal_core::spec::Choice>::ALL {
            if let Ok(o) = run_zones(p.build().as_mut(), &setting) {
                if p == ZonePolicyName::Optimal {
                    best = Some(o.cost_usd);
                } else {
                    costs.push((p, o.cost_usd));
                }
            }
        }
        if let Some(best) = best {
            for (p, c) in costs {
                prop_assert!(c >= best - 1e-6 * best.abs().max(1.0), "{p}: {c} below {best}");
            }
        }
    }
}

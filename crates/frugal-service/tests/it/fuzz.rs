//! Request bodies fuzzed through the whole API in process (router, validation, store,
//! scheduler): every answer is a documented client error or success, never a panic or
//! a server error. `PROPTEST_CASES` sets the number of bodies (the closing figures used
//! 1,000,000 in a release build).

use crate::common;

use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use serde_json::{Value, json};

use common::{call_raw, config, service_with, tmp_db};
use frugal_core::PolicyKind;
use frugal_service::Service;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Runtime::new().unwrap())
}

fn svc() -> &'static Arc<Service> {
    static SVC: OnceLock<Arc<Service>> = OnceLock::new();
    SVC.get_or_init(|| {
        let mut cfg = config(&tmp_db("fuzz"), 1e6);
        cfg.agent_token = Some(AGENT_TOKEN.into());
        runtime().block_on(service_with(cfg, PolicyKind::FirstFit))
    })
}

const AGENT_TOKEN: &str = "fuzz-agent-token";

const HEARTBEAT_FIELDS: [&str; 6] = ["host", "vms", "cores", "memory_gib", "running", "failed"];

fn heartbeat() -> impl Strategy<Value = String> {
    let valid = json!({"host": "vm1", "vms": [{"id": 1, "address": "10.0.0.3"}],
                       "cores": 2, "memory_gib": 2.0, "running": ["j-1-0"], "failed": []});
    let mutated = (
        prop::sample::select(HEARTBEAT_FIELDS.to_vec()),
        json_value(),
    )
        .prop_map(move |(f, x)| {
            let mut v = valid.clone();
            v[f] = x;
            v.to_string()
        });
    prop_oneof![
        4 => mutated,
        1 => prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

const FIELDS: [&str; 13] = [
    "id",
    "kind",
    "executors",
    "executor_cores",
    "executor_memory_gib",
    "estimated_duration_s",
    "hybrid_duration_s",
    "deadline_s",
    "application_path",
    "main_class",
    "arguments",
    "input_path",
    "output_path",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|x| json!(x)),
        prop_oneof![
            Just(1e22),
            Just(-0.0),
            Just(f64::MAX),
            Just(5e-324),
            Just(3.15576e8)
        ]
        .prop_map(|x| json!(x)),
        ".{0,40}".prop_map(Value::from),
        prop_oneof![
            Just("wordcount.py"),
            Just("../spark/wordcount.py"),
            Just("/etc/passwd"),
            Just("cpu_bound")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(Value::Array)
    })
}

fn body() -> impl Strategy<Value = (String, String)> {
    let valid = (0u64..50_000).prop_map(|i| {
        json!({"id": format!("z{i}"), "executors": 1, "executor_cores": 1,
               "executor_memory_gib": 1, "estimated_duration_s": 1,
               "application_path": "wordcount.py"})
    });
    let mutated = (
        valid.clone(),
        prop::sample::select(FIELDS.to_vec()),
        json_value(),
    )
        .prop_map(|(mut v, f, x)| {
            v[f] = x;
            v.to_string()
        });
    let content_type = prop_oneof![
        8 => Just("application/json".to_string()),
        1 => Just("application/json; charset=utf-8".to_string()),
        1 => "[ -~]{0,20}",
    ];
    let text = prop_oneof![
        4 => mutated,
        2 => valid.prop_map(|v| v.to_string()),
        1 => prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        1 => (valid_text(), ".{0,10}").prop_map(|(v, tail)| format!("{v}{tail}")),
    ];
    (content_type, text)
}

fn valid_text() -> impl Strategy<Value = String> {
    (0u64..50_000).prop_map(|i| {
        format!(
            r#"{{"id":"t{i}","executors":1,"executor_cores":1,"executor_memory_gib":1,"estimated_duration_s":1,"application_path":"wordcount.py"}}"#
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn any_submission_gets_a_documented_answer((content_type, text) in body()) {
        let (status, _, answer) = runtime().block_on(call_raw(
            svc(), "POST", "/jobs", Some(&content_type), Some(common::TOKEN), &text,
        ));
        let s = status.as_u16();
        prop_assert!(
            [200, 202, 400, 409, 413, 415, 422].contains(&s),
            "{s} for {text:?} ({content_type}): {answer}"
        );
    }

    /// The agents' route: 400 for what does not parse, 409 for a heartbeat this
    /// (emulated) backend cannot take; never a server error.
    #[test]
    fn any_heartbeat_gets_a_documented_answer(text in heartbeat()) {
        let (status, _, answer) = runtime().block_on(call_raw(
            svc(), "POST", "/agent/v1/heartbeat", Some("application/json"), Some(AGENT_TOKEN), &text,
        ));
        let s = status.as_u16();
        prop_assert!([400, 409].contains(&s), "{s} for {text:?}: {answer}");
    }
}

//! A Spark application's executor pods as one gang, and the job frugal places for it.
//!
//! **The gang.** Spark's Kubernetes backend labels every executor pod of an application
//! with `spark-app-selector=<application id>` and `spark-role=executor`; the pods that
//! name frugal as their scheduler and share that label are one gang, placed all at once or
//! not at all. frugal waits until the gang is whole: it knows the size from the
//! [`EXECUTORS`] annotation (Spark's `spark.executor.instances`), because the driver
//! creates its pods in batches (`spark.kubernetes.allocation.batch.size`, 10 a second by
//! default) and a gang placed on its first batch would not be all or nothing.
//!
//! **What the pods carry** (annotations, set through Spark's
//! `spark.kubernetes.executor.annotation.<key>=<value>`; every pod of a gang carries the
//! same values, or the gang is refused naming the key that differs):
//!
//! | annotation | meaning | required |
//! |---|---|---|
//! | `frugal.dev/executors` | E, the gang's size: executor pods to wait for (1–100,000) | yes |
//! | `frugal.dev/estimated-duration-s` | T_C^L, run time with every executor local, seconds (0, 10 years] | yes |
//! | `frugal.dev/hybrid-duration-s` | T_C^H, run time across sites, seconds [T_C^L, 10 years] | no: T_C^L · 1.3 (paper 000 §6.1) |
//! | `frugal.dev/deadline-s` | relative deadline from the gang's first pod's creation, seconds (0, 10 years] | no |
//! | `frugal.dev/kind` | `cpu_bound`, `memory_bound` or `network_bound` (paper 002 §6) | no: `cpu_bound` |
//!
//! **One executor's demand** is its first container's resource requests (its limits where
//! a request is absent), which Spark sets from `spark.executor.cores` and
//! `spark.executor.memory` plus overhead: CPU rounded up to whole cores (a `500m` request
//! reserves one core, as frugal's VMs count whole cores), memory rounded up to whole MiB.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use kube_quantity::ParsedQuantity;

use frugal_core::job::{HYBRID_PENALTY, Job, JobKind, MAX_EXECUTORS, MAX_SECONDS};
use frugal_core::resources::Resources;

/// The label whose value names a pod's Spark application (set by Spark's backend).
pub const APP_LABEL: &str = "spark-app-selector";
/// The label saying a pod's role in its application (`driver` or `executor`).
pub const ROLE_LABEL: &str = "spark-role";
/// The gang's size E.
pub const EXECUTORS: &str = "frugal.dev/executors";
/// T_C^L, seconds.
pub const ESTIMATED_DURATION: &str = "frugal.dev/estimated-duration-s";
/// T_C^H, seconds.
pub const HYBRID_DURATION: &str = "frugal.dev/hybrid-duration-s";
/// Relative deadline, seconds.
pub const DEADLINE: &str = "frugal.dev/deadline-s";
/// Application kind.
pub const KIND: &str = "frugal.dev/kind";

/// Why a gang's pods do not say what frugal needs; the message names the annotation or
/// field, and goes to the pods' `PodScheduled` condition.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A required annotation is absent.
    #[error("pod {pod} has no annotation {key} ({what})")]
    Missing {
        /// The pod.
        pod: String,
        /// The annotation.
        key: &'static str,
        /// What it says.
        what: &'static str,
    },
    /// An annotation's value is not what it must be.
    #[error("pod {pod}: annotation {key}={value:?} is invalid: {why}")]
    Invalid {
        /// The pod.
        pod: String,
        /// The annotation.
        key: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        why: String,
    },
    /// Two pods of one gang disagree on a value every pod must share.
    #[error("pods {a} and {b} of application {app} differ in {key}")]
    Differs {
        /// The application.
        app: String,
        /// One pod.
        a: String,
        /// Another pod.
        b: String,
        /// The annotation or field.
        key: &'static str,
    },
    /// The pod's resource requests are absent or invalid.
    #[error("pod {pod}: {why}")]
    Resources {
        /// The pod.
        pod: String,
        /// What is wrong.
        why: String,
    },
}

impl SpecError {
    /// The condition reason for this error (CamelCase, as Kubernetes' reasons are).
    pub fn reason(&self) -> &'static str {
        match self {
            SpecError::Missing { .. } => "MissingAnnotation",
            SpecError::Invalid { .. } => "InvalidAnnotation",
            SpecError::Differs { .. } => "InconsistentGang",
            SpecError::Resources { .. } => "InvalidResources",
        }
    }
}

/// What one gang asks for, read from its pods (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct GangSpec {
    /// The Spark application id (the [`APP_LABEL`] value).
    pub app: String,
    /// E.
    pub executors: u32,
    /// One executor's demand.
    pub demand: Resources,
    /// T_C^L, seconds.
    pub t_local: f64,
    /// T_C^H, seconds.
    pub t_hybrid: f64,
    /// Relative deadline, seconds.
    pub deadline_s: Option<f64>,
    /// Application kind.
    pub kind: JobKind,
}

impl GangSpec {
    /// The spec of application `app` from one of its pods.
    ///
    /// # Errors
    /// [`SpecError`] naming the annotation or field that is missing or wrong.
    pub fn of_pod(app: &str, pod: &Pod) -> Result<GangSpec, SpecError> {
        let name = pod_name(pod);
        let empty = BTreeMap::new();
        let ann = pod.metadata.annotations.as_ref().unwrap_or(&empty);
        let get = |key: &'static str| ann.get(key).map(|v| v.trim());
        let seconds = |key: &'static str, v: &str| -> Result<f64, SpecError> {
            match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s <= MAX_SECONDS => Ok(s),
                _ => Err(SpecError::Invalid {
                    pod: name.clone(),
                    key,
                    value: v.to_string(),
                    why: "a number of seconds in (0, 315576000]".into(),
                }),
            }
        };
        let executors = match get(EXECUTORS) {
            None => {
                return Err(SpecError::Missing {
                    pod: name,
                    key: EXECUTORS,
                    what: "the gang's size, spark.executor.instances",
                });
            }
            Some(v) => match v.parse::<u32>() {
                Ok(n) if (1..=MAX_EXECUTORS).contains(&n) => n,
                _ => {
                    return Err(SpecError::Invalid {
                        pod: name,
                        key: EXECUTORS,
                        value: v.to_string(),
                        why: format!("a whole number from 1 to {MAX_EXECUTORS}"),
                    });
                }
            },
        };
        let t_local = match get(ESTIMATED_DURATION) {
            None => {
                return Err(SpecError::Missing {
                    pod: name,
                    key: ESTIMATED_DURATION,
                    what: "the estimated run time T_C^L in seconds",
                });
            }
            Some(v) => seconds(ESTIMATED_DURATION, v)?,
        };
        let t_hybrid = match get(HYBRID_DURATION) {
            None => t_local * (1.0 + HYBRID_PENALTY),
            Some(v) => {
                let t = seconds(HYBRID_DURATION, v)?;
                if t < t_local {
                    return Err(SpecError::Invalid {
                        pod: name,
                        key: HYBRID_DURATION,
                        value: v.to_string(),
                        why: format!("at least {ESTIMATED_DURATION} ({t_local} s)"),
                    });
                }
                t
            }
        };
        let deadline_s = get(DEADLINE).map(|v| seconds(DEADLINE, v)).transpose()?;
        let kind = match get(KIND) {
            None => JobKind::CpuBound,
            Some(v) => JobKind::parse(v).ok_or_else(|| SpecError::Invalid {
                pod: name.clone(),
                key: KIND,
                value: v.to_string(),
                why: "one of cpu_bound, memory_bound, network_bound".into(),
            })?,
        };
        Ok(GangSpec {
            app: app.to_string(),
            executors,
            demand: demand(pod)?,
            t_local,
            t_hybrid,
            deadline_s,
            kind,
        })
    }

    /// The spec of a gang from all its pods (at least one), which must agree.
    ///
    /// # Errors
    /// The first pod's [`SpecError`], or [`SpecError::Differs`] naming two pods and what
    /// they differ in.
    pub fn of_gang(app: &str, pods: &[&Pod]) -> Result<GangSpec, SpecError> {
        let first = pods.first().expect("a gang has a pod");
        let spec = GangSpec::of_pod(app, first)?;
        for pod in &pods[1..] {
            let other = GangSpec::of_pod(app, pod)?;
            let key = if other.executors != spec.executors {
                Some(EXECUTORS)
            } else if other.t_local != spec.t_local {
                Some(ESTIMATED_DURATION)
            } else if other.t_hybrid != spec.t_hybrid {
                Some(HYBRID_DURATION)
            } else if other.deadline_s != spec.deadline_s {
                Some(DEADLINE)
            } else if other.kind != spec.kind {
                Some(KIND)
            } else if other.demand != spec.demand {
                Some("resources.requests")
            } else {
                None
            };
            if let Some(key) = key {
                return Err(SpecError::Differs {
                    app: app.to_string(),
                    a: pod_name(first),
                    b: pod_name(pod),
                    key,
                });
            }
        }
        Ok(spec)
    }

    /// The job to place, arriving at `arrival` (seconds on the shell's clock); its id is
    /// the application id.
    pub fn job(&self, arrival: f64) -> Job {
        Job {
            id: self.app.clone(),
            kind: self.kind,
            executors: self.executors,
            executor_demand: self.demand,
            arrival,
            deadline: self.deadline_s.map(|d| arrival + d),
            t_local: self.t_local,
            t_hybrid: self.t_hybrid,
        }
    }
}

/// `namespace/name` of a pod, for messages.
pub fn pod_name(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or("?")
    )
}

/// One executor's demand: the first container's requests (limits where absent), CPU
/// rounded up to whole cores, memory up to whole MiB.
fn demand(pod: &Pod) -> Result<Resources, SpecError> {
    let name = pod_name(pod);
    let err = |why: String| SpecError::Resources {
        pod: name.clone(),
        why,
    };
    let container = pod
        .spec
        .as_ref()
        .and_then(|s| s.containers.first())
        .ok_or_else(|| err("it has no container".into()))?;
    let res = container.resources.as_ref();
    let amount = |key: &str| -> Result<f64, SpecError> {
        let q = res
            .and_then(|r| r.requests.as_ref().and_then(|m| m.get(key)))
            .or_else(|| res.and_then(|r| r.limits.as_ref().and_then(|m| m.get(key))))
            .ok_or_else(|| err(format!("its container has no {key} request or limit")))?;
        let v = ParsedQuantity::try_from(q)
            .ok()
            .and_then(|p| p.to_bytes_f64())
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| {
                err(format!(
                    "its {key} request {:?} is not a positive quantity",
                    q.0
                ))
            })?;
        Ok(v)
    };
    let cores = amount("cpu")?.ceil();
    let mib = (amount("memory")? / (1024.0 * 1024.0)).ceil();
    if cores > 4096.0 || mib > 65_536.0 * 1024.0 {
        return Err(err(format!(
            "its request of {cores} cores and {mib} MiB is larger than any VM frugal models"
        )));
    }
    Ok(Resources::new(cores as u32, mib as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Pod;

    fn pod(name: &str, ann: &[(&str, &str)], cpu: &str, mem: &str) -> Pod {
        let ann: serde_json::Map<String, serde_json::Value> = ann
            .iter()
            .map(|(k, v)| ((*k).to_string(), serde_json::Value::from(*v)))
            .collect();
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "spark", "annotations": ann,
                         "labels": {APP_LABEL: "spark-1", ROLE_LABEL: "executor"}},
            "spec": {"containers": [{"name": "executor",
                     "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}
        }))
        .unwrap()
    }

    const OK: [(&str, &str); 2] = [(EXECUTORS, "2"), (ESTIMATED_DURATION, "100")];

    #[test]
    fn a_minimal_pod_gives_the_documented_defaults() {
        // 1408Mi is Spark's 1g executor with its 384 MiB overhead; 500m rounds up.
        let p = pod("e1", &OK, "500m", "1408Mi");
        let s = GangSpec::of_pod("spark-1", &p).unwrap();
        assert_eq!(s.executors, 2);
        assert_eq!(s.demand, Resources::new(1, 1408));
        assert_eq!(s.t_local, 100.0);
        assert!((s.t_hybrid - 130.0).abs() < 1e-9);
        assert_eq!(s.deadline_s, None);
        assert_eq!(s.kind, JobKind::CpuBound);
        let job = s.job(50.0);
        assert_eq!(job.id, "spark-1");
        assert_eq!(job.deadline, None);
    }

    #[test]
    fn every_annotation_is_read() {
        let ann = [
            (EXECUTORS, "3"),
            (ESTIMATED_DURATION, "60"),
            (HYBRID_DURATION, "90"),
            (DEADLINE, "600"),
            (KIND, "network_bound"),
        ];
        let s = GangSpec::of_pod("spark-1", &pod("e1", &ann, "2", "2Gi")).unwrap();
        assert_eq!(s.demand, Resources::new(2, 2048));
        assert_eq!(s.t_hybrid, 90.0);
        assert_eq!(s.job(10.0).deadline, Some(610.0));
        assert_eq!(s.kind, JobKind::NetworkBound);
    }

    #[test]
    fn bad_pods_are_named_with_what_is_wrong() {
        let missing = GangSpec::of_pod("a", &pod("e1", &[(EXECUTORS, "2")], "1", "1Gi"));
        let e = missing.unwrap_err();
        assert_eq!(e.reason(), "MissingAnnotation");
        assert!(e.to_string().contains("spark/e1") && e.to_string().contains(ESTIMATED_DURATION));

        let zero = [(EXECUTORS, "0"), (ESTIMATED_DURATION, "100")];
        let e = GangSpec::of_pod("a", &pod("e1", &zero, "1", "1Gi")).unwrap_err();
        assert_eq!(e.reason(), "InvalidAnnotation");
        assert!(e.to_string().contains(EXECUTORS));

        let short = [
            (EXECUTORS, "1"),
            (ESTIMATED_DURATION, "100"),
            (HYBRID_DURATION, "50"),
        ];
        let e = GangSpec::of_pod("a", &pod("e1", &short, "1", "1Gi")).unwrap_err();
        assert!(e.to_string().contains(HYBRID_DURATION));

        let kind = [(EXECUTORS, "1"), (ESTIMATED_DURATION, "1"), (KIND, "gpu")];
        assert!(GangSpec::of_pod("a", &pod("e1", &kind, "1", "1Gi")).is_err());

        let e = GangSpec::of_pod("a", &pod("e1", &OK, "lots", "1Gi")).unwrap_err();
        assert_eq!(e.reason(), "InvalidResources");
        assert!(e.to_string().contains("cpu"));
    }

    #[test]
    fn a_gang_must_agree() {
        let a = pod("e1", &OK, "1", "1Gi");
        let b = pod(
            "e2",
            &[(EXECUTORS, "3"), (ESTIMATED_DURATION, "100")],
            "1",
            "1Gi",
        );
        let e = GangSpec::of_gang("spark-1", &[&a, &b]).unwrap_err();
        assert_eq!(
            e,
            SpecError::Differs {
                app: "spark-1".into(),
                a: "spark/e1".into(),
                b: "spark/e2".into(),
                key: EXECUTORS
            }
        );
        let c = pod("e3", &OK, "2", "1Gi");
        let e = GangSpec::of_gang("spark-1", &[&a, &c]).unwrap_err();
        assert!(e.to_string().contains("resources.requests"));
        assert!(GangSpec::of_gang("spark-1", &[&a, &pod("e4", &OK, "1", "1Gi")]).is_ok());
    }
}

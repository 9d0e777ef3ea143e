//! Job submissions (paper 004 §5: job id, paths, application, main class, arguments,
//! executor cores, memory and count) and their validation.

use serde::{Deserialize, Serialize};

use frugal_core::job::{Job, JobKind};
use frugal_core::resources::{MIB_PER_GIB, Resources};

/// A job submission as accepted by `POST /jobs` (JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// Unique id, `[a-z0-9_]{1,64}` (it names the job's Spark reservation resource).
    pub id: String,
    /// `cpu_bound`, `memory_bound` or `network_bound` (default `cpu_bound`).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Executors E (≥ 1).
    pub executors: u32,
    /// Cores per executor (≥ 1).
    pub executor_cores: u32,
    /// Memory per executor in GiB (> 0, at least 1 MiB).
    pub executor_memory_gib: f64,
    /// Estimated run time with every executor local, T_C^L, seconds (> 0).
    pub estimated_duration_s: f64,
    /// Estimated run time across sites, T_C^H, seconds (≥ T_C^L; default 1.3 · T_C^L).
    #[serde(default)]
    pub hybrid_duration_s: Option<f64>,
    /// Relative deadline from submission, seconds (> 0), if any.
    #[serde(default)]
    pub deadline_s: Option<f64>,
    /// Application to run (a PySpark file or JAR).
    #[serde(default)]
    pub application_path: String,
    /// Main class of a JAR application.
    #[serde(default)]
    pub main_class: String,
    /// Application arguments.
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Input path.
    #[serde(default)]
    pub input_path: String,
    /// Output path.
    #[serde(default)]
    pub output_path: String,
}

fn default_kind() -> String {
    "cpu_bound".to_string()
}

/// A submission that is not acceptable: the field at fault and why.
#[derive(Debug, thiserror::Error, PartialEq, Serialize)]
#[error("field `{field}`: {message}")]
pub struct Invalid {
    /// JSON path of the field (`body` for malformed JSON).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl Invalid {
    fn new(field: &str, message: impl Into<String>) -> Self {
        Invalid {
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl Submission {
    /// Parses a JSON body, naming the field of the first error.
    ///
    /// # Errors
    /// [`Invalid`] for malformed JSON, unknown or missing fields, wrong types, or values
    /// out of range.
    pub fn parse(body: &[u8]) -> Result<Submission, Invalid> {
        let de = &mut serde_json::Deserializer::from_slice(body);
        let s: Submission = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." || path == "?" {
                "body".to_string()
            } else {
                path
            };
            Invalid::new(&field, e.inner().to_string())
        })?;
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), Invalid> {
        let id_ok = !self.id.is_empty()
            && self.id.len() <= 64
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !id_ok {
            return Err(Invalid::new("id", "must match [a-z0-9_]{1,64}"));
        }
        if JobKind::parse(&self.kind).is_none() {
            return Err(Invalid::new(
                "kind",
                "must be cpu_bound, memory_bound or network_bound",
            ));
        }
        if self.executors == 0 {
            return Err(Invalid::new("executors", "must be ≥ 1"));
        }
        if self.executor_cores == 0 {
            return Err(Invalid::new("executor_cores", "must be ≥ 1"));
        }
        let mib = self.executor_memory_gib * f64::from(MIB_PER_GIB);
        if !(mib.is_finite() && mib >= 1.0 && mib <= f64::from(u32::MAX)) {
            return Err(Invalid::new(
                "executor_memory_gib",
                "must be at least 1 MiB",
            ));
        }
        let t = self.estimated_duration_s;
        if !(t.is_finite() && t > 0.0) {
            return Err(Invalid::new("estimated_duration_s", "must be > 0"));
        }
        if self
            .hybrid_duration_s
            .is_some_and(|h| !(h.is_finite() && h >= t))
        {
            return Err(Invalid::new(
                "hybrid_duration_s",
                "must be ≥ estimated_duration_s",
            ));
        }
        if self.deadline_s.is_some_and(|d| !(d.is_finite() && d > 0.0)) {
            return Err(Invalid::new("deadline_s", "must be > 0"));
        }
        Ok(())
    }

    /// The job to schedule, submitted at `arrival` (service seconds).
    pub fn job(&self, arrival: f64) -> Job {
        Job {
            id: self.id.clone(),
            kind: JobKind::parse(&self.kind).unwrap_or(JobKind::CpuBound),
            executors: self.executors,
            executor_demand: Resources::new(
                self.executor_cores,
                (self.executor_memory_gib * f64::from(MIB_PER_GIB)) as u32,
            ),
            arrival,
            deadline: self.deadline_s.map(|d| arrival + d),
            t_local: self.estimated_duration_s,
            t_hybrid: self
                .hybrid_duration_s
                .unwrap_or(1.3 * self.estimated_duration_s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"id":"wc_1","executors":2,"executor_cores":1,"executor_memory_gib":0.5,"estimated_duration_s":60}"#;

    #[test]
    fn errors_name_the_field() {
        assert!(Submission::parse(OK.as_bytes()).is_ok());
        let field = |body: &str| Submission::parse(body.as_bytes()).unwrap_err().field;
        assert_eq!(
            field(&OK.replace("\"executors\":2", "\"executors\":\"two\"")),
            "executors"
        );
        assert_eq!(
            field(&OK.replace("\"executors\":2", "\"executors\":0")),
            "executors"
        );
        assert_eq!(field(&OK.replace("wc_1", "WC 1")), "id");
        assert_eq!(field(&OK.replace("}", ",\"colour\":1}")), "colour");
        assert_eq!(field("{"), "body");
        assert_eq!(field(&OK.replace("60", "-1")), "estimated_duration_s");
    }

    use proptest::prelude::*;

    proptest! {
        /// Any body, arbitrary bytes or a valid one with one field replaced by arbitrary
        /// JSON, either parses into a submission that passes validation or is rejected
        /// with a named field — never a panic.
        #[test]
        fn parsing_never_panics_and_names_a_field(
            bytes in prop::collection::vec(any::<u8>(), 0..200),
            field in prop::sample::select(vec!["id", "kind", "executors", "executor_cores",
                "executor_memory_gib", "estimated_duration_s", "deadline_s", "arguments"]),
            value in prop_oneof![
                any::<f64>().prop_map(|x| serde_json::json!(x)),
                any::<i64>().prop_map(|x| serde_json::json!(x)),
                ".{0,70}".prop_map(|x| serde_json::json!(x)),
                Just(serde_json::Value::Null),
            ],
        ) {
            if let Err(e) = Submission::parse(&bytes) {
                prop_assert!(!e.field.is_empty());
            }
            let mut body: serde_json::Value = serde_json::from_str(OK).unwrap();
            body[field] = value;
            match Submission::parse(body.to_string().as_bytes()) {
                Ok(s) => prop_assert!(s.validate().is_ok()),
                Err(e) => prop_assert_eq!(e.field.as_str(), field),
            }
        }
    }
}

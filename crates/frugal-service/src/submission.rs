//! Job submissions (paper 004 §5: job id, paths, application, main class, arguments,
//! executor cores, memory and count) and their validation.
//!
//! Every number has a documented bound, so nothing a client sends can overflow a
//! conversion later (a duration of 1e22 s used to panic the scheduling loop): durations
//! and deadlines at most [`MAX_SECONDS`] (10 years), at most [`MAX_EXECUTORS`]
//! executors of at most 4,096 cores and 65,536 GiB each.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use frugal_core::job::{HYBRID_PENALTY, Job, JobKind, MAX_EXECUTORS, MAX_SECONDS};
use frugal_core::resources::{MIB_PER_GIB, Resources};

/// Most cores per executor.
pub const MAX_EXECUTOR_CORES: u32 = 4096;
/// Most memory per executor, GiB.
pub const MAX_EXECUTOR_MEMORY_GIB: f64 = 65_536.0;
/// Most application arguments, and bytes per argument or path.
pub const MAX_ARGUMENTS: usize = 64;
/// Most bytes of one argument, path or class name.
pub const MAX_TEXT: usize = 4096;

/// A job submission as accepted by `POST /jobs` (JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// Unique id, `[A-Za-z0-9_-]{1,64}` (it names the job's Spark reservation resource).
    #[schema(pattern = "^[A-Za-z0-9_-]{1,64}$", example = "wc_1")]
    pub id: String,
    /// `cpu_bound`, `memory_bound` or `network_bound` (default `cpu_bound`).
    #[serde(default = "default_kind")]
    #[schema(example = "cpu_bound")]
    pub kind: String,
    /// Executors E, 1–100,000.
    #[schema(minimum = 1, maximum = 100000)]
    pub executors: u32,
    /// Cores per executor, 1–4,096.
    #[schema(minimum = 1, maximum = 4096)]
    pub executor_cores: u32,
    /// Memory per executor in GiB, from 1 MiB to 65,536 GiB.
    #[schema(maximum = 65536.0)]
    pub executor_memory_gib: f64,
    /// Estimated run time with every executor local, T_C^L, seconds, (0, 10 years].
    pub estimated_duration_s: f64,
    /// Estimated run time across sites, T_C^H, seconds, [T_C^L, 10 years] (default
    /// 1.3 · T_C^L).
    #[serde(default)]
    pub hybrid_duration_s: Option<f64>,
    /// Relative deadline from submission, seconds, (0, 10 years], if any.
    #[serde(default)]
    pub deadline_s: Option<f64>,
    /// Application to run: a file in the service's applications directory (a PySpark
    /// file or JAR), relative to it or absolute inside it.
    #[serde(default)]
    pub application_path: String,
    /// Main class of a JAR application (a Java class name).
    #[serde(default)]
    pub main_class: String,
    /// Application arguments (at most 64, each up to 4,096 bytes); they follow the
    /// application, so they cannot add `spark-submit` options.
    #[serde(default)]
    pub arguments: Vec<String>,
    /// Input path, passed to the application.
    #[serde(default)]
    pub input_path: String,
    /// Output path, passed to the application.
    #[serde(default)]
    pub output_path: String,
    /// Most dollars its placement may cost, (0, 1e9], if capped: the cost of paper 000
    /// Eq. 16 (each VM it uses: price × the time the job adds to the VM's on-time). A job
    /// is refused (422) if even the cheapest placement on the idle cluster costs more,
    /// and otherwise waits while every placement would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = 0.5)]
    pub max_cost_usd: Option<f64>,
}

/// Most dollars a job's cost cap may be.
pub const MAX_COST_USD: f64 = 1e9;

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
    /// True if the body is not well-formed JSON at all (HTTP 400, else 422).
    #[serde(skip)]
    pub syntax: bool,
}

impl Invalid {
    fn new(field: &str, message: impl Into<String>) -> Self {
        Invalid {
            field: field.to_string(),
            message: message.into(),
            syntax: false,
        }
    }
}

fn check_text(field: &str, s: &str) -> Result<(), Invalid> {
    if s.len() > MAX_TEXT || s.contains('\0') {
        return Err(Invalid::new(
            field,
            format!("must be at most {MAX_TEXT} bytes without NUL"),
        ));
    }
    Ok(())
}

fn seconds(field: &str, v: f64, min_exclusive: f64) -> Result<(), Invalid> {
    if !(v.is_finite() && v > min_exclusive && v <= MAX_SECONDS) {
        return Err(Invalid::new(
            field,
            format!("must be in ({min_exclusive}, {MAX_SECONDS}] seconds (10 years)"),
        ));
    }
    Ok(())
}

impl Submission {
    /// Parses a JSON body, naming the field of the first error.
    ///
    /// # Errors
    /// [`Invalid`] for malformed JSON or trailing data after it (`syntax`), unknown or
    /// missing fields, wrong types, or values out of range.
    pub fn parse(body: &[u8]) -> Result<Submission, Invalid> {
        let mut de = serde_json::Deserializer::from_slice(body);
        let s: Submission = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let syntax = matches!(
                e.inner().classify(),
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof
            );
            let field = if syntax || path == "." || path == "?" {
                "body".to_string()
            } else {
                path
            };
            Invalid {
                field,
                message: e.inner().to_string(),
                syntax,
            }
        })?;
        de.end().map_err(|e| Invalid {
            field: "body".into(),
            message: format!("trailing data after the JSON object: {e}"),
            syntax: true,
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
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !id_ok {
            return Err(Invalid::new("id", "must match [A-Za-z0-9_-]{1,64}"));
        }
        if JobKind::parse(&self.kind).is_none() {
            return Err(Invalid::new(
                "kind",
                "must be cpu_bound, memory_bound or network_bound",
            ));
        }
        if !(1..=MAX_EXECUTORS).contains(&self.executors) {
            return Err(Invalid::new(
                "executors",
                format!("must be in 1..={MAX_EXECUTORS}"),
            ));
        }
        if !(1..=MAX_EXECUTOR_CORES).contains(&self.executor_cores) {
            return Err(Invalid::new(
                "executor_cores",
                format!("must be in 1..={MAX_EXECUTOR_CORES}"),
            ));
        }
        let gib = self.executor_memory_gib;
        if !(gib.is_finite()
            && gib * f64::from(MIB_PER_GIB) >= 1.0
            && gib <= MAX_EXECUTOR_MEMORY_GIB)
        {
            return Err(Invalid::new(
                "executor_memory_gib",
                format!("must be from 1 MiB to {MAX_EXECUTOR_MEMORY_GIB} GiB"),
            ));
        }
        let t = self.estimated_duration_s;
        seconds("estimated_duration_s", t, 0.0)?;
        if let Some(h) = self.hybrid_duration_s {
            seconds("hybrid_duration_s", h, 0.0)?;
            if h < t {
                return Err(Invalid::new(
                    "hybrid_duration_s",
                    "must be ≥ estimated_duration_s",
                ));
            }
        }
        if let Some(d) = self.deadline_s {
            seconds("deadline_s", d, 0.0)?;
        }
        if let Some(c) = self.max_cost_usd
            && !(c.is_finite() && c > 0.0 && c <= MAX_COST_USD)
        {
            return Err(Invalid::new(
                "max_cost_usd",
                format!("must be in (0, {MAX_COST_USD}] dollars"),
            ));
        }
        for (field, text) in [
            ("application_path", &self.application_path),
            ("input_path", &self.input_path),
            ("output_path", &self.output_path),
            ("main_class", &self.main_class),
        ] {
            check_text(field, text)?;
        }
        let class_ok = self.main_class.is_empty()
            || self.main_class.split('.').all(|part| {
                let mut c = part.chars();
                c.next()
                    .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == '$')
                    && c.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            });
        if !class_ok {
            return Err(Invalid::new("main_class", "must be a Java class name"));
        }
        if self.arguments.len() > MAX_ARGUMENTS {
            return Err(Invalid::new(
                "arguments",
                format!("at most {MAX_ARGUMENTS} arguments"),
            ));
        }
        for (i, a) in self.arguments.iter().enumerate() {
            check_text(&format!("arguments[{i}]"), a)?;
        }
        Ok(())
    }

    /// The application file inside `apps_dir`: `application_path` relative to it, or
    /// absolute and inside it; no `..` component, no escape through a symbolic link.
    ///
    /// # Errors
    /// [`Invalid`] on `application_path` if it leaves the directory, does not exist or is
    /// not a file.
    pub fn application(&self, apps_dir: &Path) -> Result<PathBuf, Invalid> {
        let err = |m: &str| Invalid::new("application_path", m);
        let p = Path::new(&self.application_path);
        if self.application_path.is_empty() {
            return Err(err("is required"));
        }
        if p.components().any(|c| c == Component::ParentDir) {
            return Err(err("must not contain `..`"));
        }
        let root = apps_dir
            .canonicalize()
            .map_err(|e| err(&format!("the applications directory is unusable: {e}")))?;
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            root.join(p)
        };
        let real = full
            .canonicalize()
            .map_err(|_| err("no such application in the applications directory"))?;
        if !real.starts_with(&root) {
            return Err(err("must be inside the applications directory"));
        }
        if !real.is_file() {
            return Err(err("is not a file"));
        }
        Ok(real)
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
                .unwrap_or((1.0 + HYBRID_PENALTY) * self.estimated_duration_s),
        }
    }

    /// Re-checks a submission read back from the database (written by any earlier
    /// version, whose bounds may have been looser).
    ///
    /// # Errors
    /// [`Invalid`] as [`Submission::parse`].
    pub fn revalidate(&self) -> Result<(), Invalid> {
        self.validate()
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
        assert!(Submission::parse(OK.replace("wc_1", "wc-1").as_bytes()).is_ok());
        assert_eq!(field(&OK.replace("}", ",\"colour\":1}")), "colour");
        assert_eq!(field("{"), "body");
        assert_eq!(field(&OK.replace("60", "-1")), "estimated_duration_s");
        assert_eq!(field(&OK.replace("60", "1e22")), "estimated_duration_s");
        assert_eq!(
            field(&OK.replace("}", ",\"deadline_s\":4e8}")),
            "deadline_s"
        );
        assert_eq!(
            field(&OK.replace("}", ",\"main_class\":\"a;rm -rf\"}")),
            "main_class"
        );
    }

    #[test]
    fn malformed_json_and_trailing_data_are_syntax_errors() {
        for body in [
            "{",
            "not json",
            &format!("{OK}garbage"),
            &format!("{OK}{OK}"),
        ] {
            let e = Submission::parse(body.as_bytes()).unwrap_err();
            assert!(e.syntax, "{body}: {e}");
            assert_eq!(e.field, "body");
        }
        assert!(Submission::parse(format!("{OK} \n").as_bytes()).is_ok());
        assert!(
            !Submission::parse(OK.replace("60", "\"x\"").as_bytes())
                .unwrap_err()
                .syntax
        );
    }

    #[test]
    fn applications_must_stay_in_their_directory() {
        let dir = std::env::temp_dir().join(format!("frugal-apps-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("apps")).unwrap();
        std::fs::write(dir.join("apps/wc.py"), "").unwrap();
        std::fs::write(dir.join("secret.py"), "").unwrap();
        let apps = dir.join("apps");
        let with = |path: &str| {
            let mut s = Submission::parse(OK.as_bytes()).unwrap();
            s.application_path = path.to_string();
            s.application(&apps)
        };
        assert!(with("wc.py").is_ok());
        assert!(with(apps.join("wc.py").to_str().unwrap()).is_ok());
        assert!(with("../secret.py").is_err());
        assert!(with(dir.join("secret.py").to_str().unwrap()).is_err());
        assert!(with("missing.py").is_err());
        assert!(with("").is_err());
        std::os::unix::fs::symlink(dir.join("secret.py"), apps.join("link.py")).unwrap();
        assert!(with("link.py").is_err(), "a symbolic link out is refused");
        std::fs::remove_dir_all(&dir).unwrap();
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
                "executor_memory_gib", "estimated_duration_s", "hybrid_duration_s",
                "deadline_s", "arguments", "main_class", "application_path"]),
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
                Ok(s) => {
                    prop_assert!(s.validate().is_ok());
                    let job = s.job(1.0e9);
                    prop_assert!(job.t_local <= MAX_SECONDS && job.t_hybrid <= 1.3 * MAX_SECONDS);
                }
                Err(e) => prop_assert!(e.field.starts_with(field), "{} vs {}", e.field, field),
            }
        }
    }
}

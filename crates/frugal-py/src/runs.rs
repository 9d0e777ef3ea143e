//! The systems' comparisons and experiment files, run through the same library functions
//! as the CLI and returned as the CSV text the CLI's `--format csv` prints (the Python side
//! reads it into DataFrames, so both faces give the same values).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

pub(crate) fn csv_of<T: serde::Serialize>(rows: impl IntoIterator<Item = T>) -> PyResult<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(error)?;
    }
    let bytes = w.into_inner().map_err(error)?;
    String::from_utf8(bytes).map_err(error)
}

/// The policy comparison from its spec (JSON of `frugal_sim::options::SimulateSpec`, keys
/// as the spec's fields: `cluster-scale`): one row per workload × policy as `frugal
/// simulate --format csv` prints them, on `threads` workers (0: one per core; any count
/// gives the same rows), and the files of `frugal simulate --out` in `out` if given.
#[pyfunction]
#[pyo3(signature = (spec_json, out=None, threads=0))]
pub fn simulate_csv(
    py: Python<'_>,
    spec_json: String,
    out: Option<String>,
    threads: usize,
) -> PyResult<String> {
    let spec: frugal_sim::options::SimulateSpec = spec_of(&spec_json, &SIMULATE_KEYWORDS)?;
    let rows = py
        .detach(|| {
            let runs =
                frugal_sim::options::compute(&spec, threads, &(), &frugal_agents::load_policy)?;
            if let Some(dir) = &out {
                frugal_sim::options::write_out(std::path::Path::new(dir), &spec, &runs)?;
            }
            let tables = frugal_sim::options::aggregate(&runs, &spec.baseline.to_string());
            anyhow::Ok(
                tables
                    .into_iter()
                    .flat_map(|(_, rows)| rows)
                    .collect::<Vec<_>>(),
            )
        })
        .map_err(|e| run_error(e, &SIMULATE_KEYWORDS))?;
    csv_of(rows)
}

/// A spec's field as the Python keyword that sets it: with `_` for `-`, or as `renames`
/// maps it (`simulate`'s `jobs-csv` is the keyword `jobs`).
fn keyword(field: &str, renames: &[(&str, &str)]) -> String {
    renames
        .iter()
        .find(|(f, _)| *f == field)
        .map_or_else(|| field.replace('-', "_"), |(_, k)| (*k).to_string())
}

/// A spec from its JSON; an error names the keyword (`policies[1]: unknown variant …`).
pub(crate) fn spec_of<T: serde::de::DeserializeOwned>(
    json: &str,
    renames: &[(&str, &str)],
) -> PyResult<T> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let (field, index) = path.split_at(path.find('[').unwrap_or(path.len()));
        // The JSON is written by the package, so its line and column mean nothing to users.
        let message = e.inner().to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |at| &message[..at]);
        PyValueError::new_err(format!(
            "{}{index}: {}",
            keyword(field, renames),
            in_words(message)
        ))
    })
}

/// serde's message about a value in a Python user's words: Rust's type names become what
/// they accept, and an unknown name lists the choices as the CLI does.
///
/// - `invalid value: integer `-1`, expected u32` ↦ `got -1, expected a whole number from 0
///   to 4294967295`;
/// - `invalid type: string "big", expected f64` ↦ `got "big", expected a number`;
/// - ``unknown variant `x`, expected `a` or `b` `` ↦ `invalid value "x" [possible values:
///   a, b]`.
///
/// Anything else is returned as it is.
fn in_words(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((given, expected)) = rest.split_once("`, expected ")
    {
        let choices = expected
            .trim_start_matches("one of ")
            .replace("` or `", "`, `")
            .replace('`', "");
        return format!("invalid value \"{given}\" [possible values: {choices}]");
    }
    let Some((got, expected)) = message
        .strip_prefix("invalid value: ")
        .or_else(|| message.strip_prefix("invalid type: "))
        .and_then(|m| m.rsplit_once(", expected "))
    else {
        return message.to_string();
    };
    let got = ["integer `", "floating point `", "boolean `"]
        .iter()
        .find_map(|p| got.strip_prefix(p)?.strip_suffix('`'))
        .map(|v| match v {
            "true" => "True".to_string(),
            "false" => "False".to_string(),
            v => v.to_string(),
        })
        .or_else(|| got.strip_prefix("string ").map(str::to_string))
        .unwrap_or_else(|| got.to_string());
    let expected = match expected {
        "u8" => format!("a whole number from 0 to {}", u8::MAX),
        "u16" => format!("a whole number from 0 to {}", u16::MAX),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "u64" | "usize" => "a whole number ≥ 0".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "True or False".to_string(),
        "a sequence" => "a list".to_string(),
        "a map" => "a dict".to_string(),
        e => e.to_string(),
    };
    format!("got {got}, expected {expected}")
}

/// A run's error: a spec's field at fault as `keyword: message` (the fields it names as
/// keywords too), anything else with its causes.
fn run_error(e: anyhow::Error, renames: &[(&str, &str)]) -> PyErr {
    match e.downcast_ref::<frugal_core::spec::SpecError>() {
        Some(s) => PyValueError::new_err(s.named(|f| keyword(f, renames))),
        None => error(format!("{e:#}")),
    }
}

/// `simulate`'s keywords that are not its spec's fields with `_` for `-`.
const SIMULATE_KEYWORDS: [(&str, &str); 2] = [("jobs-csv", "jobs"), ("jobs", "job_count")];

/// Paper 003's comparison from its spec (JSON of `frugal_bot::BagOfTasksSpec`) on
/// `threads` workers (0: one per core): one row per run as CSV, and the files of
/// `frugal bag-of-tasks --out` in `out` if given.
#[pyfunction]
#[pyo3(signature = (spec_json, out=None, threads=0))]
pub fn bag_of_tasks_csv(
    py: Python<'_>,
    spec_json: String,
    out: Option<String>,
    threads: usize,
) -> PyResult<String> {
    let spec: frugal_bot::BagOfTasksSpec = spec_of(&spec_json, &[])?;
    let runs = py
        .detach(|| {
            let runs = frugal_bot::comparison::compute(&spec, threads, &())?;
            if let Some(dir) = &out {
                frugal_bot::comparison::write_out(std::path::Path::new(dir), &spec, &runs)?;
            }
            anyhow::Ok(runs)
        })
        .map_err(|e| run_error(e, &[]))?;
    csv_of(runs.rows)
}

/// Paper 001's comparison from its spec (JSON of `frugal_ephemeral::options::EphemeralSpec`,
/// keys as the spec's fields: `chunk-mib`): one row per cell (or per run) as `frugal
/// ephemeral --format csv [--per-run]` prints them, on `threads` workers (0: one per core),
/// and the files of `frugal ephemeral --out` in `out` if given.
#[pyfunction]
#[pyo3(signature = (spec_json, per_run, out=None, threads=0))]
pub fn ephemeral_csv(
    py: Python<'_>,
    spec_json: String,
    per_run: bool,
    out: Option<String>,
    threads: usize,
) -> PyResult<String> {
    let spec: frugal_ephemeral::options::EphemeralSpec = spec_of(&spec_json, &[])?;
    let runs = py
        .detach(|| {
            let runs = frugal_ephemeral::options::compute(&spec, threads, &())?;
            if let Some(dir) = &out {
                frugal_ephemeral::options::write_out(std::path::Path::new(dir), &spec, &runs)?;
            }
            anyhow::Ok(runs)
        })
        .map_err(|e| run_error(e, &[]))?;
    if per_run {
        csv_of(runs.rows)
    } else {
        csv_of(frugal_ephemeral::summary::cells(&runs.rows))
    }
}

/// Runs experiment files (paths, or the names of built-in ones) and writes their rows,
/// plots and report into `out` as `frugal run` does; returns (id, rows as CSV) per
/// experiment.
#[pyfunction]
pub fn run_experiments(
    py: Python<'_>,
    files: Vec<String>,
    quick: bool,
    out: String,
) -> PyResult<Vec<(String, String)>> {
    let out = std::path::PathBuf::from(out);
    py.detach(|| {
        let paths = files
            .iter()
            .map(|f| {
                let p = std::path::PathBuf::from(f);
                if p.exists() {
                    return Ok(p);
                }
                let id = f.strip_suffix(".toml").unwrap_or(f);
                match frugal_report::embedded::show(id) {
                    Some(_) => Ok(frugal_report::embedded::folder()?.join(format!("{id}.toml"))),
                    None => anyhow::bail!("{f}: no such file, nor a built-in experiment"),
                }
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let experiments = frugal_report::runner::read(&paths)?;
        let outputs = frugal_report::runner::run(&experiments, quick, 0, None, &())?;
        frugal_report::runner::write(
            &experiments,
            outputs,
            &out,
            "frugal_sched.run_experiment",
            quick,
        )?;
        experiments
            .iter()
            .map(|(id, _)| {
                let text = std::fs::read_to_string(out.join("results").join(format!("{id}.csv")))?;
                Ok((id.clone(), text))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })
    .map_err(|e| error(format!("{e:#}")))
}

#[cfg(test)]
mod tests {
    use super::in_words;

    #[test]
    fn serde_messages_are_put_in_a_python_users_words() {
        let cases = [
            (
                "invalid value: integer `-1`, expected u32",
                "got -1, expected a whole number from 0 to 4294967295",
            ),
            (
                "invalid type: string \"big\", expected u32",
                "got \"big\", expected a whole number from 0 to 4294967295",
            ),
            (
                "invalid type: floating point `2.5`, expected u64",
                "got 2.5, expected a whole number ≥ 0",
            ),
            (
                "invalid type: boolean `true`, expected f64",
                "got True, expected a number",
            ),
            (
                "invalid type: integer `3`, expected a string",
                "got 3, expected a string",
            ),
            (
                "unknown variant `zzz`, expected `fast` or `reference`",
                "invalid value \"zzz\" [possible values: fast, reference]",
            ),
            (
                "unknown variant `x`, expected one of `a`, `b`, `c`",
                "invalid value \"x\" [possible values: a, b, c]",
            ),
            (
                "alpha: 0 is outside [1, 1000]",
                "alpha: 0 is outside [1, 1000]",
            ),
        ];
        for (serde, words) in cases {
            assert_eq!(in_words(serde), words, "{serde}");
        }
    }
}

//! Paper 005 from Python: a spot comparison from its spec (JSON of `frugal_spot::SpotSpec`,
//! so an error names the field), with Python callables as extra policies.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use frugal_spot::experiment::{SpotSpec, run_with};
use frugal_spot::{Mode, Observation, SpotError, SpotPolicy};

/// A Python callable as a policy: called with a dict of the observation each tick, it
/// returns "idle", "spot" or "on-demand". The first Python error stops it (on-demand until
/// the run ends) and is raised when the runs are done.
struct PyPolicy {
    name: String,
    decide: Py<PyAny>,
    error: Arc<Mutex<Option<PyErr>>>,
}

impl PyPolicy {
    fn call(&self, o: &Observation<'_>) -> PyResult<Mode> {
        Python::attach(|py| {
            let d = PyDict::new(py);
            d.set_item("tick", o.tick)?;
            d.set_item("elapsed_s", o.elapsed_s())?;
            d.set_item("gap_s", o.gap_s)?;
            d.set_item("mode", o.mode.name())?;
            d.set_item("spot_available", o.spot_available)?;
            d.set_item("work_done_s", o.work_done_s)?;
            d.set_item("work_left_s", o.work_left_s())?;
            d.set_item("overhead_left_s", o.overhead_left_s)?;
            d.set_item("work_s", o.job.work_s)?;
            d.set_item("deadline_s", o.job.deadline_s)?;
            d.set_item("changeover_s", o.job.changeover_s)?;
            let answer: String = self.decide.call1(py, (d,))?.extract(py)?;
            match answer.as_str() {
                "idle" => Ok(Mode::Idle),
                "spot" => Ok(Mode::Spot),
                "on-demand" => Ok(Mode::OnDemand),
                other => Err(PyValueError::new_err(format!(
                    "policy {:?} returned {other:?}: return \"idle\", \"spot\" or \"on-demand\"",
                    self.name
                ))),
            }
        })
    }
}

impl SpotPolicy for PyPolicy {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        let mut error = self.error.lock().expect("not poisoned");
        if error.is_some() {
            return Mode::OnDemand;
        }
        match self.call(o) {
            Ok(m) => m,
            Err(e) => {
                *error = Some(e);
                Mode::OnDemand
            }
        }
    }
}

/// Runs the spec (JSON) with the `custom` (name, callable) policies; the rows as CSV.
#[pyfunction]
pub fn spot_csv(
    py: Python<'_>,
    spec_json: String,
    custom: Vec<(String, Py<PyAny>)>,
) -> PyResult<String> {
    // The path names the field ("policies[1]: unknown spot policy …").
    let spec: SpotSpec = crate::runs::spec_of(&spec_json, &[])?;
    let error = Arc::new(Mutex::new(None));
    let policies: Vec<PyPolicy> = custom
        .into_iter()
        .map(|(name, decide)| PyPolicy {
            name,
            decide,
            error: error.clone(),
        })
        .collect();
    let rows = py.detach(move || {
        let mut boxed: Vec<Box<dyn SpotPolicy>> = policies
            .into_iter()
            .map(|p| Box::new(p) as Box<dyn SpotPolicy>)
            .collect();
        run_with(&spec, &mut boxed, &())
    });
    finish(&error, rows)
}

/// The rows of a run with Python policies as CSV: the first error a policy raised, else the
/// run's own as `ValueError`.
pub(crate) fn finish<T: serde::Serialize>(
    error: &Mutex<Option<PyErr>>,
    rows: Result<Vec<T>, SpotError>,
) -> PyResult<String> {
    if let Some(e) = error.lock().expect("not poisoned").take() {
        return Err(e);
    }
    let rows = rows.map_err(|e| match e {
        SpotError::Input(m) | SpotError::Policy(m) => PyValueError::new_err(m),
    })?;
    crate::runs::csv_of(rows)
}

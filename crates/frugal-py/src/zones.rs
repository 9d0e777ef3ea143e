//! Paper 006 from Python: a multi-zone run from its spec (JSON of
//! `frugal_spot::zones::experiment::ZonesSpec`, so an error names the field), with Python
//! callables as extra policies, each scored beside the exact optimum and the published arms.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use frugal_spot::zones::experiment::{PolicyFactory, ZonesSpec, run_spec_with};
use frugal_spot::zones::{Env, Setting, ZonePolicy};
use frugal_spot::{Mode, SpotError};

/// One item of a callable's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    Keep,
    Idle,
    Launch(usize, Mode),
    Probe(usize),
}

/// A Python callable as a multi-zone policy. Each tick it gets a dict of the state (see
/// `frugal_sched.zones`) and returns a list of items tried in order: `"keep"` or `"idle"`
/// end the tick, `("spot", z)` and `("on-demand", z)` end it when the launch succeeds,
/// `("probe", z)` probes and goes on. The outcomes reach it the next tick as `results`.
/// The first Python error stops it (what runs keeps running) and is raised when the runs
/// are done.
struct PyZonePolicy {
    name: String,
    decide: Py<PyAny>,
    error: Arc<Mutex<Option<PyErr>>>,
    results: Vec<bool>,
}

fn parse_item(name: &str, x: &Bound<'_, PyAny>, zones: usize) -> PyResult<Item> {
    let bad = || {
        PyValueError::new_err(format!(
            "policy {name:?} returned {x}: return a list of \"keep\", \"idle\", (\"spot\", z), \
             (\"on-demand\", z) or (\"probe\", z) with z a zone index below {zones}"
        ))
    };
    if let Ok(s) = x.cast::<PyString>() {
        let s: String = s.extract()?;
        return match s.as_str() {
            "keep" => Ok(Item::Keep),
            "idle" => Ok(Item::Idle),
            _ => Err(bad()),
        };
    }
    let t = x.cast::<PyTuple>().map_err(|_| bad())?;
    if t.len() != 2 {
        return Err(bad());
    }
    let kind: String = t.get_item(0)?.extract().map_err(|_| bad())?;
    let z: usize = t.get_item(1)?.extract().map_err(|_| bad())?;
    if z >= zones {
        return Err(bad());
    }
    match kind.as_str() {
        "spot" => Ok(Item::Launch(z, Mode::Spot)),
        "on-demand" => Ok(Item::Launch(z, Mode::OnDemand)),
        "probe" => Ok(Item::Probe(z)),
        _ => Err(bad()),
    }
}

impl PyZonePolicy {
    fn ask(&self, env: &Env<'_>) -> PyResult<Vec<Item>> {
        let s = env.setting();
        Python::attach(|py| {
            let d = PyDict::new(py);
            d.set_item("tick", env.tick())?;
            d.set_item("elapsed_s", env.elapsed_s())?;
            d.set_item("gap_s", s.gap_s)?;
            d.set_item("work_s", s.job.work_s)?;
            d.set_item("deadline_s", s.job.deadline_s)?;
            d.set_item("changeover_s", s.job.changeover_s)?;
            d.set_item("checkpoint_gb", s.checkpoint_gb)?;
            d.set_item("work_done_s", env.work_done_s())?;
            d.set_item("work_left_s", env.work_left_s())?;
            d.set_item("overhead_left_s", env.overhead_left_s())?;
            d.set_item("location", env.location())?;
            match env.active() {
                Some(i) => {
                    let a = PyDict::new(py);
                    a.set_item("zone", i.zone)?;
                    a.set_item("mode", i.mode.name())?;
                    d.set_item("active", a)?;
                }
                None => d.set_item("active", py.None())?,
            }
            let zones = PyList::empty(py);
            for z in &s.zones {
                let zd = PyDict::new(py);
                zd.set_item("name", &z.name)?;
                zd.set_item("region", z.region())?;
                zd.set_item("spot_per_h", z.price(Mode::Spot, env.tick()))?;
                zd.set_item("on_demand_per_h", z.on_demand_per_h)?;
                zones.append(zd)?;
            }
            d.set_item("zones", zones)?;
            d.set_item("results", self.results.clone())?;
            let answer = self.decide.call1(py, (d,))?;
            let answer = answer.bind(py);
            let n = s.zones.len();
            if answer.cast::<PyString>().is_ok() || answer.cast::<PyTuple>().is_ok() {
                return Ok(vec![parse_item(&self.name, answer, n)?]);
            }
            let list = answer.cast::<PyList>().map_err(|_| {
                PyValueError::new_err(format!(
                    "policy {:?} returned {answer}: return a list of items",
                    self.name
                ))
            })?;
            list.iter().map(|x| parse_item(&self.name, &x, n)).collect()
        })
    }
}

impl ZonePolicy for PyZonePolicy {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn reset(&mut self, _: &Setting) -> Result<(), SpotError> {
        self.results.clear();
        Ok(())
    }

    fn act(&mut self, env: &mut Env<'_>) {
        if self.error.lock().expect("not poisoned").is_some() {
            return;
        }
        let items = match self.ask(env) {
            Ok(items) => items,
            Err(e) => {
                *self.error.lock().expect("not poisoned") = Some(e);
                return;
            }
        };
        self.results.clear();
        for item in items {
            match item {
                Item::Keep => break,
                Item::Idle => {
                    env.terminate();
                    break;
                }
                Item::Probe(z) => self.results.push(env.probe(z)),
                Item::Launch(z, mode) => {
                    let ok = env.try_launch(z, mode);
                    self.results.push(ok);
                    if ok {
                        break;
                    }
                }
            }
        }
    }
}

/// The built-in multi-zone policies' and the published scenarios' names, in the Rust
/// enums' order: Python lists them from here (one name, one place).
#[pyfunction]
pub fn zone_names() -> (Vec<&'static str>, Vec<&'static str>) {
    use frugal_core::spec::Choice;
    use frugal_spot::zones::experiment::{ScenarioName, ZonePolicyName};
    (
        ZonePolicyName::ALL.iter().map(|p| p.name()).collect(),
        ScenarioName::ALL.iter().map(|s| s.name()).collect(),
    )
}

/// Runs the spec (JSON) with the `custom` (name, callable) policies; the rows as CSV.
#[pyfunction]
pub fn zones_csv(
    py: Python<'_>,
    spec_json: String,
    custom: Vec<(String, Py<PyAny>)>,
) -> PyResult<String> {
    let spec: ZonesSpec = crate::runs::spec_of(&spec_json, &[])?;
    let error = Arc::new(Mutex::new(None));
    let makers: Vec<(String, Box<PolicyFactory>)> = custom
        .into_iter()
        .map(|(name, decide)| {
            let (n, e) = (name.clone(), error.clone());
            let decide = Arc::new(decide);
            let make: Box<PolicyFactory> = Box::new(move || {
                Box::new(PyZonePolicy {
                    name: n.clone(),
                    decide: Python::attach(|py| decide.clone_ref(py)),
                    error: e.clone(),
                    results: Vec::new(),
                }) as Box<dyn ZonePolicy>
            });
            (name, make)
        })
        .collect();
    let rows = py.detach(|| {
        let custom: Vec<(String, &PolicyFactory)> = makers
            .iter()
            .map(|(n, m)| (n.clone(), m.as_ref()))
            .collect();
        run_spec_with(&spec, &custom)
    });
    crate::spot::finish(&error, rows)
}

//! Python bindings: `frugal_sched._native.Env` (one environment) and
//! `frugal_sched._native.VecEnv` (N environments stepped in one call), which the Gymnasium
//! classes wrap, and the systems' comparisons and experiment files ([`runs`]), which
//! `frugal_sched.simulate`, `.bag_of_tasks`, `.ephemeral` and `.run_experiment` return as
//! DataFrames (`python/frugal_sched/__init__.py`).

mod runs;
mod spot;
mod zones;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use frugal_core::{Preset, PricingModel};
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The value named `given` among `options`, or a ValueError naming the `argument`.
/// The value of the closed set `T` named `given`, else a `ValueError` naming `argument`
/// and every name (the names are `T`'s own: one spelling per value, in Python too).
fn named<T: frugal_core::spec::Choice>(argument: &str, given: &str) -> PyResult<T> {
    let options: Vec<(&str, T)> = T::ALL.iter().map(|&v| (v.name(), v)).collect();
    choose(argument, given, &options)
}

fn choose<T: Copy>(argument: &str, given: &str, options: &[(&str, T)]) -> PyResult<T> {
    options
        .iter()
        .find(|(name, _)| *name == given)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<String> = options.iter().map(|(n, _)| format!("'{n}'")).collect();
            value_error(format!(
                "{argument} must be {}, got {given:?}",
                names.join(" or ")
            ))
        })
}

/// The Python keyword arguments shared by `Env` and `VecEnv`.
struct Settings<'a> {
    pattern: &'a str,
    split: &'a str,
    mode: &'a str,
    beta: f64,
    cluster: &'a str,
    pricing: &'a str,
    workload_seed: u64,
    protocol: &'a str,
    jobs: &'a str,
}

/// Builds the configuration from the Python keyword arguments.
fn config(a: &Settings) -> PyResult<EnvConfig> {
    let Settings {
        pattern,
        split,
        mode,
        beta,
        cluster,
        pricing,
        workload_seed,
        protocol,
        jobs,
    } = *a;
    let protocol: Protocol = named("protocol", protocol)?;
    let source: JobSource = named("jobs", jobs)?;
    let pattern: Pattern = named("pattern", pattern)?;
    let split = choose(
        "split",
        split,
        &[("train", Split::Train), ("eval", Split::Eval)],
    )?;
    let mode: Mode = named("mode", mode)?;
    let preset: Preset = named("cluster", cluster)?;
    let pricing: PricingModel = named("pricing", pricing)?;
    let cluster = preset.config(pricing).build(cluster).map_err(value_error)?;
    Ok(EnvConfig::paper002(
        cluster,
        episodes(source, protocol, pattern, split, workload_seed),
        mode,
        beta,
    ))
}

fn kpis<'py>(py: Python<'py>, env: &SparkPlacementEnv) -> PyResult<Bound<'py, PyDict>> {
    let k = env.kpis();
    let d = PyDict::new(py);
    d.set_item("time_s", k.time_s)?;
    d.set_item("cost_usd", k.cost)?;
    d.set_item("jobs_scheduled", k.jobs_scheduled)?;
    d.set_item("jobs_total", k.jobs_total)?;
    d.set_item("mean_duration_s", k.mean_duration_s)?;
    d.set_item("mean_jct_s", k.mean_jct_s)?;
    d.set_item("deadline_met_pct", k.deadline_met_pct)?;
    Ok(d)
}

/// One environment (see `frugal_sched.SparkPlacementEnv`).
#[pyclass(module = "frugal_sched._native")]
struct Env {
    inner: SparkPlacementEnv,
}

#[pymethods]
impl Env {
    #[new]
    #[pyo3(signature = (pattern="burst", split="train", mode="masked", beta=0.5, cluster="paper002-cloud", pricing="real", workload_seed=1, protocol="held-out", jobs="swim"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        pattern: &str,
        split: &str,
        mode: &str,
        beta: f64,
        cluster: &str,
        pricing: &str,
        workload_seed: u64,
        protocol: &str,
        jobs: &str,
    ) -> PyResult<Self> {
        let cfg = config(&Settings {
            pattern,
            split,
            mode,
            beta,
            cluster,
            pricing,
            workload_seed,
            protocol,
            jobs,
        })?;
        Ok(Env {
            inner: SparkPlacementEnv::new(cfg).map_err(value_error)?,
        })
    }

    /// N + 1.
    #[getter]
    fn action_count(&self) -> usize {
        self.inner.action_count()
    }

    /// The observation's normalisers (largest VM's cores and MiB, highest price in $/s,
    /// largest executor count), as a frugal checkpoint records them.
    fn observation_scale<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.observation_scale();
        let d = PyDict::new(py);
        d.set_item("cores", s.cores)?;
        d.set_item("memory_mib", s.memory_mib)?;
        d.set_item("price", s.price)?;
        d.set_item("executors", s.executors)?;
        Ok(d)
    }

    /// 3N + 6.
    #[getter]
    fn observation_len(&self) -> usize {
        self.inner.observation_len()
    }

    /// Starts an episode; returns the observation (float32, shape (3N+6,)).
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, self.inner.reset(seed))
    }

    /// A text picture of the state (render_mode "ansi").
    fn render_text(&self) -> String {
        self.inner.render_text()
    }

    /// Takes an action; returns (observation, reward, terminated, truncated).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action: usize,
    ) -> PyResult<(Bound<'py, PyArray1<f32>>, f64, bool, bool)> {
        let s = self.inner.step(action).map_err(value_error)?;
        Ok((
            PyArray1::from_slice(py, self.inner.observation()),
            s.reward,
            s.terminated,
            s.truncated,
        ))
    }

    /// Feasible actions (bool, shape (N+1,)).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, self.inner.action_mask())
    }

    /// Cost, time and job KPIs so far.
    fn kpis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        kpis(py, &self.inner)
    }
}

/// N environments stepped in one call, resetting each as soon as its episode ends.
#[pyclass(module = "frugal_sched._native")]
struct VecEnv {
    envs: Vec<SparkPlacementEnv>,
    obs: Vec<f32>,
}

impl VecEnv {
    fn write_obs(&mut self, i: usize) {
        let d = self.envs[i].observation_len();
        self.obs[i * d..(i + 1) * d].copy_from_slice(self.envs[i].observation());
    }

    fn obs_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let d = self.envs[0].observation_len();
        PyArray1::from_slice(py, &self.obs).reshape([self.envs.len(), d])
    }
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (num_envs, pattern="burst", split="train", mode="masked", beta=0.5, cluster="paper002-cloud", pricing="real", workload_seed=1, protocol="held-out", jobs="swim"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        num_envs: usize,
        pattern: &str,
        split: &str,
        mode: &str,
        beta: f64,
        cluster: &str,
        pricing: &str,
        workload_seed: u64,
        protocol: &str,
        jobs: &str,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(value_error("num_envs must be ≥ 1"));
        }
        let cfg = config(&Settings {
            pattern,
            split,
            mode,
            beta,
            cluster,
            pricing,
            workload_seed,
            protocol,
            jobs,
        })?;
        let envs = (0..num_envs)
            .map(|_| SparkPlacementEnv::new(cfg.clone()).map_err(value_error))
            .collect::<PyResult<Vec<_>>>()?;
        let d = envs[0].observation_len();
        Ok(VecEnv {
            obs: vec![0.0; num_envs * d],
            envs,
        })
    }

    /// Resets every environment (environment i with seed + i when a seed is given);
    /// returns observations of shape (N_envs, 3N+6).
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        for i in 0..self.envs.len() {
            self.envs[i].reset(seed.map(|s| s + i as u64));
            self.write_obs(i);
        }
        self.obs_array(py)
    }

    /// Steps every environment with `actions` (int64, shape (N_envs,)); returns
    /// (observations, rewards, terminated, truncated). An environment whose episode ended
    /// is reset at once and its new first observation returned.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let actions = actions.as_slice()?;
        if actions.len() != self.envs.len() {
            return Err(value_error(format!(
                "expected {} actions, got {}",
                self.envs.len(),
                actions.len()
            )));
        }
        let n = self.envs.len();
        let (mut rewards, mut terminated, mut truncated) =
            (vec![0.0; n], vec![false; n], vec![false; n]);
        for i in 0..n {
            let a = usize::try_from(actions[i])
                .map_err(|_| value_error(format!("negative action {}", actions[i])))?;
            let s = self.envs[i].step(a).map_err(value_error)?;
            rewards[i] = s.reward;
            terminated[i] = s.terminated;
            truncated[i] = s.truncated;
            if s.terminated || s.truncated {
                self.envs[i].reset(None);
            }
            self.write_obs(i);
        }
        Ok((
            self.obs_array(py)?,
            PyArray1::from_vec(py, rewards),
            PyArray1::from_vec(py, terminated),
            PyArray1::from_vec(py, truncated),
        ))
    }

    /// Feasible actions of every environment (bool, shape (N_envs, N+1)).
    fn action_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let a = self.envs[0].action_count();
        let flat: Vec<bool> = self
            .envs
            .iter()
            .flat_map(|e| e.action_mask().iter().copied())
            .collect();
        PyArray1::from_vec(py, flat).reshape([self.envs.len(), a])
    }

    /// Number of environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.envs.len()
    }

    /// N + 1.
    #[getter]
    fn action_count(&self) -> usize {
        self.envs[0].action_count()
    }

    /// 3N + 6.
    #[getter]
    fn observation_len(&self) -> usize {
        self.envs[0].observation_len()
    }
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Env>()?;
    m.add_class::<VecEnv>()?;
    m.add_function(wrap_pyfunction!(runs::simulate_csv, m)?)?;
    m.add_function(wrap_pyfunction!(runs::bag_of_tasks_csv, m)?)?;
    m.add_function(wrap_pyfunction!(runs::ephemeral_csv, m)?)?;
    m.add_function(wrap_pyfunction!(runs::run_experiments, m)?)?;
    m.add_function(wrap_pyfunction!(spot::spot_csv, m)?)?;
    m.add_function(wrap_pyfunction!(zones::zones_csv, m)?)?;
    m.add_function(wrap_pyfunction!(zones::zone_names, m)?)?;
    Ok(())
}

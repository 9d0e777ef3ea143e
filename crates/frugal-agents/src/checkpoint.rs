//! Trained networks on disk: `<path>` holds the weights (safetensors), `<path>.json` what
//! is needed to use them (agent, widths, observation scale, training settings).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use frugal_env::observation::{ObservationScale, observation_len};
use safetensors::{Dtype, SafeTensors, tensor::TensorView};

use crate::mlp::{Mlp, PARAMETER_NAMES};
use crate::{AgentKind, TrainingError};

/// What a checkpoint holds besides the weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Algorithm that trained it.
    pub agent: AgentKind,
    /// Number of VMs of the training cluster (the network has N + 1 outputs).
    pub vms: usize,
    /// Hidden units.
    pub hidden: usize,
    /// Observation normalisers used in training.
    pub scale: ObservationScale,
    /// Free-form training settings (β, pattern, iterations, seed…), for the record.
    pub training: Value,
}

fn meta_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".json");
    PathBuf::from(p)
}

/// One point of a learning curve, as `frugal train` records it in the checkpoint: the
/// greedy evaluation episode after `iteration` training iterations, and the mean return
/// of the training episodes since the previous point.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize)]
pub struct CurvePoint {
    /// Training iterations done.
    pub iteration: u64,
    /// Mean undiscounted return of the training episodes since the previous point (empty
    /// when none ended, e.g. DQN between long episodes).
    pub train_return: Option<f64>,
    /// Undiscounted return of the greedy evaluation episode.
    pub eval_return: f64,
    /// Its bill, dollars.
    pub eval_cost_usd: f64,
    /// Its mean job completion time, seconds.
    pub eval_mean_jct_s: f64,
    /// Its mean job run time (paper 002 Avg_T), seconds.
    pub eval_mean_run_s: f64,
}

impl Checkpoint {
    /// The learning curve stored with the checkpoint (`training.curve`; empty if none).
    ///
    /// # Errors
    /// [`TrainingError::Checkpoint`] if the curve is malformed.
    pub fn curve(&self) -> Result<Vec<CurvePoint>, TrainingError> {
        match self.training.get("curve") {
            None => Ok(Vec::new()),
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| TrainingError::Checkpoint(format!("training.curve: {e}"))),
        }
    }

    /// Writes `net` to `path` and this description to `path.json`.
    ///
    /// # Errors
    /// [`TrainingError`] on I/O errors.
    pub fn save(&self, net: &Mlp, path: &Path) -> Result<(), TrainingError> {
        save_weights(net, path)?;
        let meta = json!({
            "agent": self.agent,
            "vms": self.vms,
            "hidden": self.hidden,
            "scale": self.scale.to_json(),
            "training": self.training,
        });
        let text = serde_json::to_string_pretty(&meta).expect("JSON values serialise");
        std::fs::write(meta_path(path), text + "\n")
            .map_err(|e| TrainingError::Checkpoint(format!("{}: {e}", meta_path(path).display())))
    }

    /// Reads `path.json` and the weights at `path`.
    ///
    /// # Errors
    /// [`TrainingError::Checkpoint`] naming the file and field (or tensor) that is missing
    /// or invalid.
    pub fn load(path: &Path) -> Result<(Checkpoint, Mlp), TrainingError> {
        let mp = meta_path(path);
        let err = |m: String| TrainingError::Checkpoint(format!("{}: {m}", mp.display()));
        let text = std::fs::read_to_string(&mp).map_err(|e| err(e.to_string()))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| err(e.to_string()))?;
        let agent: AgentKind =
            serde_json::from_value(v["agent"].clone()).map_err(|e| err(format!("agent: {e}")))?;
        let field = |k: &str| {
            v[k].as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| err(format!("{k}: missing or not a count")))
        };
        let (vms, hidden) = (field("vms")?, field("hidden")?);
        let scale = ObservationScale::from_json(&v["scale"])
            .ok_or_else(|| err("scale: missing or invalid".into()))?;
        let net = load_weights(path, (observation_len(vms), hidden, vms + 1))?;
        Ok((
            Checkpoint {
                agent,
                vms,
                hidden,
                scale,
                training: v["training"].clone(),
            },
            net,
        ))
    }
}

/// Writes the four parameter blocks as little-endian f32 safetensors.
fn save_weights(net: &Mlp, path: &Path) -> Result<(), TrainingError> {
    let err = |m: String| TrainingError::Checkpoint(format!("{}: {m}", path.display()));
    let bytes: Vec<(&str, Vec<u8>, Vec<usize>)> = PARAMETER_NAMES
        .iter()
        .map(|&name| {
            let (values, shape) = net.block(name);
            let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            (name, raw, shape)
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(name, raw, shape)| {
            TensorView::new(Dtype::F32, shape.clone(), raw).map(|v| (*name, v))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| err(e.to_string()))?;
    safetensors::serialize_to_file(views, None, path).map_err(|e| err(e.to_string()))
}

/// Reads a network of widths `dims` from a safetensors file holding the four blocks.
fn load_weights(path: &Path, dims: (usize, usize, usize)) -> Result<Mlp, TrainingError> {
    let err = |m: String| TrainingError::Checkpoint(format!("{}: {m}", path.display()));
    let data = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let file = SafeTensors::deserialize(&data).map_err(|e| err(e.to_string()))?;
    let mut net = Mlp::new(dims.0, dims.1, dims.2, 0);
    for name in PARAMETER_NAMES {
        let (_, shape) = net.block(name);
        let t = file
            .tensor(name)
            .map_err(|e| err(format!("tensor {name}: {e}")))?;
        if t.dtype() != Dtype::F32 || t.shape() != shape.as_slice() {
            return Err(err(format!(
                "tensor {name}: {:?} {:?}, expected F32 {shape:?}",
                t.dtype(),
                t.shape()
            )));
        }
        for (v, b) in net.block_mut(name).iter_mut().zip(t.data().chunks_exact(4)) {
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    Ok(net)
}

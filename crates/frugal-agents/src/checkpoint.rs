//! Trained networks on disk: `<path>` holds the weights (safetensors), `<path>.json` what
//! is needed to use them (agent, widths, observation scale, training settings).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use frugal_env::observation::ObservationScale;

use crate::mlp::Mlp;
use crate::{AgentError, AgentKind};

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

impl Checkpoint {
    /// Writes `net` to `path` and this description to `path.json`.
    ///
    /// # Errors
    /// [`AgentError`] on I/O errors.
    pub fn save(&self, net: &Mlp, path: &Path) -> Result<(), AgentError> {
        net.save(path)?;
        let meta = json!({
            "agent": self.agent,
            "vms": self.vms,
            "hidden": self.hidden,
            "scale": self.scale.to_json(),
            "training": self.training,
        });
        let text = serde_json::to_string_pretty(&meta).expect("JSON values serialise");
        std::fs::write(meta_path(path), text + "\n")
            .map_err(|e| AgentError::Checkpoint(format!("{}: {e}", meta_path(path).display())))
    }

    /// Reads `path.json` and the weights at `path`.
    ///
    /// # Errors
    /// [`AgentError::Checkpoint`] naming the file and field that is missing or invalid;
    /// [`AgentError::Net`] if the weights do not load.
    pub fn load(path: &Path) -> Result<(Checkpoint, Mlp), AgentError> {
        let mp = meta_path(path);
        let err = |m: String| AgentError::Checkpoint(format!("{}: {m}", mp.display()));
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
        let mut net = Mlp::new(
            frugal_env::observation::observation_len(vms),
            hidden,
            vms + 1,
            0,
        )?;
        net.load(path)?;
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

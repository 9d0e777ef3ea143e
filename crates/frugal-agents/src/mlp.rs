//! The agents' network: one hidden layer of ReLU units (paper 002 Table 5: a fully
//! connected layer of 200), trained with candle and evaluated by a plain forward pass.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Module, Tensor, Var};
use candle_nn::{AdamW, Linear, Optimizer, ParamsAdamW, VarBuilder, VarMap, linear};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{AgentError, TrainConfig};

/// A trainable two-layer perceptron `inputs → hidden (ReLU) → outputs`.
pub struct Mlp {
    /// The parameters, by name (`l1.weight`, `l1.bias`, `l2.weight`, `l2.bias`).
    pub varmap: VarMap,
    l1: Linear,
    l2: Linear,
    /// Input, hidden and output widths.
    pub dims: (usize, usize, usize),
}

impl Mlp {
    /// A network with weights drawn from U(−1/√fan_in, 1/√fan_in) by a generator seeded
    /// with `seed` (candle's own initialisers are not seedable).
    ///
    /// # Errors
    /// [`AgentError::Net`] if candle fails.
    pub fn new(inputs: usize, hidden: usize, outputs: usize, seed: u64) -> Result<Mlp, AgentError> {
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let l1 = linear(inputs, hidden, vb.pp("l1"))?;
        let l2 = linear(hidden, outputs, vb.pp("l2"))?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (name, var) in sorted_vars(&varmap) {
            let fan_in = if name.starts_with("l1") {
                inputs
            } else {
                hidden
            } as f32;
            let bound = 1.0 / fan_in.sqrt();
            let n = var.elem_count();
            let values: Vec<f32> = (0..n).map(|_| rng.random_range(-bound..bound)).collect();
            var.set(&Tensor::from_vec(values, var.shape(), &Device::Cpu)?)?;
        }
        Ok(Mlp {
            varmap,
            l1,
            l2,
            dims: (inputs, hidden, outputs),
        })
    }

    /// A network of `cfg.hidden` units seeded with `cfg.seed`, and an Adam optimiser (no
    /// weight decay) at `cfg.learning_rate` over its parameters.
    ///
    /// # Errors
    /// [`AgentError::Net`] if candle fails.
    pub fn with_adam(
        inputs: usize,
        cfg: &TrainConfig,
        outputs: usize,
    ) -> Result<(Mlp, AdamW), AgentError> {
        let net = Mlp::new(inputs, cfg.hidden, outputs, cfg.seed)?;
        let params = ParamsAdamW {
            lr: cfg.learning_rate,
            weight_decay: 0.0,
            ..Default::default()
        };
        let opt = AdamW::new(net.varmap.all_vars(), params)?;
        Ok((net, opt))
    }

    /// Batched forward pass: `x` of shape (batch, inputs) to (batch, outputs).
    ///
    /// # Errors
    /// [`AgentError::Net`] on a shape mismatch.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor, AgentError> {
        Ok(self.l2.forward(&self.l1.forward(x)?.relu()?)?)
    }

    /// Copies every parameter of `other` (same shapes) into this network.
    ///
    /// # Errors
    /// [`AgentError::Net`] if the networks differ.
    pub fn copy_from(&self, other: &Mlp) -> Result<(), AgentError> {
        let theirs: HashMap<String, Var> = sorted_vars(&other.varmap).into_iter().collect();
        for (name, var) in sorted_vars(&self.varmap) {
            let src = theirs
                .get(&name)
                .ok_or_else(|| AgentError::Checkpoint(format!("no parameter {name}")))?;
            var.set(&src.as_tensor().copy()?)?;
        }
        Ok(())
    }

    /// The weights as plain vectors for fast single-sample inference.
    ///
    /// # Errors
    /// [`AgentError::Net`] if candle fails.
    pub fn weights(&self) -> Result<Weights, AgentError> {
        let w = |l: &Linear| -> Result<(Vec<f32>, Vec<f32>), AgentError> {
            let weight = l.weight().flatten_all()?.to_vec1::<f32>()?;
            let bias = l
                .bias()
                .map(|b| b.to_vec1::<f32>())
                .transpose()?
                .unwrap_or_default();
            Ok((weight, bias))
        };
        let (w1, b1) = w(&self.l1)?;
        let (w2, b2) = w(&self.l2)?;
        Ok(Weights {
            w1,
            b1,
            w2,
            b2,
            dims: self.dims,
            hidden: vec![0.0; self.dims.1],
        })
    }

    /// Saves the parameters as safetensors.
    ///
    /// # Errors
    /// [`AgentError::Net`] on an I/O error.
    pub fn save(&self, path: &Path) -> Result<(), AgentError> {
        Ok(self.varmap.save(path)?)
    }

    /// Loads parameters saved by [`Mlp::save`] into a network of the same shape.
    ///
    /// # Errors
    /// [`AgentError::Net`] if the file is unreadable or the shapes differ.
    pub fn load(&mut self, path: &Path) -> Result<(), AgentError> {
        Ok(self.varmap.load(path)?)
    }
}

fn sorted_vars(varmap: &VarMap) -> Vec<(String, Var)> {
    let data = varmap
        .data()
        .lock()
        .expect("the var map lock is never poisoned");
    let mut v: Vec<(String, Var)> = data.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Plain-Rust copy of an [`Mlp`]'s weights (row-major, weight matrices (out, in)).
#[derive(Clone, Debug)]
pub struct Weights {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: Vec<f32>,
    dims: (usize, usize, usize),
    hidden: Vec<f32>,
}

impl Weights {
    /// Forward pass of one input (length `inputs`) into `out` (length `outputs`).
    pub fn forward(&mut self, x: &[f32], out: &mut [f32]) {
        let (i, h, o) = self.dims;
        for (r, hv) in self.hidden.iter_mut().enumerate() {
            let row = &self.w1[r * i..(r + 1) * i];
            let s: f32 = row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>() + self.b1[r];
            *hv = s.max(0.0);
        }
        for (r, ov) in out.iter_mut().enumerate().take(o) {
            let row = &self.w2[r * h..(r + 1) * h];
            *ov = row
                .iter()
                .zip(&self.hidden)
                .map(|(w, v)| w * v)
                .sum::<f32>()
                + self.b2[r];
        }
    }
}

/// Index of the largest `values[a]` with `mask[a]`, ties to the lowest index.
pub fn masked_argmax(values: &[f32], mask: &[bool]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (a, (&v, &ok)) in values.iter().zip(mask).enumerate() {
        if ok && best.is_none_or(|(_, b)| v > b) {
            best = Some((a, v));
        }
    }
    best.map(|(a, _)| a)
}

//! The agents' network: one hidden layer of ReLU units (paper 002 Table 5: a fully
//! connected layer of 200), its gradient and the Adam optimiser, in plain Rust.
//!
//! Why not a tensor library: the network is two small matrices (11,213 parameters on the
//! Table 4 cluster) and training is one forward pass per environment step. Profiled on the
//! burst pattern, REINFORCE with candle spent 36 ms per iteration (10 episodes), most of it
//! in allocating and page-faulting fresh tensors for the batched backward pass and in a
//! per-step forward that reduced short dot products; these loops, which keep activations
//! from the collection and skip zero inputs and inactive ReLUs, take a third of that
//! (`frugal bench --sections training` prints the figure). The loops are element-wise
//! (`y += a·x`, never a sum across vector lanes, never a fused multiply-add), so the AVX2
//! build of them that runs where the CPU has it gives the same bits as the baseline one:
//! training is bit-for-bit the same on every x86-64 machine.
//!
//! Parameters are stored as safetensors-compatible row-major matrices: `l1.weight`
//! (hidden × inputs), `l1.bias`, `l2.weight` (outputs × hidden), `l2.bias`.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A two-layer perceptron `inputs → hidden (ReLU) → outputs` with flat parameters
/// `[l1.weight | l1.bias | l2.weight | l2.bias]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    /// Input, hidden and output widths.
    pub dims: (usize, usize, usize),
    params: Vec<f32>,
}

/// The four parameter blocks of an [`Mlp`], in file order.
pub const PARAMETER_NAMES: [&str; 4] = ["l1.bias", "l1.weight", "l2.bias", "l2.weight"];

impl Mlp {
    /// A network with weights drawn from U(−1/√fan_in, 1/√fan_in) by a generator seeded
    /// with `seed`, block by block in [`PARAMETER_NAMES`] order.
    pub fn new(inputs: usize, hidden: usize, outputs: usize, seed: u64) -> Mlp {
        let mut net = Mlp {
            dims: (inputs, hidden, outputs),
            params: vec![0.0; parameter_count((inputs, hidden, outputs))],
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for name in PARAMETER_NAMES {
            let fan_in = if name.starts_with("l1") {
                inputs
            } else {
                hidden
            } as f32;
            let bound = 1.0 / fan_in.sqrt();
            for v in net.block_mut(name) {
                *v = rng.random_range(-bound..bound);
            }
        }
        net
    }

    /// The parameter block `name` (one of [`PARAMETER_NAMES`]) and its shape.
    pub fn block(&self, name: &str) -> (&[f32], Vec<usize>) {
        let (range, shape) = layout(self.dims, name);
        (&self.params[range], shape)
    }

    /// The parameter block `name`, mutable.
    ///
    /// # Panics
    /// For a name outside [`PARAMETER_NAMES`].
    pub fn block_mut(&mut self, name: &str) -> &mut [f32] {
        let (range, _) = layout(self.dims, name);
        &mut self.params[range]
    }

    /// Every parameter, flat.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// Every parameter, flat and mutable (for the optimiser).
    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// The weights laid out for fast single-sample inference.
    pub fn weights(&self) -> Weights {
        let (i, h, o) = self.dims;
        let (w1, _) = self.block("l1.weight");
        let (w2, _) = self.block("l2.weight");
        Weights {
            w1t: transpose(w1, h, i),
            b1: self.block("l1.bias").0.to_vec(),
            w2t: transpose(w2, o, h),
            b2: self.block("l2.bias").0.to_vec(),
            dims: self.dims,
            hidden: vec![0.0; h],
        }
    }

    /// Adds to `grad` (laid out as the parameters) the gradient of Σ_t ⟨dz_t, z_t⟩, where
    /// z_t are the outputs for the inputs `x_t` (rows of `x`, length `inputs`) whose
    /// hidden activations were `h_t` (rows of `h`, after the ReLU). `dz` has a row of
    /// `outputs` per sample. `dh` is scratch of length `hidden`.
    pub fn backward(&self, x: &[f32], h: &[f32], dz: &[f32], grad: &mut [f32], dh: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.backward_avx2(x, h, dz, grad, dh) };
        }
        self.backward_body(x, h, dz, grad, dh);
    }

    /// [`Mlp::backward`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn backward_avx2(&self, x: &[f32], h: &[f32], dz: &[f32], grad: &mut [f32], dh: &mut Vec<f32>) {
        self.backward_body(x, h, dz, grad, dh);
    }

    #[inline(always)]
    fn backward_body(&self, x: &[f32], h: &[f32], dz: &[f32], grad: &mut [f32], dh: &mut Vec<f32>) {
        let (ni, nh, no) = self.dims;
        dh.resize(nh, 0.0);
        let w2 = self.block("l2.weight").0;
        let (g_w1, rest) = grad.split_at_mut(nh * ni);
        let (g_b1, rest) = rest.split_at_mut(nh);
        let (g_w2, g_b2) = rest.split_at_mut(no * nh);
        // ∂/∂W1 is accumulated transposed (inputs × hidden) so the inner loops run over
        // the hidden width; it is transposed back at the end.
        let mut g_w1t = vec![0.0f32; ni * nh];
        for ((xt, ht), dzt) in x
            .chunks_exact(ni)
            .zip(h.chunks_exact(nh))
            .zip(dz.chunks_exact(no))
        {
            dh.iter_mut().for_each(|v| *v = 0.0);
            for (k, &d) in dzt.iter().enumerate() {
                if d == 0.0 {
                    continue;
                }
                g_b2[k] += d;
                axpy(d, ht, &mut g_w2[k * nh..(k + 1) * nh]);
                axpy(d, &w2[k * nh..(k + 1) * nh], dh);
            }
            for (d, &a) in dh.iter_mut().zip(ht) {
                if a <= 0.0 {
                    *d = 0.0;
                }
            }
            for (g, &d) in g_b1.iter_mut().zip(dh.iter()) {
                *g += d;
            }
            for (k, &v) in xt.iter().enumerate() {
                if v != 0.0 {
                    axpy(v, dh, &mut g_w1t[k * nh..(k + 1) * nh]);
                }
            }
        }
        for (r, row) in g_w1.chunks_exact_mut(ni).enumerate() {
            for (c, g) in row.iter_mut().enumerate() {
                *g += g_w1t[c * nh + r];
            }
        }
    }
}

/// Number of parameters of a network of widths `dims`.
pub fn parameter_count((i, h, o): (usize, usize, usize)) -> usize {
    h * i + h + o * h + o
}

fn layout((i, h, o): (usize, usize, usize), name: &str) -> (std::ops::Range<usize>, Vec<usize>) {
    let (w1, b1, w2) = (h * i, h, o * h);
    match name {
        "l1.weight" => (0..w1, vec![h, i]),
        "l1.bias" => (w1..w1 + b1, vec![h]),
        "l2.weight" => (w1 + b1..w1 + b1 + w2, vec![o, h]),
        "l2.bias" => (w1 + b1 + w2..w1 + b1 + w2 + o, vec![o]),
        _ => panic!("no parameter block {name}"),
    }
}

fn transpose(m: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; m.len()];
    for r in 0..rows {
        for c in 0..cols {
            t[c * rows + r] = m[r * cols + c];
        }
    }
    t
}

/// y += a·x, element by element: no sum across lanes, so any vector width gives the same
/// bits (and Rust never fuses the multiply and add into an FMA).
#[inline(always)]
fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (yv, &xv) in y.iter_mut().zip(x) {
        *yv += a * xv;
    }
}

/// An [`Mlp`]'s weights transposed for single-sample inference: the forward pass is a sum
/// of weight rows scaled by the non-zero inputs (and active hidden units), which skips the
/// observation's zeros (full VMs, the kind one-hot) and about half the hidden layer.
#[derive(Clone, Debug)]
pub struct Weights {
    w1t: Vec<f32>,
    b1: Vec<f32>,
    w2t: Vec<f32>,
    b2: Vec<f32>,
    dims: (usize, usize, usize),
    hidden: Vec<f32>,
}

impl Weights {
    /// Forward pass of one input (length `inputs`) into `out` (length `outputs`).
    pub fn forward(&mut self, x: &[f32], out: &mut [f32]) {
        let mut hidden = std::mem::take(&mut self.hidden);
        self.forward_keep(x, &mut hidden, out);
        self.hidden = hidden;
    }

    /// Forward pass that also returns the hidden activations (after the ReLU) in
    /// `hidden` (length `hidden`), as the gradient needs them.
    pub fn forward_keep(&self, x: &[f32], hidden: &mut [f32], out: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.forward_avx2(x, hidden, out) };
        }
        self.forward_body(x, hidden, out);
    }

    /// [`Weights::forward_keep`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn forward_avx2(&self, x: &[f32], hidden: &mut [f32], out: &mut [f32]) {
        self.forward_body(x, hidden, out);
    }

    #[inline(always)]
    fn forward_body(&self, x: &[f32], hidden: &mut [f32], out: &mut [f32]) {
        let (_, nh, no) = self.dims;
        hidden.copy_from_slice(&self.b1);
        for (k, &v) in x.iter().enumerate() {
            if v != 0.0 {
                axpy(v, &self.w1t[k * nh..(k + 1) * nh], hidden);
            }
        }
        out.copy_from_slice(&self.b2);
        for (j, a) in hidden.iter_mut().enumerate() {
            if *a > 0.0 {
                axpy(*a, &self.w2t[j * no..(j + 1) * no], out);
            } else {
                *a = 0.0;
            }
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

/// Adam (Kingma and Ba, ICLR 2015, Algorithm 1) without weight decay: β1 = 0.9,
/// β2 = 0.999, ε = 1e-8, bias-corrected moments.
#[derive(Clone, Debug)]
pub struct Adam {
    lr: f64,
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    const B1: f64 = 0.9;
    const B2: f64 = 0.999;
    const EPS: f64 = 1e-8;

    /// An optimiser for `n` parameters at learning rate `lr`.
    pub fn new(n: usize, lr: f64) -> Adam {
        Adam {
            lr,
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One descent step of `params` along `grad` (the gradient of the loss).
    pub fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        self.t += 1;
        let c1 = 1.0 - Self::B1.powi(self.t);
        let c2 = 1.0 - Self::B2.powi(self.t);
        let (b1, b2) = (Self::B1 as f32, Self::B2 as f32);
        let step = (self.lr / c1) as f32;
        let c2 = c2 as f32;
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *p -= step * *m / ((*v / c2).sqrt() + Self::EPS as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loss Σ_t ⟨dz_t, z_t⟩ of a batch, computed from scratch in f64.
    fn loss(net: &Mlp, x: &[f32], dz: &[f32]) -> f64 {
        let (ni, nh, no) = net.dims;
        let w = net.weights();
        let (mut h, mut z) = (vec![0.0; nh], vec![0.0; no]);
        let mut s = 0.0;
        for (xt, dzt) in x.chunks_exact(ni).zip(dz.chunks_exact(no)) {
            w.forward_keep(xt, &mut h, &mut z);
            s += z
                .iter()
                .zip(dzt)
                .map(|(a, b)| f64::from(a * b))
                .sum::<f64>();
        }
        s
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let net = Mlp::new(5, 7, 3, 11);
        let x: Vec<f32> = (0..4 * 5)
            .map(|k| ((k * 37 % 11) as f32 - 3.0) / 7.0)
            .collect();
        let dz: Vec<f32> = (0..4 * 3)
            .map(|k| ((k * 13 % 7) as f32 - 3.0) / 5.0)
            .collect();
        let w = net.weights();
        let mut h = vec![0.0; 4 * 7];
        let mut z = vec![0.0; 3];
        for (xt, ht) in x.chunks_exact(5).zip(h.chunks_exact_mut(7)) {
            w.forward_keep(xt, ht, &mut z);
        }
        let mut grad = vec![0.0; net.params().len()];
        net.backward(&x, &h, &dz, &mut grad, &mut Vec::new());
        for (p, &analytic) in grad.iter().enumerate() {
            let (mut up, mut down) = (net.clone(), net.clone());
            up.params_mut()[p] += 1e-2;
            down.params_mut()[p] -= 1e-2;
            let numeric = (loss(&up, &x, &dz) - loss(&down, &x, &dz)) / 2e-2;
            assert!(
                (numeric - f64::from(analytic)).abs() < 2e-3,
                "parameter {p}: analytic {analytic} numeric {numeric}"
            );
        }
    }

    #[test]
    fn the_fast_forward_pass_is_the_textbook_one() {
        let net = Mlp::new(4, 6, 2, 3);
        let x = [0.5, 0.0, -1.0, 0.25];
        let (w1, _) = net.block("l1.weight");
        let (b1, _) = net.block("l1.bias");
        let (w2, _) = net.block("l2.weight");
        let (b2, _) = net.block("l2.bias");
        let h: Vec<f32> = (0..6)
            .map(|r| (b1[r] + (0..4).map(|c| w1[r * 4 + c] * x[c]).sum::<f32>()).max(0.0))
            .collect();
        let want: Vec<f32> = (0..2)
            .map(|o| b2[o] + (0..6).map(|r| w2[o * 6 + r] * h[r]).sum::<f32>())
            .collect();
        let mut out = [0.0; 2];
        net.weights().forward(&x, &mut out);
        for (a, b) in out.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{out:?} vs {want:?}");
        }
    }

    #[test]
    fn adam_takes_a_learning_rate_sized_first_step() {
        // With bias correction the first step is lr · g/|g| per coordinate.
        let mut p = vec![1.0f32, -2.0];
        let mut adam = Adam::new(2, 0.01);
        adam.step(&mut p, &[0.5, -3.0]);
        assert!(
            (p[0] - 0.99).abs() < 1e-6 && (p[1] + 1.99).abs() < 1e-6,
            "{p:?}"
        );
    }

    #[test]
    fn masked_argmax_skips_masked_actions_and_breaks_ties_low() {
        assert_eq!(
            masked_argmax(&[3.0, 1.0, 2.0], &[false, true, true]),
            Some(2)
        );
        assert_eq!(masked_argmax(&[1.0, 1.0], &[true, true]), Some(0));
        assert_eq!(masked_argmax(&[1.0], &[false]), None);
    }
}

//! Max-min fair sharing of links (paper 001 §IV-A: every host has a dedicated 50 Mbps
//! link; SimGrid shares links max-min fairly).
//!
//! Topology (not stated; spec A10, frugal's choice): a star through a non-blocking
//! switch. Each host's link is full duplex — one 50 Mbit/s capacity up, one down — and the
//! client that uploads the input has its own 50 Mbit/s up-link. The 10 µs latency is
//! ignored (a 128 MiB chunk takes 21 s on such a link).

/// Mbit/s of every link (§IV-A).
pub const LINK_MBPS: f64 = 50.0;

/// Bytes per second of one link.
pub fn link_bytes_per_s() -> f64 {
    LINK_MBPS * 1e6 / 8.0
}

/// Max-min fair rates of `flows` (each the list of links it crosses) over links of
/// capacity `capacity` (bytes/s), by progressive filling: repeatedly the link with the
/// smallest fair share fixes the rate of every unfixed flow through it. A flow that
/// crosses no link gets `f64::INFINITY`. Ties are broken by the lowest link index, which
/// does not change the result (max-min fair rates are unique).
pub fn max_min(flows: &[&[usize]], capacity: &[f64]) -> Vec<f64> {
    let mut rate = vec![f64::NAN; flows.len()];
    let mut left = capacity.to_vec();
    let mut count = vec![0usize; capacity.len()];
    for f in flows {
        for &l in *f {
            count[l] += 1;
        }
    }
    for (i, f) in flows.iter().enumerate() {
        if f.is_empty() {
            rate[i] = f64::INFINITY;
        }
    }
    loop {
        let Some((link, share)) = count
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(l, &c)| (l, left[l].max(0.0) / c as f64))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        else {
            return rate;
        };
        for (i, f) in flows.iter().enumerate() {
            if rate[i].is_nan() && f.contains(&link) {
                rate[i] = share;
                for &l in *f {
                    left[l] -= share;
                    count[l] -= 1;
                }
            }
        }
    }
}

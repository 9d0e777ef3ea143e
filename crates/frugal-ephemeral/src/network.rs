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

/// The planner's estimate of a shuffle's duration, seconds: the busiest link's bytes over
/// its capacity, max over hosts k of max(out_k, in_k) / [`link_bytes_per_s`].
///
/// `map_output` is the bytes of map output on each host (O_k, total O) and `reduces` the
/// reduces on each host (r_k, total R). As the runtime models it ([`crate::runtime`]),
/// every reduce receives O_j/R bytes from every other host j, all flows starting when the
/// job's last map ends, so host k sends out_k = O_k (R − r_k)/R on its up-link and
/// receives in_k = r_k (O − O_k)/R on its down-link. No schedule of these flows ends
/// sooner, so this is a lower bound on the runtime's max-min fair shuffle; the two agree
/// when one link is the bottleneck of every flow through it (the planned-against-realised
/// table of `frugal ephemeral` measures the difference). 0 when there are no reduces.
pub fn shuffle_lower_bound_s(map_output: &[f64], reduces: &[usize]) -> f64 {
    let r_total: usize = reduces.iter().sum();
    if r_total == 0 {
        return 0.0;
    }
    let r_total = r_total as f64;
    let o_total: f64 = map_output.iter().sum();
    map_output
        .iter()
        .zip(reduces)
        .map(|(&o, &r)| {
            let r = r as f64;
            let out = o * (r_total - r) / r_total;
            let inn = r * (o_total - o) / r_total;
            out.max(inn)
        })
        .fold(0.0, f64::max)
        / link_bytes_per_s()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_bound_is_the_busiest_link() {
        let b = link_bytes_per_s();
        // Every output on host 0, both reduces on host 1: 4 s of bytes leave host 0 and
        // enter host 1.
        assert_eq!(shuffle_lower_bound_s(&[4.0 * b, 0.0], &[0, 2]), 4.0);
        // Half the output and one reduce on each host: each sends the other's reduce half
        // of its output, 2 s each way, which two disjoint flows take exactly.
        assert_eq!(shuffle_lower_bound_s(&[4.0 * b, 4.0 * b], &[1, 1]), 2.0);
        let rates = max_min(&[&[0, 3], &[2, 1]], &[b; 4]);
        assert_eq!(2.0 * b / rates[0], 2.0);
        // Output and reduce on the same host: nothing moves.
        assert_eq!(shuffle_lower_bound_s(&[4.0 * b, 0.0], &[2, 0]), 0.0);
        assert_eq!(shuffle_lower_bound_s(&[4.0 * b], &[0]), 0.0);
    }
}

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

/// Bytes each host sends on its up-link and receives on its down-link in one job's
/// shuffle, `(out_k, in_k)`.
///
/// `map_output` is the bytes of map output on each host (O_k, total O) and `reduces` the
/// reduces on each host (r_k, total R). As the runtime models it ([`crate::runtime`]),
/// every reduce receives O_j/R bytes from every other host j, all flows starting when the
/// job's last map ends, so host k sends out_k = O_k (R − r_k)/R and receives
/// in_k = r_k (O − O_k)/R. Nothing moves without reduces.
pub fn shuffle_bytes(map_output: &[f64], reduces: &[usize]) -> Vec<(f64, f64)> {
    let r_total = reduces.iter().sum::<usize>() as f64;
    let o_total: f64 = map_output.iter().sum();
    map_output
        .iter()
        .zip(reduces)
        .map(|(&o, &r)| {
            if r_total == 0.0 {
                return (0.0, 0.0);
            }
            let r = r as f64;
            (o * (r_total - r) / r_total, r * (o_total - o) / r_total)
        })
        .collect()
}

/// The planner's estimate of a shuffle's duration, seconds: the busiest link's bytes
/// ([`shuffle_bytes`]) over its capacity, max over hosts k of max(out_k, in_k) /
/// [`link_bytes_per_s`]. No schedule of these flows ends sooner, so this is a lower bound
/// on the runtime's max-min fair shuffle when no other transfer runs; the two agree when
/// one link is the bottleneck of every flow through it (the planned-against-realised
/// columns of `frugal ephemeral` measure the difference). 0 when there are no reduces.
pub fn shuffle_lower_bound_s(map_output: &[f64], reduces: &[usize]) -> f64 {
    LinkQueues::new(map_output.len()).shuffle_s(0.0, map_output, reduces)
}

/// The planner's view of several jobs' shuffles on the same links: per host, the time
/// (seconds from t₀) by which the shuffles added so far have drained its up-link and its
/// down-link, as if each link sent its bytes first come, first served at full rate.
///
/// A later job's shuffle then waits, on each link it uses, for the bytes queued before it.
/// Max-min sharing would instead slow both jobs' transfers together; the total each link
/// must carry is the same, so the estimate errs on which job waits, not on how long the
/// links are busy. With one job it is [`shuffle_lower_bound_s`].
#[derive(Clone, Debug, PartialEq)]
pub struct LinkQueues {
    up: Vec<f64>,
    down: Vec<f64>,
}

impl LinkQueues {
    /// Idle links on `hosts` hosts.
    pub fn new(hosts: usize) -> LinkQueues {
        LinkQueues {
            up: vec![f64::NEG_INFINITY; hosts],
            down: vec![f64::NEG_INFINITY; hosts],
        }
    }

    /// The estimated duration, seconds, of a shuffle starting at `start` (seconds from
    /// t₀): over the links it uses, the longest wait for earlier bytes plus its own
    /// bytes' time.
    pub fn shuffle_s(&self, start: f64, map_output: &[f64], reduces: &[usize]) -> f64 {
        let b = link_bytes_per_s();
        let link = |free: f64, bytes: f64| {
            if bytes > 0.0 {
                (free - start).max(0.0) + bytes / b
            } else {
                0.0
            }
        };
        shuffle_bytes(map_output, reduces)
            .iter()
            .enumerate()
            .map(|(k, &(out, inn))| link(self.up[k], out).max(link(self.down[k], inn)))
            .fold(0.0, f64::max)
    }

    /// When every link has carried the bytes queued on it, seconds from t₀; `None` when
    /// nothing has been queued.
    pub fn drained_s(&self) -> Option<f64> {
        self.up
            .iter()
            .chain(&self.down)
            .copied()
            .filter(|t| t.is_finite())
            .reduce(f64::max)
    }

    /// Queues a shuffle starting at `start` behind the earlier ones.
    pub fn add(&mut self, start: f64, map_output: &[f64], reduces: &[usize]) {
        let b = link_bytes_per_s();
        for (k, (out, inn)) in shuffle_bytes(map_output, reduces).into_iter().enumerate() {
            if out > 0.0 {
                self.up[k] = self.up[k].max(start) + out / b;
            }
            if inn > 0.0 {
                self.down[k] = self.down[k].max(start) + inn / b;
            }
        }
    }
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

    #[test]
    fn a_later_shuffle_waits_for_the_bytes_queued_on_its_links() {
        let b = link_bytes_per_s();
        let mut q = LinkQueues::new(3);
        // Job 1 at t = 10: 4 s from host 0 to host 1 → host 0's up-link and host 1's
        // down-link are busy until 14.
        q.add(10.0, &[4.0 * b, 0.0, 0.0], &[0, 1, 0]);
        // Job 2 at t = 12, 2 s from host 0 to host 2: waits 2 s on host 0's up-link.
        assert_eq!(q.shuffle_s(12.0, &[2.0 * b, 0.0, 0.0], &[0, 0, 1]), 4.0);
        // From host 2 to host 0 it uses neither busy link.
        assert_eq!(q.shuffle_s(12.0, &[0.0, 0.0, 2.0 * b], &[1, 0, 0]), 2.0);
        // Starting after the queue has drained, it waits for nothing.
        assert_eq!(q.shuffle_s(20.0, &[2.0 * b, 0.0, 0.0], &[0, 0, 1]), 2.0);
        q.add(12.0, &[2.0 * b, 0.0, 0.0], &[0, 0, 1]);
        assert_eq!(q.shuffle_s(12.0, &[1.0 * b, 0.0, 0.0], &[0, 0, 1]), 5.0);
        // Host 0's up-link drains last: 14, then 2 s more.
        assert_eq!(q.drained_s(), Some(16.0));
        assert_eq!(LinkQueues::new(3).drained_s(), None);
    }
}

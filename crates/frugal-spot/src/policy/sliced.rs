//! Time Sliced (paper §5.1, spec §2.5).

use crate::model::Mode;
use crate::policy::{Observation, SpotPolicy, safety_net, spot_or_idle};

/// Time Sliced: the deadline cut into n slices, each with its share of the work, greedy
/// inside each slice with the slice's own safety net R_i(t) < C_i(t) + 2d (in whole ticks,
/// as greedy). Unlike n-sliced greedy (§4) it stays on spot once its slice's share is done,
/// and progress beyond a slice's share is credited to the next slices; it is not
/// randomised. Slices are whole ticks: ⌊T/n⌋ each, the last one taking the rest ([code] of
/// the sliced optima), and slice i must reach C(0)·(end of slice i)/T — work in proportion
/// to slice length.
#[derive(Clone, Copy, Debug)]
pub struct TimeSliced {
    /// n: the number of slices.
    pub slices: u32,
}

impl TimeSliced {
    /// n slices (n ≥ 1).
    pub fn new(slices: u32) -> TimeSliced {
        TimeSliced {
            slices: slices.max(1),
        }
    }
}

/// The end tick of each of `n` slices of a horizon of `horizon` ticks: ⌊T/n⌋ ticks each, the
/// last taking the rest (at least one tick each while T ≥ n).
pub fn slice_ends(horizon: usize, n: u32) -> Vec<usize> {
    let n = (n as usize).clamp(1, horizon.max(1));
    let len = horizon / n;
    (1..=n)
        .map(|i| if i == n { horizon } else { i * len })
        .collect()
}

impl SpotPolicy for TimeSliced {
    fn name(&self) -> String {
        format!("time-sliced:{}", self.slices)
    }

    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        if o.done() {
            return Mode::Idle;
        }
        let horizon = o.job.horizon_ticks(o.gap_s);
        let ends = slice_ends(horizon, self.slices);
        // Past the last slice (a late job), the last slice's rules: finish on on-demand.
        let end = ends
            .iter()
            .copied()
            .find(|&e| e > o.tick)
            .unwrap_or(horizon);
        let share = o.job.work_s * end as f64 / horizon.max(1) as f64;
        let work = share - o.work_done_s;
        let time = end as f64 * o.gap_s - o.elapsed_s();
        if work <= crate::model::POLICY_DONE_S && end < horizon {
            // Ahead of this slice: ride any spot, spend nothing else.
            return spot_or_idle(o);
        }
        // In the last slice the slice's deadline is the job's (R(0) may end mid-tick).
        let time = if end == horizon {
            o.job.deadline_s - o.elapsed_s()
        } else {
            time
        };
        safety_net(o, work.max(0.0), time, spot_or_idle(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_whole_ticks_and_the_last_takes_the_rest() {
        assert_eq!(slice_ends(360, 8), [45, 90, 135, 180, 225, 270, 315, 360]);
        assert_eq!(slice_ends(10, 3), [3, 6, 10]);
        assert_eq!(slice_ends(2, 5), [1, 2]);
    }
}

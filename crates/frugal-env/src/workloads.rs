//! The paper 002 workloads on the embedded FB-2009 trace: "normal" (first 50 jobs of an
//! hour) and "burst" (first 100 jobs of a busy hour), with separate training and
//! evaluation hours.

use std::sync::Arc;

use frugal_core::job::Job;
use frugal_sim::workload::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, TraceMapping, map_swim, parse_swim,
    select_hour,
};

/// Arrival pattern of paper 002 §7.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// First 50 jobs of an hour (hour 0: 50 jobs in 46 min).
    Normal,
    /// First 100 jobs of a busy hour (hour 6: 100 jobs in 9 min).
    Burst,
}

/// Which hours an episode draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Hours not used for evaluation.
    Train,
    /// The paper's hours: 0 (normal) and 6 (burst).
    Eval,
}

impl Pattern {
    /// Jobs per episode.
    pub fn jobs(&self) -> usize {
        match self {
            Pattern::Normal => 50,
            Pattern::Burst => 100,
        }
    }

    /// Hours of FB-2009 day 0 used for `split`. Burst training hours are the other
    /// hours whose first 100 jobs arrive within 20 minutes (7, 14, 20, 23).
    pub fn hours(&self, split: Split) -> &'static [u32] {
        match (self, split) {
            (Pattern::Normal, Split::Eval) => &[0],
            (Pattern::Burst, Split::Eval) => &[6],
            (Pattern::Normal, Split::Train) => {
                &[1, 2, 3, 5, 8, 9, 10, 12, 13, 15, 16, 17, 18, 21, 22]
            }
            (Pattern::Burst, Split::Train) => &[7, 14, 20, 23],
        }
    }
}

/// One job list per hour of `pattern`/`split`, mapped from the embedded trace with the
/// simulator's SWIM mapping (`seed` chooses the deadline jobs).
pub fn swim_workloads(pattern: Pattern, split: Split, seed: u64) -> Vec<Arc<[Job]>> {
    let records =
        parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME).expect("the embedded trace parses");
    pattern
        .hours(split)
        .iter()
        .map(|&h| {
            let selected = select_hour(&records, SwimHour::Hour(h), Some(pattern.jobs()));
            let mapping = TraceMapping {
                seed,
                ..TraceMapping::default()
            };
            Arc::from(map_swim(&selected, &mapping))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hour_has_the_pattern_size_and_splits_do_not_overlap() {
        for p in [Pattern::Normal, Pattern::Burst] {
            for s in [Split::Train, Split::Eval] {
                for w in swim_workloads(p, s, 1) {
                    assert_eq!(w.len(), p.jobs());
                }
            }
            assert!(
                p.hours(Split::Train)
                    .iter()
                    .all(|h| !p.hours(Split::Eval).contains(h))
            );
        }
    }
}

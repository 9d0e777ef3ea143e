//! The episodes of paper 002: which jobs an episode holds ([`JobSource`]) and which
//! episodes train and which evaluate an agent ([`Protocol`]).
//!
//! |                      | `paper` protocol                     | `held-out` protocol                     |
//! |----------------------|--------------------------------------|-----------------------------------------|
//! | train on             | the evaluation episode itself        | the pattern's other FB-2009 hours       |
//! | evaluate on          | one fixed episode (hour 0 or 6)      | hour 0 (normal) or 6 (burst)            |
//!
//! The `paper` protocol is what the authors' environment (RM_DeepRL) does: it replays one
//! job file for every training and evaluation episode, so an agent can learn the whole
//! episode — a global view the one-job-at-a-time baselines lack (paper 002 §7.1). The
//! `held-out` protocol asks the harder question of a policy that works on jobs it has not
//! seen.

use std::sync::Arc;

use frugal_core::job::Job;
pub use frugal_sim::workload::Pattern;
use frugal_sim::workload::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, TraceMapping, map_swim, paper002_jobs,
    parse_swim, select_hour,
};

/// What the jobs of an episode are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobSource {
    /// frugal's SWIM mapping of the FB-2009 records (input bytes → executors, kinds, run
    /// times; [`frugal_sim::workload::map_swim`]), the first 50 or 100 jobs of an hour.
    Swim,
    /// Paper 002 §7.1's generator at the same arrival times
    /// ([`frugal_sim::workload::paper002_jobs`]).
    Generator,
}

frugal_core::choice! {
    impl Choice for JobSource {
        Swim = "swim": "frugal's mapping of the FB-2009 records (bytes → executors, kinds, run times)",
        Generator = "generator": "Paper 002 §7.1's generator (uniform kinds and sizes) at the trace's arrivals",
    }
}

/// Which episodes train an agent and which evaluate it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Train and evaluate on one fixed episode: the pattern's evaluation hour (paper 002's
    /// own protocol).
    Paper,
    /// Train on the pattern's other hours, evaluate on the held-out evaluation hour.
    HeldOut,
}

frugal_core::choice! {
    impl Choice for Protocol {
        HeldOut = "held-out": "Train on the pattern's other FB-2009 hours, evaluate on the held-out hour",
        Paper = "paper": "Train and evaluate on one fixed episode, as paper 002's own environment does",
    }
}

/// Training or evaluation episodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The episodes an agent learns from.
    Train,
    /// The episodes it is judged on.
    Eval,
}

/// The FB-2009 hours of `split` under `protocol`: the evaluation hour alone, except for
/// held-out training, which uses [`Pattern::train_hours`].
pub fn hours(pattern: Pattern, protocol: Protocol, split: Split) -> Vec<u32> {
    match (protocol, split) {
        (Protocol::HeldOut, Split::Train) => pattern.train_hours().to_vec(),
        _ => vec![pattern.eval_hour()],
    }
}

/// One job list per hour of `split` (see [`hours`]). `seed` draws the generator's jobs
/// (and the SWIM mapping's deadline jobs, which the environment does not use); it is the
/// episode's seed, independent of the seed an agent trains with.
pub fn episodes(
    source: JobSource,
    protocol: Protocol,
    pattern: Pattern,
    split: Split,
    seed: u64,
) -> Vec<Arc<[Job]>> {
    let records = match source {
        JobSource::Swim => {
            parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME).expect("the embedded trace parses")
        }
        JobSource::Generator => Vec::new(),
    };
    hours(pattern, protocol, split)
        .into_iter()
        .map(|h| match source {
            JobSource::Swim => {
                let selected = select_hour(&records, SwimHour::Hour(h), Some(pattern.jobs()));
                let mapping = TraceMapping {
                    seed,
                    ..TraceMapping::default()
                };
                Arc::from(map_swim(&selected, &mapping))
            }
            JobSource::Generator => Arc::from(paper002_jobs(pattern, h, seed)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_episode_has_the_pattern_size_and_held_out_splits_do_not_overlap() {
        for p in [Pattern::Normal, Pattern::Burst] {
            for source in [JobSource::Swim, JobSource::Generator] {
                for protocol in [Protocol::Paper, Protocol::HeldOut] {
                    for s in [Split::Train, Split::Eval] {
                        for w in episodes(source, protocol, p, s, 1) {
                            assert_eq!(w.len(), p.jobs());
                        }
                    }
                }
            }
            let train = hours(p, Protocol::HeldOut, Split::Train);
            assert!(!train.contains(&p.eval_hour()));
        }
    }

    #[test]
    fn the_paper_protocol_trains_on_the_evaluation_episode() {
        for source in [JobSource::Swim, JobSource::Generator] {
            let train = episodes(source, Protocol::Paper, Pattern::Burst, Split::Train, 4);
            let eval = episodes(source, Protocol::Paper, Pattern::Burst, Split::Eval, 4);
            assert_eq!(train, eval);
            assert_eq!(train.len(), 1);
        }
    }
}

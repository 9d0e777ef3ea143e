//! Random planning inputs shared by the property tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::ops::Range;

use proptest::prelude::*;

use frugal_ephemeral::job::{Job, JobSpec};
use frugal_ephemeral::plan::{NodeCapacity, Problem};

/// A node of 5–400 GFLOP/s with 4 forecast steps of random free CPU and 0–12 GiB RAM.
pub fn node() -> impl Strategy<Value = NodeCapacity> {
    (
        5.0..400.0f64,
        prop::collection::vec(0.0..1.0f64, 4),
        prop::collection::vec(0.0..12.0f64, 4),
    )
        .prop_map(|(cpu, share, ram)| {
            NodeCapacity::new(cpu, share.iter().map(|s| s * cpu).collect(), ram)
        })
}

/// A job of 1–`max_maps` maps, 1–2 reduces, 1–63 MiB chunks and 1–4 GiB per task.
pub fn job_spec(max_maps: usize) -> impl Strategy<Value = JobSpec> {
    (1usize..max_maps, 1usize..3, 1u32..64, 1.0..4.0f64).prop_map(
        |(maps, reduces, chunk_mib, ram_gib)| JobSpec {
            maps,
            reduces,
            chunk_mib,
            ram_gib,
            ..JobSpec::paper(128)
        },
    )
}

/// A window T of 60–719 s and a plan slot of 1, 7 or 180 s.
pub fn window_and_slot() -> impl Strategy<Value = (u32, u32)> {
    (60u32..720, prop_oneof![Just(1u32), Just(7), Just(180)])
}

/// A problem of 1–4 random nodes and 1–3 jobs of up to `max_maps` maps each.
pub fn problem_of_jobs(max_maps: usize) -> impl Strategy<Value = Problem> {
    problem_of(1..5, 1..4, max_maps, window_and_slot())
}

/// A problem of `nodes` random nodes and `jobs` jobs of up to `max_maps` maps each, with
/// its window and plan slot from `window_and_slot`.
pub fn problem_of(
    nodes: Range<usize>,
    jobs: Range<usize>,
    max_maps: usize,
    window_and_slot: impl Strategy<Value = (u32, u32)>,
) -> impl Strategy<Value = Problem> {
    (
        prop::collection::vec(node(), nodes),
        prop::collection::vec(job_spec(max_maps), jobs),
        window_and_slot,
    )
        .prop_map(|(nodes, jobs, (window_s, plan_slot_s))| Problem {
            nodes,
            jobs: jobs
                .into_iter()
                .enumerate()
                .map(|(j, spec)| Job::new(j, spec))
                .collect(),
            window_s,
            plan_slot_s,
        })
}

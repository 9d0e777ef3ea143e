//! The exact holistic plan of one MapReduce job (paper 001 §III-B2, the strategy the paper
//! solves with IBM CP Optimizer): the lexicographic optimum of Eq. 2–6, proven, in
//! polynomial time.
//!
//! The paper's experiments plan one job at a time (spec A13), and a job's tasks have a
//! structure a general CP model does not see: all its maps have the same work and RAM (one
//! chunk each), so do all its reduces, and every reduce waits for every map (spec A5). For
//! such a problem the optimum is built node by node:
//!
//! 1. **Maps.** On node k alone, the greedy that starts, at each second in increasing
//!    order, as many maps as fit for their whole run (Eq. 6) is optimal for every horizon:
//!    if an optimal packing's starts, sorted, are o₁ ≤ o₂ ≤ …, the greedy's are g_i ≤ o_i
//!    (induction: the greedy's first i−1 maps, starting no later than the packing's, overlap
//!    any instant t ≥ o_i no more than the packing's first i−1 do — a map started earlier
//!    ends earlier, and all of them start by o_i ≤ t — so the i-th map fits at o_i, and the
//!    greedy, scanning in order, places it there or earlier). All maps of a node last the
//!    same Te, so the greedy also has the most maps *ended* by every time M. Hence the
//!    earliest time M_m by which all maps can end is the n_m-th smallest end among the
//!    nodes' greedy sequences, and taking those n_m ends is a feasible map phase.
//! 2. **Reduces.** Every reduce starts at or after the end of the maps, M_m or later, and
//!    the most reduces that can run on node k inside [a, M] does not grow when a grows, so
//!    starting the reduce phase at M_m is optimal; the greedy from M_m gives the earliest
//!    makespan M the same way. Map and reduce phases do not overlap in time, so each phase
//!    sees the node's whole forecast capacity.
//!
//! If fewer than n_m maps (or n_r reduces) fit inside the window T (Eq. 4), no plan
//! schedules the job: Eq. 2's optimum is 0 tasks (the job is rejected, Eq. 5). Otherwise
//! all its tasks are scheduled and M is the least makespan of Eq. 3. The plan is therefore
//! optimal by construction; [`ExactError::SeveralJobs`] is returned for problems with more
//! than one job, where the all-or-nothing choice between jobs makes the problem NP-hard and
//! this construction does not apply. `tests/exact.rs` checks step 1's lemma against a MILP
//! solved by `good_lp`'s `microlp` backend and the whole plan against exhaustive search on
//! small problems.
//!
//! Any choice among equal ends gives the same makespan; frugal gives a tie to the node with
//! the fewest tasks of the phase so far, then the lower index, so that the reduces — which
//! all start when the maps end, and so tie often — spread over the nodes as Alg. 1's random
//! draws spread them, rather than pile onto the first nodes (each reduce receives its share
//! of the shuffle over its host's link, which the plan of Eq. 2–6 does not model). The plan
//! is deterministic and uses no random numbers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use crate::plan::{Assignment, Plan, Problem, Profile};

/// Why the exact strategy does not apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExactError {
    /// The construction is exact for one job (module docs); the problem has this many.
    #[error(
        "the exact strategy plans one job at a time (paper 001's experiments submit one); this problem has {0} jobs"
    )]
    SeveralJobs(usize),
}

/// The optimal plan of a one-job problem (module docs): every task scheduled with the least
/// makespan, or none when the job cannot fit the window.
///
/// # Errors
/// [`ExactError::SeveralJobs`] when `problem` has more or fewer than one job.
pub fn plan(problem: &Problem) -> Result<Plan, ExactError> {
    if problem.jobs.len() != 1 {
        return Err(ExactError::SeveralJobs(problem.jobs.len()));
    }
    let job = &problem.jobs[0];
    let mut plan = problem.empty_plan();
    let Some(maps) = phase(problem, job.maps(), 0) else {
        return Ok(plan);
    };
    let maps_end = maps.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
    let Some(reduces) = phase(problem, job.reduces(), maps_end) else {
        return Ok(plan);
    };
    for (i, (_, node, start)) in job.maps().zip(maps).chain(job.reduces().zip(reduces)) {
        plan.0[0][i] = Some(Assignment { node, start });
    }
    Ok(plan)
}

/// The earliest-ending `tasks.len()` placements of identical tasks starting at `from` or
/// later, as `(end, node, start)` in increasing order; `None` if fewer fit in the window.
fn phase(problem: &Problem, tasks: Range<usize>, from: u32) -> Option<Vec<(u32, usize, u32)>> {
    let n = tasks.len();
    if n == 0 {
        return Some(Vec::new());
    }
    let task = (0, tasks.start);
    let ram = problem.jobs[0].tasks[tasks.start].ram_gib;
    let mut greedy: Vec<Greedy> = (0..problem.nodes.len())
        .map(|k| Greedy {
            node: k,
            d: problem.duration(task, k),
            next: from,
            profile: Profile::default(),
        })
        .collect();
    // A k-way merge of the nodes' greedy sequences, each non-decreasing in end time.
    let mut heap = BinaryHeap::new();
    for g in &mut greedy {
        if let Some(start) = g.advance(problem, ram) {
            heap.push(Reverse((start + g.d, 0, g.node, start)));
        }
    }
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let Reverse((end, taken, node, start)) = heap.pop()?;
        out.push((end, node, start));
        let g = &mut greedy[node];
        if let Some(start) = g.advance(problem, ram) {
            heap.push(Reverse((start + g.d, taken + 1, node, start)));
        }
    }
    Some(out)
}

/// One node's greedy sequence (module docs, step 1).
struct Greedy {
    node: usize,
    d: u32,
    next: u32,
    profile: Profile,
}

impl Greedy {
    /// Places the next task at the earliest second it fits, no earlier than the last one.
    fn advance(&mut self, problem: &Problem, ram: f64) -> Option<u32> {
        let node = &problem.nodes[self.node];
        let latest = problem.window_s.checked_sub(self.d)?;
        let start =
            self.profile
                .earliest_fit(node, self.next, latest, self.d, node.slot_flops, ram)?;
        self.profile
            .add(start, start + self.d, node.slot_flops, ram);
        self.next = start;
        Some(start)
    }
}

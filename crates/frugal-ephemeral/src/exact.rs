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

use crate::job::Job;
use crate::network::shuffle_lower_bound_s;
use crate::plan::{Assignment, NodeCapacity, Plan, Problem, Profile};

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
    let job = one_job(problem)?;
    let mut plan = problem.empty_plan();
    let mut maps = Sequences::new(problem, job.maps(), 0);
    let Some(map_ends) = maps.select(job.maps().len(), usize::MAX) else {
        return Ok(plan);
    };
    let maps_end = map_ends.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
    let mut reduces = Sequences::new(problem, job.reduces(), maps_end);
    let Some(reduce_ends) = reduces.select(job.reduces().len(), usize::MAX) else {
        return Ok(plan);
    };
    fill(&mut plan, job, &map_ends, &reduce_ends);
    Ok(plan)
}

/// The plan of a one-job problem that also pays for the shuffle (an option beside the
/// paper's Eq. 2–6, `salamander-exact-network`): the least estimated job time — the maps'
/// end M, then the reduces, each starting no earlier than M + the shuffle's estimate
/// ([`shuffle_lower_bound_s`]) — over plans whose phases are built as in [`plan`] but
/// with at most c_m maps and c_r reduces per node.
///
/// Why caps: the paper's optimum ends the maps earliest by stacking them on the fastest
/// nodes, and its reduces too, and then the shuffle through those nodes' 50 Mbit/s links
/// outlasts the time saved. With a cap, step 1's lemma still holds per node (a node's
/// sequence is cut after c tasks), so each capped phase is still the earliest-ending
/// one with at most c tasks per node. The search is exhaustive over c_m from ⌈n_m/N⌉ to
/// the most maps the uncapped plan puts on a node and c_r from ⌈n_r/N⌉ to three more and
/// uncapped; for each it plans the reduces from M, estimates the shuffle from the
/// resulting layout, and re-plans them from M + shuffle until the layout's estimate no
/// longer exceeds the shift (at most four rounds; a pair that does not settle is
/// skipped). Ties keep the smaller caps. The paper's plan is a candidate too, measured
/// the same way ([`Plan::job_time_with_shuffle`], which equals a shifted candidate's last
/// end) and kept on a tie, so the result's estimate is never above the paper plan's. It
/// is optimal within this family of plans, not over all plans, and it schedules every
/// task whenever [`plan`] does.
///
/// # Errors
/// [`ExactError::SeveralJobs`] when `problem` has more or fewer than one job.
pub fn plan_network(problem: &Problem) -> Result<Plan, ExactError> {
    let paper = plan(problem)?;
    if paper.scheduled() == 0 {
        return Ok(paper);
    }
    let job = &problem.jobs[0];
    let nodes = problem.nodes.len();
    let (n_m, n_r) = (job.maps().len(), job.reduces().len());
    let per_node = |plan: &Plan, tasks: Range<usize>| {
        let mut count = vec![0usize; nodes];
        for i in tasks {
            count[plan.0[0][i].expect("scheduled").node] += 1;
        }
        count
    };
    let most_maps = per_node(&paper, job.maps()).into_iter().max().unwrap_or(0);
    let output_per_map = job.tasks[0].input_bytes * job.spec.map_output_ratio;
    let lo_r = n_r.div_ceil(nodes).max(1);
    let mut reduce_caps: Vec<usize> = (lo_r..=lo_r + 3).filter(|&c| c < n_r).collect();
    reduce_caps.push(usize::MAX);
    let mut maps = Sequences::new(problem, job.maps(), 0);
    let mut best: Option<(u32, Vec<Phase>, Vec<Phase>)> = None;
    for c_m in n_m.div_ceil(nodes).max(1)..=most_maps {
        let Some(map_ends) = maps.select(n_m, c_m) else {
            continue;
        };
        let maps_end = map_ends.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
        let mut output = vec![0.0; nodes];
        for &(_, k, _) in &map_ends {
            output[k] += output_per_map;
        }
        for &c_r in &reduce_caps {
            let Some(reduce_ends) = shifted_reduces(problem, job.reduces(), maps_end, &output, c_r)
            else {
                continue;
            };
            let end = reduce_ends
                .iter()
                .map(|&(end, _, _)| end)
                .max()
                .unwrap_or(maps_end);
            if best.as_ref().is_none_or(|b| end < b.0) {
                best = Some((end, map_ends.clone(), reduce_ends));
            }
        }
    }
    let Some((end, map_ends, reduce_ends)) = best else {
        return Ok(paper);
    };
    if paper.job_time_with_shuffle(problem) <= end {
        return Ok(paper);
    }
    let mut plan = problem.empty_plan();
    fill(&mut plan, job, &map_ends, &reduce_ends);
    Ok(plan)
}

/// The reduce phase from `maps_end` + the shuffle estimate of its own layout, with at
/// most `cap` reduces per node ([`plan_network`]); `None` if it does not fit or settle.
fn shifted_reduces(
    problem: &Problem,
    reduces: Range<usize>,
    maps_end: u32,
    output: &[f64],
    cap: usize,
) -> Option<Vec<Phase>> {
    let mut from = maps_end;
    for _ in 0..4 {
        let ends = Sequences::new(problem, reduces.clone(), from).select(reduces.len(), cap)?;
        let mut count = vec![0usize; problem.nodes.len()];
        for &(_, k, _) in &ends {
            count[k] += 1;
        }
        let shuffle = shuffle_lower_bound_s(output, &count).ceil() as u32;
        if maps_end + shuffle <= from {
            return Some(ends);
        }
        from = maps_end + shuffle;
    }
    None
}

fn one_job(problem: &Problem) -> Result<&Job, ExactError> {
    match problem.jobs.as_slice() {
        [job] => Ok(job),
        jobs => Err(ExactError::SeveralJobs(jobs.len())),
    }
}

fn fill(plan: &mut Plan, job: &Job, maps: &[Phase], reduces: &[Phase]) {
    for (i, &(_, node, start)) in job.maps().zip(maps).chain(job.reduces().zip(reduces)) {
        plan.0[0][i] = Some(Assignment { node, start });
    }
}

/// One placement of a phase: (end, node, start), seconds from t₀.
type Phase = (u32, usize, u32);

/// Every node's greedy sequence (module docs, step 1) for one phase's identical tasks
/// starting at `from` or later, extended only as far as a selection asks.
struct Sequences<'a> {
    problem: &'a Problem,
    ram: f64,
    greedy: Vec<Greedy>,
}

impl<'a> Sequences<'a> {
    fn new(problem: &'a Problem, tasks: Range<usize>, from: u32) -> Sequences<'a> {
        let task = (0, tasks.start);
        let any = !tasks.is_empty();
        Sequences {
            problem,
            ram: if any {
                problem.jobs[0].tasks[tasks.start].ram_gib
            } else {
                0.0
            },
            greedy: (0..problem.nodes.len())
                .map(|k| Greedy {
                    d: if any { problem.duration(task, k) } else { 0 },
                    next: from,
                    profile: Profile::default(),
                    starts: Vec::new(),
                    exhausted: false,
                })
                .collect(),
        }
    }

    /// The start of the `i`-th task of node `k`'s sequence, if it fits the window.
    fn nth(&mut self, k: usize, i: usize) -> Option<u32> {
        let g = &mut self.greedy[k];
        while g.starts.len() <= i && !g.exhausted {
            match g.advance(&self.problem.nodes[k], self.problem.window_s, self.ram) {
                Some(start) => g.starts.push(start),
                None => g.exhausted = true,
            }
        }
        g.starts.get(i).copied()
    }

    /// The `n` earliest-ending placements with at most `cap` per node, in increasing
    /// order of end (ties: the node with fewer so far, then the lower index); `None` if
    /// fewer fit in the window. A k-way merge of the nodes' sequences, each
    /// non-decreasing in end time.
    fn select(&mut self, n: usize, cap: usize) -> Option<Vec<Phase>> {
        let mut heap = BinaryHeap::new();
        if cap > 0 {
            for k in 0..self.greedy.len() {
                if let Some(start) = self.nth(k, 0) {
                    heap.push(Reverse((start + self.greedy[k].d, 0, k, start)));
                }
            }
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let Reverse((end, taken, k, start)) = heap.pop()?;
            out.push((end, k, start));
            if taken + 1 < cap
                && let Some(start) = self.nth(k, taken + 1)
            {
                heap.push(Reverse((start + self.greedy[k].d, taken + 1, k, start)));
            }
        }
        Some(out)
    }
}

/// One node's greedy sequence (module docs, step 1).
struct Greedy {
    d: u32,
    next: u32,
    profile: Profile,
    starts: Vec<u32>,
    exhausted: bool,
}

impl Greedy {
    /// Places the next task at the earliest second it fits, no earlier than the last one.
    fn advance(&mut self, node: &NodeCapacity, window_s: u32, ram: f64) -> Option<u32> {
        let latest = window_s.checked_sub(self.d)?;
        let start =
            self.profile
                .earliest_fit(node, self.next, latest, self.d, node.slot_flops, ram)?;
        self.profile
            .add(start, start + self.d, node.slot_flops, ram);
        self.next = start;
        Some(start)
    }
}

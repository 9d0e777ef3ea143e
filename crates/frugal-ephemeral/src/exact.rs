//! The exact holistic plan (paper 001 §III-B2, the strategy the paper solves with IBM CP
//! Optimizer): for one MapReduce job, the lexicographic optimum of Eq. 2–6, proven, in
//! polynomial time; for several, each job's optimum given the jobs before it, with a
//! proven bound on the gap to Eq. 3's optimum.
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
//! optimal by construction. `tests/it/exact.rs` checks step 1's lemma against a MILP solved
//! by `good_lp`'s `microlp` backend and the whole plan against exhaustive search on small
//! problems.
//!
//! **Several jobs** (submitted together; Alg. 1 and the paper's CP model take a list):
//! the jobs are planned one at a time in their order in the problem (submission order),
//! each by steps 1–2 on the capacity the earlier jobs' reservations leave (the lemmas hold
//! for any capacity profile), and a job that does not fit is rejected while later ones
//! are still tried. Each job therefore ends as early as possible given the jobs before it
//! — the optimum of the first-in-first-out lexicographic objective (job 1's makespan,
//! then job 2's, …), which is what a FIFO cluster asks of a plan. For Eq. 3's single
//! makespan over all jobs this is not proven optimal (interleaving jobs can end the last
//! one sooner, and the choice of which jobs to admit is NP-hard in general), so
//! [`lower_bound`] gives a proven bound and the planner reports the gap to it; with one
//! job the gap is 0.
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

use crate::job::TaskKind;
use crate::network::LinkQueues;
use crate::plan::{
    Assignment, NodeCapacity, Plan, Problem, Profile, ShuffleLayout, job_time_with_shuffle,
};

/// The exact plan (module docs): jobs in order, each with the least makespan the capacity
/// left by the earlier ones allows, or rejected when it cannot fit the window. With one
/// job, the proven optimum of Eq. 2–6.
pub fn plan(problem: &Problem) -> Plan {
    in_order(problem, paper_job)
}

/// The plan that also pays for the shuffle (an option beside the paper's Eq. 2–6,
/// `salamander-exact-network`), job by job in order like [`plan`]: for each job, the
/// least estimated job time — the maps' end M, then the reduces, each starting no earlier
/// than M + the shuffle's estimate ([`LinkQueues::shuffle_s`], behind the shuffles of the
/// jobs planned before it) — over plans whose phases
/// are built as in [`plan`] but with at most c_m maps and c_r reduces per node.
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
/// skipped). Ties keep the smaller caps. The paper's plan of the job is a candidate too,
/// measured the same way ([`job_time_with_shuffle`], which equals a shifted candidate's
/// last end) and kept on a tie, so each job's estimate is never above that of the paper's
/// plan on the same residual capacity. It is optimal within this family of plans, not
/// over all plans, and it admits every job [`plan`] would admit on the same residual
/// capacity.
///
/// With several jobs, a job's shuffle would share the links with the earlier jobs'
/// shuffles still running ([`LinkQueues`]); under the runtime's max-min sharing that slows
/// the earlier jobs as much as it speeds this one, whose bytes must cross the same busy
/// links anyway. So a later job's maps start no earlier than the earlier shuffles' drain
/// time ([`LinkQueues::drained_s`]) minus the length of its own unshifted map phase,
/// which makes its shuffle follow theirs, and the paper's plan of the job (which would
/// not) is then not a candidate.
pub fn plan_network(problem: &Problem) -> Plan {
    in_order(problem, network_job)
}

/// A proven lower bound on Eq. 3's makespan of any feasible plan that schedules the jobs
/// `jobs` (indices into `problem.jobs`), seconds: the largest of (a) each job's own
/// optimum on the empty capacity ([`plan`] of that job alone: other jobs only take
/// capacity away) and (b), when every map of those jobs has the same work and RAM, the
/// earliest time by which all their maps together can end (step 1's lemma on the pooled
/// maps: reduces running meanwhile only take capacity away) plus the shortest reduce
/// duration on any node (the job owning the last map still has to run a reduce). 0 for
/// no job.
pub fn lower_bound(problem: &Problem, jobs: &[usize]) -> u32 {
    let empty = vec![Profile::default(); problem.nodes.len()];
    let mut bound = 0;
    for &j in jobs {
        if let Some(p) = paper_job(problem, j, &empty, &LinkQueues::new(0)) {
            bound = bound.max(p.makespan());
        }
    }
    let Some(&first) = jobs.first() else {
        return 0;
    };
    let map = |j: usize| {
        let t = &problem.jobs[j].tasks[0];
        (t.kind == TaskKind::Map).then_some((t.work_flop, t.ram_gib))
    };
    let pooled: usize = jobs.iter().map(|&j| problem.jobs[j].maps().len()).sum();
    if jobs.len() > 1 && map(first).is_some() && jobs.iter().all(|&j| map(j) == map(first)) {
        let maps = problem.jobs[first].maps();
        if let Some(ends) =
            Sequences::new(problem, first, maps, 0, &empty).select(pooled, usize::MAX)
        {
            let maps_end = ends.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
            let shortest_reduce = jobs
                .iter()
                .flat_map(|&j| {
                    let job = &problem.jobs[j];
                    job.reduces().take(1).flat_map(move |i| {
                        (0..problem.nodes.len()).map(move |k| problem.duration((j, i), k))
                    })
                })
                .min()
                .unwrap_or(0);
            bound = bound.max(maps_end + shortest_reduce);
        }
    }
    bound
}

/// One job's placements: (end, node, start) per map and per reduce, in the order of the
/// job's tasks.
struct JobPlan {
    maps: Vec<Phase>,
    reduces: Vec<Phase>,
}

impl JobPlan {
    fn makespan(&self) -> u32 {
        self.maps
            .iter()
            .chain(&self.reduces)
            .map(|&(end, _, _)| end)
            .max()
            .unwrap_or(0)
    }

    fn assignments(&self) -> Vec<Option<Assignment>> {
        self.maps
            .iter()
            .chain(&self.reduces)
            .map(|&(_, node, start)| Some(Assignment { node, start }))
            .collect()
    }
}

/// Plans the jobs one at a time in order with `job_plan`, each on the capacity the
/// earlier ones' reservations leave.
fn in_order(
    problem: &Problem,
    job_plan: fn(&Problem, usize, &[Profile], &LinkQueues) -> Option<JobPlan>,
) -> Plan {
    let mut plan = problem.empty_plan();
    let mut reserved = vec![Profile::default(); problem.nodes.len()];
    let mut links = LinkQueues::new(problem.nodes.len());
    for j in 0..problem.jobs.len() {
        let Some(jp) = job_plan(problem, j, &reserved, &links) else {
            continue;
        };
        let job = &problem.jobs[j];
        for (i, &(end, node, start)) in job
            .maps()
            .zip(&jp.maps)
            .chain(job.reduces().zip(&jp.reduces))
        {
            let ram = job.tasks[i].ram_gib;
            reserved[node].add(start, end, problem.nodes[node].slot_flops, ram);
        }
        plan.0[j] = jp.assignments();
        let l = ShuffleLayout::of(problem, j, &plan.0[j]);
        links.add(f64::from(l.maps_end), &l.output, &l.reduces);
    }
    plan
}

/// Job `j` by steps 1–2 on the capacity left by `reserved`; `None` if it does not fit.
fn paper_job(problem: &Problem, j: usize, reserved: &[Profile], _: &LinkQueues) -> Option<JobPlan> {
    let job = &problem.jobs[j];
    let maps =
        Sequences::new(problem, j, job.maps(), 0, reserved).select(job.maps().len(), usize::MAX)?;
    let maps_end = maps.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
    let reduces = Sequences::new(problem, j, job.reduces(), maps_end, reserved)
        .select(job.reduces().len(), usize::MAX)?;
    Some(JobPlan { maps, reduces })
}

/// Job `j` as [`plan_network`] plans it on the capacity left by `reserved`.
fn network_job(
    problem: &Problem,
    j: usize,
    reserved: &[Profile],
    links: &LinkQueues,
) -> Option<JobPlan> {
    let paper = paper_job(problem, j, reserved, links)?;
    let job = &problem.jobs[j];
    let nodes = problem.nodes.len();
    let (n_m, n_r) = (job.maps().len(), job.reduces().len());
    let mut count = vec![0usize; nodes];
    for &(_, k, _) in &paper.maps {
        count[k] += 1;
    }
    let most_maps = count.into_iter().max().unwrap_or(0);
    let output_per_map =
        job.tasks.first().map_or(0.0, |t| t.input_bytes) * job.spec.map_output_ratio;
    let lo_r = n_r.div_ceil(nodes).max(1);
    let mut reduce_caps: Vec<usize> = (lo_r..=lo_r + 3).filter(|&c| c < n_r).collect();
    reduce_caps.push(usize::MAX);
    // Earlier jobs' shuffles still on the links: start the maps late enough that this
    // job's shuffle (which begins when its last map ends) follows them rather than shares
    // the links with them (plan_network's docs).
    let paper_end = paper.maps.iter().map(|&(end, _, _)| end).max().unwrap_or(0);
    let from = links
        .drained_s()
        .map_or(0, |d| (d.ceil() as u32).saturating_sub(paper_end));
    let mut maps = Sequences::new(problem, j, job.maps(), from, reserved);
    let mut best: Option<JobPlan> = None;
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
            let Some(reduces) =
                shifted_reduces(problem, j, (maps_end, &output), c_r, reserved, links)
            else {
                continue;
            };
            let candidate = JobPlan {
                maps: map_ends.clone(),
                reduces,
            };
            if best
                .as_ref()
                .is_none_or(|b| candidate.makespan() < b.makespan())
            {
                best = Some(candidate);
            }
        }
    }
    let estimate = |jp: &JobPlan| job_time_with_shuffle(problem, j, &jp.assignments(), links);
    match best {
        Some(b) if from > 0 || estimate(&b) < estimate(&paper) => Some(b),
        _ => Some(paper),
    }
}

/// Job `j`'s reduce phase from `maps_end` + the shuffle estimate of its own layout, with
/// at most `cap` reduces per node ([`plan_network`]); `None` if it does not fit or settle.
fn shifted_reduces(
    problem: &Problem,
    j: usize,
    (maps_end, output): (u32, &[f64]),
    cap: usize,
    reserved: &[Profile],
    links: &LinkQueues,
) -> Option<Vec<Phase>> {
    let reduces = problem.jobs[j].reduces();
    let mut from = maps_end;
    for _ in 0..4 {
        let ends = Sequences::new(problem, j, reduces.clone(), from, reserved)
            .select(reduces.len(), cap)?;
        let mut count = vec![0usize; problem.nodes.len()];
        for &(_, k, _) in &ends {
            count[k] += 1;
        }
        let shuffle = links.shuffle_s(f64::from(maps_end), output, &count).ceil() as u32;
        if maps_end + shuffle <= from {
            return Some(ends);
        }
        from = maps_end + shuffle;
    }
    None
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
    /// Job `j`'s identical `tasks` from `from` on, over the capacity left by `reserved`
    /// (one profile per node).
    fn new(
        problem: &'a Problem,
        j: usize,
        tasks: Range<usize>,
        from: u32,
        reserved: &[Profile],
    ) -> Sequences<'a> {
        let task = (j, tasks.start);
        let any = !tasks.is_empty();
        Sequences {
            problem,
            ram: if any {
                problem.jobs[j].tasks[tasks.start].ram_gib
            } else {
                0.0
            },
            greedy: (0..problem.nodes.len())
                .map(|k| Greedy {
                    d: if any { problem.duration(task, k) } else { 0 },
                    next: from,
                    profile: reserved[k].clone(),
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

//! MapReduce jobs (paper 001 §IV-A): maps that each read one chunk, reduces that read an
//! equal share of every map's output, and the slot model that turns work into run time.
//!
//! The paper gives costs per byte (map 3,100 FLOP/B, reduce 6,300 FLOP/B), RAM per task
//! (3 GB for 128 MB chunks, 4 GB for 256 MB) and 20 slots per TaskTracker, but not a task's
//! CPU share or speed (spec A7). frugal's slot model: a task on host k needs one slot,
//! Rq(i, CPU) = C(k, CPU)/20, and runs at that speed v_k when unhindered, so its nominal
//! run time is Te(i, k) = work(i)/v_k. MB and GB are read as MiB and GiB (640 × 128 MB =
//! 80 GB, spec A28).

use std::ops::Range;

use serde::Serialize;

/// Slots per host (§IV-A: "20 slots of Map and Reduce tasks").
pub const SLOTS: u32 = 20;
/// Bytes in a MiB.
pub const MIB: f64 = 1_048_576.0;

/// Map or reduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TaskKind {
    /// Reads one chunk.
    Map,
    /// Reads its share of every map's output, after all maps of its job.
    Reduce,
}

/// One task.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// Index of its job.
    pub job: usize,
    /// Map or reduce.
    pub kind: TaskKind,
    /// Work, FLOP.
    pub work_flop: f64,
    /// RAM it holds while it runs, GiB.
    pub ram_gib: f64,
    /// Bytes it reads: its chunk (map) or its share of the map outputs (reduce).
    pub input_bytes: f64,
}

/// The shape of a job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    /// Map tasks (one per chunk); the paper's 640.
    pub maps: usize,
    /// Reduce tasks; the paper's 40.
    pub reduces: usize,
    /// Chunk size, MiB (128 or 256 in the paper).
    pub chunk_mib: u32,
    /// Map cost, FLOP per input byte (3,100 in the paper, as Cuckoo).
    pub map_flop_per_byte: f64,
    /// Reduce cost, FLOP per input byte (6,300).
    pub reduce_flop_per_byte: f64,
    /// RAM per task, GiB.
    pub ram_gib: f64,
    /// Map output bytes per input byte (not stated; spec A9: 1.0).
    pub map_output_ratio: f64,
}

impl JobSpec {
    /// The paper's job for a chunk size: 640 maps + 40 reduces, 3 GiB per task for
    /// chunks up to 128 MiB and 4 GiB above (§IV-A).
    pub fn paper(chunk_mib: u32) -> JobSpec {
        JobSpec {
            maps: 640,
            reduces: 40,
            chunk_mib,
            map_flop_per_byte: 3100.0,
            reduce_flop_per_byte: 6300.0,
            ram_gib: if chunk_mib <= 128 { 3.0 } else { 4.0 },
            map_output_ratio: 1.0,
        }
    }

    /// The same job with `tasks` tasks split 16:1 between maps and reduces like 640:40
    /// (RQ2's 500–2,500 tasks; spec §2.3), at least one of each.
    pub fn with_tasks(self, tasks: usize) -> JobSpec {
        let reduces = (tasks / 17).max(1);
        JobSpec {
            maps: tasks.saturating_sub(reduces).max(1),
            reduces,
            ..self
        }
    }
}

/// One job's tasks: maps first, then reduces.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Its shape.
    pub spec: JobSpec,
    /// Its tasks; `maps()` and `reduces()` index into it.
    pub tasks: Vec<Task>,
}

impl Job {
    /// Job number `job` of shape `spec`.
    pub fn new(job: usize, spec: JobSpec) -> Job {
        let chunk = f64::from(spec.chunk_mib) * MIB;
        let reduce_in = chunk * spec.maps as f64 * spec.map_output_ratio / spec.reduces as f64;
        let task = |kind, input_bytes: f64, per_byte: f64| Task {
            job,
            kind,
            work_flop: input_bytes * per_byte,
            ram_gib: spec.ram_gib,
            input_bytes,
        };
        let mut tasks: Vec<Task> = (0..spec.maps)
            .map(|_| task(TaskKind::Map, chunk, spec.map_flop_per_byte))
            .collect();
        tasks.extend(
            (0..spec.reduces).map(|_| task(TaskKind::Reduce, reduce_in, spec.reduce_flop_per_byte)),
        );
        Job { spec, tasks }
    }

    /// Indices of its maps.
    pub fn maps(&self) -> Range<usize> {
        0..self.spec.maps
    }

    /// Indices of its reduces.
    pub fn reduces(&self) -> Range<usize> {
        self.spec.maps..self.tasks.len()
    }

    /// Total work, FLOP (Alg. 1 orders jobs by it).
    pub fn work_flop(&self) -> f64 {
        self.tasks.iter().map(|t| t.work_flop).sum()
    }
}

/// Speed of one slot of a host of `cpu_gflops`: v_k = C(k, CPU)/20, in FLOP/s.
pub fn slot_flops(cpu_gflops: f64) -> f64 {
    cpu_gflops * 1e9 / f64::from(SLOTS)
}

//! The Alibaba GPU cluster trace of 2023 (`alibaba/clusterdata`,
//! `cluster-trace-gpu-v2023`; Weng et al., "Beware of Fragmentation: Scheduling
//! GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC 2023): the node
//! list of a 1,523-node cluster and the list of 8,152 tasks (pods) it ran.
//!
//! Both are CSV with a header row. Units as published: CPU in milli-cores, memory in
//! MiB, times in seconds from the trace start; `gpu_milli` is the share of one GPU a
//! GPU-sharing task asks for (with `num_gpu` = 1), 1,000 for whole GPUs, 0 without GPU.

use std::io::Read;

use serde::Deserialize;

use crate::TraceError;

/// The shipped node list (`data/alibaba-gpu-2023/`, with its terms in that folder's
/// README), so the commands that replay it work from any directory.
pub const EMBEDDED_NODES: &str =
    include_str!("../../../data/alibaba-gpu-2023/openb_node_list_all_node.csv");
/// Its file name.
pub const EMBEDDED_NODES_NAME: &str = "openb_node_list_all_node.csv";
/// The shipped task list, gzip-compressed.
pub const EMBEDDED_PODS: &[u8] =
    include_bytes!("../../../data/alibaba-gpu-2023/openb_pod_list_default.csv.gz");
/// Its file name.
pub const EMBEDDED_PODS_NAME: &str = "openb_pod_list_default.csv";

/// One node (`openb_node_list_all_node.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Node {
    /// Node name, `openb-node-NNNN`.
    pub sn: String,
    /// CPU, milli-cores (a multiple of 1,000 in the shipped list).
    pub cpu_milli: u32,
    /// Memory, MiB.
    pub memory_mib: u32,
    /// Whole GPUs.
    pub gpu: u32,
    /// GPU model (`T4`, `P100`, `V100M16`, `V100M32`, `A10`, and the anonymised `G2`,
    /// `G3`); empty without GPUs.
    pub model: String,
}

/// A task's phase when the trace was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodPhase {
    /// Still running at the trace end (its deletion time is the end of the trace).
    Running,
    /// Ended successfully.
    Succeeded,
    /// Ended with a failure.
    Failed,
    /// Never scheduled.
    Pending,
}

impl std::str::FromStr for PodPhase {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "Running" => Ok(PodPhase::Running),
            "Succeeded" => Ok(PodPhase::Succeeded),
            "Failed" => Ok(PodPhase::Failed),
            "Pending" => Ok(PodPhase::Pending),
            _ => Err(format!(
                "{s:?} is not Running, Succeeded, Failed or Pending"
            )),
        }
    }
}

/// One task (`openb_pod_list_*.csv`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Pod {
    /// Task name, `openb-pod-NNNN`.
    pub name: String,
    /// CPU requested, milli-cores (> 0).
    pub cpu_milli: u32,
    /// Memory requested, MiB.
    pub memory_mib: u32,
    /// GPUs requested, 0–8.
    pub num_gpu: u32,
    /// Share of each requested GPU, milli-GPUs: 1–1,000, below 1,000 only with one GPU;
    /// 0 exactly when `num_gpu` is 0.
    pub gpu_milli: u32,
    /// Required GPU models (empty: any).
    pub gpu_spec: String,
    /// Kubernetes QoS class: LS, BE, Burstable or Guaranteed.
    pub qos: String,
    /// Phase at the trace end.
    #[serde(deserialize_with = "phase")]
    pub pod_phase: PodPhase,
    /// Creation, s from the trace start.
    pub creation_time: u64,
    /// Deletion, s from the trace start (≥ creation, ≥ scheduling).
    pub deletion_time: u64,
    /// Scheduling, s from the trace start; `None` for a task never scheduled.
    pub scheduled_time: Option<u64>,
}

/// Parses a phase inside the row, so that an unknown one is reported with its column.
fn phase<'de, D: serde::Deserializer<'de>>(d: D) -> Result<PodPhase, D::Error> {
    let s = <&str>::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

impl Pod {
    /// GPUs requested in all, milli-GPUs: `num_gpu × gpu_milli`.
    pub fn gpu_milli_total(&self) -> u32 {
        self.num_gpu * self.gpu_milli
    }
}

/// Reads a node list.
///
/// # Errors
/// [`TraceError`] naming `name`, the line and the column of a malformed row or of a node
/// with no CPU or memory, a GPU count above 64, or a GPU model without GPUs (or the
/// reverse).
pub fn read_nodes(reader: impl Read, name: &str) -> Result<Vec<Node>, TraceError> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut rdr = csv::Reader::from_reader(reader);
    let header = rdr
        .headers()
        .map_err(|e| csv_error(name, 1, None, &e))?
        .clone();
    for (i, row) in rdr.deserialize().enumerate() {
        let line = i as u64 + 2;
        let n: Node = row.map_err(|e| csv_error(name, line, Some(&header), &e))?;
        let bad = |field: &str, message: String| Err(TraceError::new(name, line, field, message));
        if n.cpu_milli == 0 {
            return bad("cpu_milli", "a node needs CPU".into());
        }
        if n.memory_mib == 0 {
            return bad("memory_mib", "a node needs memory".into());
        }
        if n.gpu > 64 {
            return bad("gpu", format!("{} GPUs on one node; at most 64", n.gpu));
        }
        if (n.gpu == 0) != n.model.is_empty() {
            return bad(
                "model",
                format!("{:?} with {} GPUs: a model goes with GPUs", n.model, n.gpu),
            );
        }
        nodes.push(n);
    }
    if nodes.is_empty() {
        return Err(TraceError::new(name, 0, "sn", "no node"));
    }
    Ok(nodes)
}

/// Reads a task list, plain or gzip (detected by its magic bytes).
///
/// # Errors
/// [`TraceError`] naming `name`, the line and the column of a malformed row, a task
/// without CPU, a GPU request outside the rules of [`Pod::gpu_milli`], a scheduled task
/// without scheduling time or a Pending one with one, or times out of order (scheduled
/// before created, deleted before scheduled or created).
pub fn read_pods(bytes: &[u8], name: &str) -> Result<Vec<Pod>, TraceError> {
    let text: Box<dyn Read + '_> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes))
    } else {
        Box::new(bytes)
    };
    let mut pods = Vec::new();
    let mut rdr = csv::Reader::from_reader(text);
    let header = rdr
        .headers()
        .map_err(|e| csv_error(name, 1, None, &e))?
        .clone();
    let phase_column = header.iter().position(|h| h == "pod_phase");
    for (i, row) in rdr.records().enumerate() {
        let line = i as u64 + 2;
        let row = row.map_err(|e| csv_error(name, line, None, &e))?;
        // serde's errors from inside a field's parser do not carry the column: check it
        // first.
        if let Some(Err(e)) = phase_column
            .and_then(|c| row.get(c))
            .map(str::parse::<PodPhase>)
        {
            return Err(TraceError::new(name, line, "pod_phase", e));
        }
        let p: Pod = row
            .deserialize(Some(&header))
            .map_err(|e| csv_error(name, line, Some(&header), &e))?;
        let bad = |field: &str, message: String| Err(TraceError::new(name, line, field, message));
        if p.cpu_milli == 0 {
            return bad("cpu_milli", "a task needs CPU".into());
        }
        if p.num_gpu > 64 {
            return bad("num_gpu", format!("{} GPUs; at most 64", p.num_gpu));
        }
        if (p.num_gpu == 0) != (p.gpu_milli == 0) || p.gpu_milli > 1000 {
            return bad(
                "gpu_milli",
                format!(
                    "{} with num_gpu {}: 1–1000 with GPUs, 0 without",
                    p.gpu_milli, p.num_gpu
                ),
            );
        }
        if p.num_gpu > 1 && p.gpu_milli < 1000 {
            return bad(
                "gpu_milli",
                format!(
                    "{} with num_gpu {}: shares are of one GPU",
                    p.gpu_milli, p.num_gpu
                ),
            );
        }
        match (p.pod_phase, p.scheduled_time) {
            (PodPhase::Pending, Some(_)) => {
                return bad(
                    "scheduled_time",
                    "a Pending task was never scheduled".into(),
                );
            }
            (PodPhase::Running | PodPhase::Succeeded | PodPhase::Failed, None) => {
                return bad(
                    "scheduled_time",
                    format!("missing for a {:?} task", p.pod_phase),
                );
            }
            _ => {}
        }
        let start = p.scheduled_time.unwrap_or(p.creation_time);
        if start < p.creation_time {
            return bad("scheduled_time", format!("{start} is before creation"));
        }
        if p.deletion_time < start {
            return bad(
                "deletion_time",
                format!("{} is before scheduling or creation", p.deletion_time),
            );
        }
        pods.push(p);
    }
    Ok(pods)
}

/// A CSV error as a [`TraceError`], naming the column by its header when the error
/// points at one.
fn csv_error(
    name: &str,
    line: u64,
    header: Option<&csv::StringRecord>,
    e: &csv::Error,
) -> TraceError {
    let field = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err
            .field()
            .and_then(|f| header?.get(f as usize))
            .unwrap_or_default()
            .to_string(),
        _ => String::new(),
    };
    let message = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.kind().to_string(),
        _ => e.to_string(),
    };
    TraceError::new(name, line, &field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                        creation_time,deletion_time,scheduled_time\n";

    #[test]
    fn shipped_lists_parse_with_the_published_counts() {
        let nodes = read_nodes(EMBEDDED_NODES.as_bytes(), EMBEDDED_NODES_NAME).unwrap();
        assert_eq!(nodes.len(), 1523);
        assert_eq!(nodes.iter().map(|n| n.gpu).sum::<u32>(), 6212);
        let pods = read_pods(EMBEDDED_PODS, EMBEDDED_PODS_NAME).unwrap();
        assert_eq!(pods.len(), 8152);
        let pending = pods.iter().filter(|p| p.scheduled_time.is_none()).count();
        assert_eq!(pending, 897);
    }

    #[test]
    fn bad_rows_name_the_line_and_column() {
        let cases = [
            (
                "p,0,1,0,0,,LS,Running,0,5,0\n",
                "t.csv:2: field `cpu_milli`",
            ),
            (
                "p,1,1,1,0,,LS,Running,0,5,0\n",
                "field `gpu_milli`: 0 with num_gpu 1",
            ),
            ("p,1,1,2,500,,LS,Running,0,5,0\n", "shares are of one GPU"),
            ("p,1,1,0,0,,LS,Running,0,5,\n", "missing for a Running task"),
            ("p,1,1,0,0,,LS,Pending,0,5,3\n", "never scheduled"),
            ("p,1,1,0,0,,LS,Running,4,5,3\n", "3 is before creation"),
            ("p,1,1,0,0,,LS,Running,0,2,3\n", "2 is before scheduling"),
            ("p,1,1,0,0,,LS,Lost,0,2,3\n", "t.csv:2: field `pod_phase`"),
            (
                "p,x,1,0,0,,LS,Running,0,2,0\n",
                "t.csv:2: field `cpu_milli`: invalid digit",
            ),
        ];
        for (row, want) in cases {
            let e = read_pods(format!("{HEAD}{row}").as_bytes(), "t.csv").unwrap_err();
            assert!(e.to_string().contains(want), "{row}: {e}");
            assert!(e.to_string().starts_with("t.csv:"), "{e}");
        }
        let nodes = "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1,0,T4\n";
        let e = read_nodes(nodes.as_bytes(), "n.csv").unwrap_err();
        assert!(e.to_string().contains("n.csv:2: field `model`"), "{e}");
    }
}

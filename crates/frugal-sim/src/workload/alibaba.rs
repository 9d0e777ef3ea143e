//! The Alibaba GPU cluster trace of 2023 as a cluster and a workload
//! ([`frugal_traces::alibaba`]; Weng et al., USENIX ATC 2023), so `frugal simulate` can ask
//! what each policy would have cost on a real 1,523-node GPU cluster.
//!
//! **Cluster** ([`alibaba_cluster`]): one VM per node, nodes of one shape (cores, memory,
//! GPUs, GPU model) grouped into one instance type in order of first appearance (nodes of
//! a shape are interchangeable, so only their ids move); all at the `cloud` site, billed
//! per second, at the on-demand price of an equivalent cloud VM ([`node_price_per_hour`]).
//!
//! **Workload** ([`map_alibaba`]), one job per task:
//!
//! | quantity | rule |
//! | --- | --- |
//! | kept tasks | those scheduled in the trace; the Pending ones (never scheduled) are counted, not replayed |
//! | id | the task name |
//! | arrival | creation time, s (the trace starts at 0) |
//! | kind | `cpu_bound` (the trace has no application class) |
//! | executors E | 1 (a task is one container) |
//! | executor size | ⌈cpu_milli / 1000⌉ cores (frugal counts whole cores; 5,603 of 8,152 requests are fractional), memory_mib MiB, num_gpu × gpu_milli milli-GPUs |
//! | T_C^L | deletion − scheduled time, s; tasks still running at the trace end end there: their deletion time is the list's last one (12,902,960 s in the shipped list, 34 tasks), counted in [`AlibabaJobs::cut_at_trace_end`] |
//! | T_C^H | `T_C^L · (1 + hybrid_penalty)` (unused: every VM is in the cloud) |
//! | deadline | with probability `deadline_share` (seeded), `arrival + deadline_factor · T_C^L` |
//!
//! Tasks of zero duration are counted and left out (frugal's jobs run for a positive time).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Site;
use frugal_core::config::{ClusterConfig, InstanceTypeConfig, VmGroupConfig};
use frugal_core::job::Job;
use frugal_core::resources::{MIB_PER_GIB, Resources};
use frugal_traces::alibaba::{EMBEDDED_NODES, EMBEDDED_NODES_NAME, Node, Pod, read_nodes};

use super::TraceMapping;

/// Google Compute Engine N1 on-demand price per vCPU-hour, us-central1, 2023 (dollars).
pub const VCPU_PER_HOUR: f64 = 0.031611;
/// Google Compute Engine N1 on-demand price per GiB-hour of memory, us-central1, 2023.
pub const GIB_PER_HOUR: f64 = 0.004237;

/// Dollars per GPU-hour of a GPU model:
/// - T4 $0.35, P100 $1.46, V100 $2.48 (both 16 and 32 GB): Google Compute Engine GPU
///   on-demand prices, us-central1, 2023;
/// - A10 $0.81: AWS g5.xlarge (one A10G, 4 vCPU, 16 GiB, $1.006/h in us-east-1) less its
///   vCPUs and memory at the N1 rates (GCE offers no A10);
/// - the anonymised `G2` and `G3` (8-GPU servers) and any other model: the V100 rate, an
///   assumption (the trace does not say what they are).
pub fn gpu_per_hour(model: &str) -> f64 {
    match model {
        "T4" => 0.35,
        "P100" => 1.46,
        "A10" => 0.81,
        _ => 2.48,
    }
}

/// On-demand price of a cloud VM equivalent to `node`, dollars per hour: vCPUs and memory
/// at the N1 rates plus its GPUs at [`gpu_per_hour`].
pub fn node_price_per_hour(node: &Node) -> f64 {
    let cores = f64::from(node.cpu_milli / 1000);
    let gib = f64::from(node.memory_mib) / f64::from(MIB_PER_GIB);
    cores * VCPU_PER_HOUR + gib * GIB_PER_HOUR + f64::from(node.gpu) * gpu_per_hour(&node.model)
}

/// The cluster of `nodes` (rules in the module documentation).
pub fn alibaba_cluster(nodes: &[Node]) -> ClusterConfig {
    let mut instance_type: Vec<InstanceTypeConfig> = Vec::new();
    let mut vms: Vec<VmGroupConfig> = Vec::new();
    for n in nodes {
        let cores = n.cpu_milli.div_ceil(1000);
        let memory_gib = f64::from(n.memory_mib) / f64::from(MIB_PER_GIB);
        let name = if n.gpu == 0 {
            format!("cpu-{cores}c-{memory_gib}g")
        } else {
            format!("{}x{}-{cores}c-{memory_gib}g", n.model, n.gpu)
        };
        match vms.iter_mut().find(|g| g.instance_type == name) {
            Some(g) => g.count += 1,
            None => {
                instance_type.push(InstanceTypeConfig {
                    name: name.clone(),
                    cores,
                    memory_gib,
                    gpus: n.gpu,
                });
                vms.push(VmGroupConfig {
                    instance_type: name,
                    site: Site::Cloud,
                    count: 1,
                    price_per_second: None,
                    price_per_hour: Some(node_price_per_hour(n)),
                    capacity: Default::default(),
                });
            }
        }
    }
    ClusterConfig {
        billing: BillingGranularity::PerSecond,
        instance_type,
        vms,
    }
}

/// `data/alibaba-gpu-2023/cluster.toml`: [`alibaba_cluster`] of the shipped node list as
/// TOML, under a comment that says where it comes from (the `alibaba-gpu-2023` preset
/// embeds that file; a test checks it is this text).
///
/// # Errors
/// The shipped node list fails to parse, or TOML serialisation fails (neither happens;
/// both are tested).
pub fn alibaba_cluster_toml() -> Result<String, Box<dyn std::error::Error>> {
    let nodes = read_nodes(EMBEDDED_NODES.as_bytes(), EMBEDDED_NODES_NAME)?;
    let cfg = alibaba_cluster(&nodes);
    Ok(format!(
        "# The 1,523 nodes of the Alibaba GPU cluster trace of 2023 ({EMBEDDED_NODES_NAME}),\n\
         # one VM per node, nodes of one shape grouped, priced per hour as equivalent cloud VMs:\n\
         # vCPU ${VCPU_PER_HOUR} and GiB ${GIB_PER_HOUR} (GCE N1, us-central1), GPUs T4 $0.35,\n\
         # P100 $1.46, V100 $2.48 (GCE), A10 $0.81 (AWS g5 less CPU and memory), G2/G3 at\n\
         # the V100 rate (assumed). Generated by `cargo run -p frugal-sim --example\n\
         # alibaba_cluster`; rules in crates/frugal-sim/src/workload/alibaba.rs.\n\n{}",
        toml::to_string(&cfg)?
    ))
}

/// The jobs of a task list and the tasks left out or cut.
#[derive(Clone, Debug, PartialEq)]
pub struct AlibabaJobs {
    /// Jobs by arrival.
    pub jobs: Vec<Job>,
    /// Pending tasks (never scheduled in the trace), not replayed.
    pub dropped_never_scheduled: usize,
    /// Tasks whose deletion equals their scheduling, not replayed.
    pub dropped_zero_duration: usize,
    /// Replayed tasks still running at the trace end, whose run is cut there.
    pub cut_at_trace_end: usize,
}

/// Maps the first `limit` replayable tasks of `pods` (all if `None`) to jobs (rules in the
/// module documentation).
pub fn map_alibaba(pods: &[Pod], limit: Option<usize>, m: &TraceMapping) -> AlibabaJobs {
    let mut out = AlibabaJobs {
        jobs: Vec::new(),
        dropped_never_scheduled: 0,
        dropped_zero_duration: 0,
        cut_at_trace_end: 0,
    };
    let mut kept: Vec<(&Pod, u64)> = Vec::new();
    for p in pods {
        match p.scheduled_time {
            None => out.dropped_never_scheduled += 1,
            Some(s) if p.deletion_time == s => out.dropped_zero_duration += 1,
            Some(s) => kept.push((p, s)),
        }
    }
    // The trace ends at its last deletion; tasks deleted then were cut, not ended.
    let end = pods.iter().map(|p| p.deletion_time).max().unwrap_or(0);
    kept.sort_by_key(|(p, _)| p.creation_time);
    kept.truncate(limit.unwrap_or(usize::MAX));
    let mut rng = ChaCha8Rng::seed_from_u64(m.seed);
    for (p, scheduled) in kept {
        let run = (p.deletion_time - scheduled) as f64;
        let arrival = p.creation_time as f64;
        if p.deletion_time == end {
            out.cut_at_trace_end += 1;
        }
        let demand = Resources::new(p.cpu_milli.div_ceil(1000), p.memory_mib)
            .with_gpu_milli(p.gpu_milli_total());
        out.jobs
            .push(m.cpu_bound_job(&mut rng, p.name.clone(), (1, demand), arrival, run));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_traces::alibaba::read_pods;

    #[test]
    fn tasks_become_jobs_by_the_documented_rules() {
        let csv = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,\
                   creation_time,deletion_time,scheduled_time\n\
                   a,11300,16384,1,460,,LS,Running,50,1000,60\n\
                   b,2000,1024,0,0,,BE,Pending,10,20,\n\
                   c,4000,2048,8,1000,,LS,Succeeded,5,105,5\n\
                   d,1000,1024,0,0,,BE,Failed,7,7,7\n";
        let pods = read_pods(csv.as_bytes(), "t.csv").unwrap();
        let m = TraceMapping {
            deadline_share: 1.0,
            deadline_factor: 3.0,
            ..Default::default()
        };
        let out = map_alibaba(&pods, None, &m);
        assert_eq!(
            (
                out.dropped_never_scheduled,
                out.dropped_zero_duration,
                out.cut_at_trace_end
            ),
            (1, 1, 1)
        );
        let ids: Vec<&str> = out.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["c", "a"], "by creation time");
        let (c, a) = (&out.jobs[0], &out.jobs[1]);
        // 8 whole GPUs = 8,000 milli-GPUs; 100 s from scheduling to deletion.
        assert_eq!(
            c.executor_demand,
            Resources::new(4, 2048).with_gpu_milli(8000)
        );
        assert_eq!(
            (c.arrival, c.t_local, c.deadline),
            (5.0, 100.0, Some(305.0))
        );
        // 11.3 cores round up to 12; the share of one GPU stays 460 milli-GPUs; the
        // 10 s of waiting for scheduling are not part of the run.
        assert_eq!(
            a.executor_demand,
            Resources::new(12, 16384).with_gpu_milli(460)
        );
        assert_eq!((a.arrival, a.t_local, a.executors), (50.0, 940.0, 1));
        assert_eq!(map_alibaba(&pods, Some(1), &m).jobs.len(), 1);
    }

    #[test]
    fn shipped_cluster_toml_is_the_node_list_by_these_rules() {
        let shipped = include_str!("../../../../data/alibaba-gpu-2023/cluster.toml");
        let want = alibaba_cluster_toml().unwrap();
        assert!(
            shipped == want,
            "data/alibaba-gpu-2023/cluster.toml is stale; regenerate it with `cargo run -p \
             frugal-sim --example alibaba_cluster > data/alibaba-gpu-2023/cluster.toml`"
        );
        let c = ClusterConfig::from_toml(shipped, "cluster.toml")
            .unwrap()
            .build("cluster.toml")
            .unwrap();
        // The trace's published totals: 1,523 nodes, 125,514 cores, 6,212 GPUs.
        assert_eq!(c.len(), 1523);
        assert_eq!(c.total_capacity.cores(), 125_514);
        assert_eq!(c.total_capacity.gpu_milli(), 6_212_000);
    }

    #[test]
    fn nodes_become_priced_instance_types() {
        let csv = "sn,cpu_milli,memory_mib,gpu,model\n\
                   n0,96000,393216,8,G2\nn1,32000,262144,0,\nn2,96000,393216,8,G2\n\
                   n3,104000,524288,2,T4\n";
        let cfg = alibaba_cluster(&read_nodes(csv.as_bytes(), "n.csv").unwrap());
        let names: Vec<&str> = cfg.instance_type.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["G2x8-96c-384g", "cpu-32c-256g", "T4x2-104c-512g"]);
        assert_eq!(cfg.vms[0].count, 2);
        // T4 node: 104 × 0.031611 + 512 × 0.004237 + 2 × 0.35 = 6.156888 $/h.
        let p = cfg.vms[2].price_per_hour.unwrap();
        assert!((p - 6.156888).abs() < 1e-9, "{p}");
        let c = cfg.build("n.csv").unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c.total_capacity.gpu_milli(), 18_000);
    }
}

//! Builders for hand-worked examples.

#![allow(dead_code)]

use frugal_core::cluster::{Cluster, InstanceType, Site, VmGroup};
use frugal_core::{
    Backfill, DurationModel, Job, JobKind, PolicyKind, PolicyParams, QueueDiscipline, Resources,
    Rut, Scheduler, SchedulerConfig,
};

/// A scheduler of `policy` under `discipline` without the kind penalty, boot latency or
/// charged decision time, so hand-computed times are T_C^L.
pub fn scheduler(
    policy: PolicyKind,
    discipline: QueueDiscipline,
    admission_control: bool,
    backfill: Backfill,
) -> Scheduler {
    Scheduler::new(
        policy.build(&PolicyParams::default()),
        SchedulerConfig {
            discipline,
            admission_control,
            rut: Rut::default(),
            duration: DurationModel {
                kind_penalty: 0.0,
                contention: None,
                ..Default::default()
            },
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill,
        },
    )
}

/// One VM per `(cores, memory GiB, site, $/s)`, in order.
pub fn cluster(vms: &[(u32, u32, Site, f64)]) -> Cluster {
    let types = vms
        .iter()
        .enumerate()
        .map(|(i, &(c, m, _, _))| InstanceType {
            name: format!("t{i}"),
            capacity: Resources::from_gib(c, m),
        })
        .collect();
    let groups: Vec<VmGroup> = vms
        .iter()
        .enumerate()
        .map(|(i, &(_, _, site, price))| VmGroup {
            instance_type: i,
            site,
            count: 1,
            price_per_second: price,
        })
        .collect();
    Cluster::new(types, &groups)
}

/// A job of `executors` × (`cores`, `mem` GiB) arriving at 0 with T_C^L = `t`.
pub fn job(id: &str, executors: u32, cores: u32, mem: u32, t: f64) -> Job {
    Job {
        id: id.into(),
        kind: JobKind::CpuBound,
        executors,
        executor_demand: Resources::from_gib(cores, mem),
        arrival: 0.0,
        deadline: None,
        t_local: t,
        t_hybrid: 1.3 * t,
    }
}

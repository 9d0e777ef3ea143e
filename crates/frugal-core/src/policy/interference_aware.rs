//! Interference-aware placement — frugal's extension, in no paper: the per-job cost
//! optimum of paper 000 Eq. 16 ([`Optimal`]) priced at the run times the contention model
//! predicts ([`crate::contention`]), and a job started only where it slows no running job.
//!
//! # The rule
//!
//! With the load L_d on each contention domain ([`Load`]: the running jobs and those
//! placed earlier in the pass), a candidate placement that adds a_d to the domains it uses
//! runs at the multiplier s = max over those domains of 1/ρ(L_d + a_d) (the contention
//! model's rate, held constant: no job assumed to arrive or leave meanwhile). Each VM's
//! cost is paper 000 Eq. 4/11 at T_C·s instead of T_C: P · max(0, s·T_C − T_vm).
//!
//! A placement with s > 1 pushes its domains above capacity, where every job there runs
//! slower and its VMs bill the longer time (processor sharing: the domain's throughput
//! does not grow). On a per-second bill, waiting for a job to end costs nothing and
//! starting now costs every co-located job its slowdown, so while any job runs only
//! placements with s = 1 are taken; if none exists the job waits (`None`). A job alone
//! on the cluster is placed anyway, at its priced run time, so no job waits forever.
//! Deadlines are not weighed: a job that waits may miss one that starting it slowed would
//! also have missed, or not — the rows count both.
//!
//! The covers tried (each the exact minimum-cost cover of [`Optimal`] at its T_C·s): with
//! a local site, the local VMs at T_C^L and every VM at T_C^H; when the domains are the
//! sites ([`crate::contention::Scope::Site`]) also the cloud VMs alone at T_C^H, since
//! they then load another domain than the local ones. A cover over every VM is charged
//! its whole load in each domain it may use (cores: E × the executor's cores), an upper
//! bound. Ties: lower cost, then fewer VMs, then local before cloud before mixed.
//!
//! Without a contention model it is [`Optimal`], placement for placement. Cost per
//! decision: [`Optimal`]'s O(G·E), up to three times.

use super::{Optimal, PlacementPolicy};
use crate::cluster::{Cluster, Site};
use crate::contention::{DOMAINS, Load, LoadUnit, Scope};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// See the module doc.
#[derive(Clone, Debug, Default)]
pub struct InterferenceAware {
    optimal: Optimal,
    /// The load told before this call, if the run has a contention model.
    load: Option<Load>,
}

/// Which VMs a cover may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sites {
    Local,
    Cloud,
    All,
}

impl InterferenceAware {
    /// The load a cover over `sites` adds to each domain (an upper bound for `All`).
    fn added(load: &Load, job: &Job, sites: Sites) -> [f64; DOMAINS] {
        let unit = match load.model.load {
            LoadUnit::Jobs => 1.0,
            LoadUnit::Cores => f64::from(job.executors * job.executor_demand.cores()),
        };
        let mut a = [0.0; DOMAINS];
        let mut put = |site: Site| a[load.domain(site)] = unit;
        match sites {
            Sites::Local => put(Site::Local),
            Sites::Cloud => put(Site::Cloud),
            Sites::All => {
                put(Site::Local);
                put(Site::Cloud);
            }
        }
        a
    }
}

impl PlacementPolicy for InterferenceAware {
    fn name(&self) -> &'static str {
        "interference-aware"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        let Some(load) = self.load else {
            return self.optimal.place(job, cluster, now);
        };
        let mut tries: Vec<(Sites, f64)> = Vec::with_capacity(3);
        if cluster.has_local_site {
            tries.push((Sites::Local, job.t_local));
            if load.model.scope == Scope::Site {
                tries.push((Sites::Cloud, job.t_hybrid));
            }
            tries.push((Sites::All, job.t_hybrid));
        } else {
            tries.push((Sites::All, job.t_local));
        }
        let alone = load.jobs == 0;
        let mut best: Option<(f64, u32, Placement)> = None;
        for (sites, t_c) in tries {
            let s = load.slowdown_with(Self::added(&load, job, sites));
            if s > 1.0 && !alone {
                continue;
            }
            let ok = move |site: Site| match sites {
                Sites::Local => site == Site::Local,
                Sites::Cloud => site == Site::Cloud,
                Sites::All => true,
            };
            let Some(c) = self.optimal.cover(job, cluster, now, t_c * s, ok) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| (c.0, c.1) < (b.0, b.1)) {
                best = Some(c);
            }
        }
        best.map(|b| b.2)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }

    fn ranks_by_remaining_time(&self) -> bool {
        true
    }

    fn uses_load(&self) -> bool {
        true
    }

    fn observe_load(&mut self, load: Option<&Load>) {
        self.load = load.copied();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{InstanceType, VmGroup, VmId};
    use crate::contention::ContentionModel;
    use crate::job::JobKind;
    use crate::resources::Resources;

    /// Two local VMs of 4 cores at $1/h (ids 0, 1) and one cloud VM of 4 cores at $2/h
    /// (id 2); no placement index (too few VMs), so covers scan the VMs.
    fn cluster() -> Cluster {
        let t = InstanceType {
            name: "t".into(),
            capacity: Resources::from_gib(4, 16),
        };
        let g = |site, count, per_hour: f64| VmGroup {
            instance_type: 0,
            site,
            count,
            price_per_second: per_hour / 3600.0,
        };
        Cluster::new(vec![t], &[g(Site::Local, 2, 1.0), g(Site::Cloud, 1, 2.0)])
    }

    /// 2 executors of 2 cores, T_C^L = 100 s, T_C^H = 150 s.
    fn job() -> Job {
        Job {
            id: "j".into(),
            kind: JobKind::CpuBound,
            executors: 2,
            executor_demand: Resources::from_gib(2, 1),
            arrival: 0.0,
            deadline: None,
            t_local: 100.0,
            t_hybrid: 150.0,
        }
    }

    fn model(scope: Scope, capacity: f64) -> ContentionModel {
        ContentionModel {
            scope,
            load: LoadUnit::Jobs,
            capacity,
            slope: None,
        }
    }

    fn load(model: ContentionModel, local: f64, cloud: f64, jobs: u32) -> Load {
        let mut l = Load::idle(model);
        l.load[l.domain(Site::Local)] += local;
        l.load[l.domain(Site::Cloud)] += cloud;
        l.jobs = jobs;
        l
    }

    fn placed(p: &mut InterferenceAware, l: Option<Load>) -> Option<Vec<(VmId, u32)>> {
        p.observe_load(l.as_ref());
        p.place(&job(), &cluster(), 0.0).map(|p| p.executors_per_vm)
    }

    #[test]
    fn without_a_model_it_is_the_optimum() {
        let mut p = InterferenceAware::default();
        let mut o = Optimal::default();
        let want = o.place(&job(), &cluster(), 0.0).map(|p| p.executors_per_vm);
        assert_eq!(placed(&mut p, None), want);
        // Both executors (2 cores each) on one local VM: $1/h × 100 s.
        assert_eq!(want.unwrap().len(), 1);
    }

    #[test]
    fn it_waits_while_starting_would_push_the_cluster_over_capacity() {
        // κ = 2 jobs on one domain: with 1 running, a second fits (L = 2 ≤ κ); with 2
        // running a third would make it 3 > 2 (every job at 2/3 speed): it waits.
        let m = model(Scope::Cluster, 2.0);
        let mut p = InterferenceAware::default();
        assert!(placed(&mut p, Some(load(m, 1.0, 0.0, 1))).is_some());
        assert_eq!(placed(&mut p, Some(load(m, 2.0, 0.0, 2))), None);
    }

    #[test]
    fn a_job_alone_is_placed_even_above_capacity() {
        // κ = 0.5 jobs: one job alone runs at s = 2 (ρ = 0.5); priced at 200 s, it still
        // goes to the cheapest cover, one local VM.
        let m = model(Scope::Cluster, 0.5);
        let mut p = InterferenceAware::default();
        let got = placed(&mut p, Some(load(m, 0.0, 0.0, 0))).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, 2);
    }

    #[test]
    fn with_a_domain_per_site_it_moves_to_the_site_with_room() {
        // κ = 1 job per site, the local site already full: the local cover would slow its
        // job (s = 2), so it goes to the cloud VM at T_C^H = 150 s, although that costs
        // $2/h × 150 s = $0.0833 against $1/h × 100 s = $0.0278 locally.
        let m = model(Scope::Site, 1.0);
        let mut p = InterferenceAware::default();
        let got = placed(&mut p, Some(load(m, 1.0, 0.0, 1))).unwrap();
        assert_eq!(got, vec![(2, 2)]);
        // Both sites full: it waits.
        assert_eq!(placed(&mut p, Some(load(m, 1.0, 1.0, 2))), None);
    }
}

//! Profiling as the papers did: paper 000 §7.3 runs each job alone ten times and takes the
//! mean as its estimate (paper 004 §6.1.2 profiles its jobs too). Here every job class
//! of a workload (application, executors, cores, memory) runs alone `n` times under first
//! fit on the cluster, which keeps a job on one site where it fits, and `n` times under
//! round robin on the first VM of each site only, which deals its executors alternately
//! over the two sites (on a one-site cluster: round robin on the whole cluster). Each run
//! counts for T_C^L or T_C^H by the placement it really had, so a class that never
//! crossed the sites has no T_C^H (and the reverse): the rows say how many runs each mean
//! has.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::Serialize;

use frugal_core::cluster::Site;
use frugal_core::config::ClusterConfig;
use frugal_core::{Job, JobKind, PolicyKind, PolicySpec, Resources};

use super::{Application, LiveRun, LiveSettings, run};

/// One class's run times on one site or across sites.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileRow {
    /// The application.
    pub application: String,
    /// Executors.
    pub executors: u32,
    /// Cores per executor.
    pub cores: u32,
    /// Memory per executor, GiB.
    pub memory_gib: f64,
    /// `one-site` (T_C^L) or `across-sites` (T_C^H).
    pub placement: String,
    /// Runs measured.
    pub runs: usize,
    /// Mean run time, seconds: the estimate.
    pub mean_s: f64,
    /// Sample standard deviation, seconds (0 for one run).
    pub std_s: f64,
    /// Shortest run, seconds.
    pub min_s: f64,
    /// Longest run, seconds.
    pub max_s: f64,
}

/// A job class: what its run time depends on.
type Class = (JobKind, u32, Resources);

fn class(j: &Job) -> Class {
    (j.kind, j.executors, j.executor_demand)
}

/// Runs every class of `jobs` alone `n` times under first fit and `n` times under round
/// robin on the testbed of `s`, and returns each class's run times on one site and across
/// sites.
///
/// # Errors
/// A live run's error, or an unreadable cluster file.
pub fn profile(s: &LiveSettings, jobs: &[Job], n: usize) -> Result<Vec<ProfileRow>> {
    let file = s.cluster.display().to_string();
    let text = std::fs::read_to_string(&s.cluster).with_context(|| file.clone())?;
    let config = ClusterConfig::from_toml(&text, &file)?;
    let cluster = config.build(&file)?;
    let spread = match across_sites(&config) {
        Some(two) => {
            std::fs::create_dir_all(&s.dir)?;
            let path = std::path::absolute(s.dir.join("across-sites.toml"))?;
            std::fs::write(&path, toml::to_string(&two)?)?;
            (path, two.build("the across-sites cluster")?)
        }
        None => (s.cluster.clone(), cluster.clone()),
    };
    let mut classes: Vec<(Class, &Job)> = Vec::new();
    for j in jobs {
        if !classes.iter().any(|(c, _)| *c == class(j)) {
            classes.push((class(j), j));
        }
    }
    let mut times: BTreeMap<(usize, bool), Vec<f64>> = BTreeMap::new();
    for (kind, (file, on)) in [
        (PolicyKind::FirstFit, (s.cluster.clone(), &cluster)),
        (PolicyKind::RoundRobin, (spread.0.clone(), &spread.1)),
    ] {
        let mut runs = Vec::new();
        for (k, (_, j)) in classes.iter().enumerate() {
            for i in 0..n {
                runs.push(Job {
                    id: format!("c{k}-r{i}"),
                    arrival: 0.0,
                    deadline: None,
                    ..(*j).clone()
                });
            }
        }
        let live = LiveRun {
            workload: String::new(),
            repetition: 1,
            policy: PolicySpec::Builtin(kind),
            jobs: runs,
            one_at_a_time: true,
        };
        let settings = LiveSettings {
            cluster: file,
            ..s.clone()
        };
        let (_, rows) = run(&settings, &live)?;
        for r in rows {
            let (Some(run_s), Some(k)) = (r.run_s, r.job[1..].split('-').next()) else {
                continue;
            };
            let k: usize = k.parse()?;
            let sites: Vec<Site> = r
                .placement
                .split_whitespace()
                .filter_map(|p| p.split(':').next()?.parse::<u32>().ok())
                .map(|vm| on.vm(vm).site)
                .collect();
            let across = sites.iter().any(|&x| x != sites[0]);
            times.entry((k, across)).or_default().push(run_s);
        }
    }
    Ok(times
        .into_iter()
        .map(|((k, across), t)| {
            let (c, _) = classes[k];
            let mean = t.iter().sum::<f64>() / t.len() as f64;
            let var = if t.len() > 1 {
                t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (t.len() - 1) as f64
            } else {
                0.0
            };
            ProfileRow {
                application: Application::of(c.0).name().to_string(),
                executors: c.1,
                cores: c.2.cores(),
                memory_gib: c.2.memory_gib(),
                placement: if across { "across-sites" } else { "one-site" }.to_string(),
                runs: t.len(),
                mean_s: mean,
                std_s: var.sqrt(),
                min_s: t.iter().copied().fold(f64::INFINITY, f64::min),
                max_s: t.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            }
        })
        .collect())
}

/// Calibration runs for the contention model (frugal's extension): for each level k of
/// `levels`, one run under first fit of k jobs submitted at once, dealt over the classes
/// of `jobs` in turn (class 1, 2, …, 1, …: mixed), each with its class's estimate as
/// submitted (the profiled solo run time, when `jobs` carry it). A job that does not fit
/// at once waits; calibration uses the measured starts. The rows' `workload` is
/// `<k>-at-once`; the folders are `<dir>/<k>-at-once/first-fit`.
///
/// # Errors
/// A level of 0, or a live run's error.
pub fn at_once(s: &LiveSettings, jobs: &[Job], levels: &[u32]) -> Result<Vec<super::LiveJobRow>> {
    let mut classes: Vec<&Job> = Vec::new();
    for j in jobs {
        if !classes.iter().any(|c| class(c) == class(j)) {
            classes.push(j);
        }
    }
    let mut rows = Vec::new();
    for &k in levels {
        anyhow::ensure!(k > 0, "a concurrency level must be at least 1");
        let runs: Vec<Job> = (0..k as usize)
            .map(|i| Job {
                id: format!("k{k}-{i}"),
                arrival: 0.0,
                deadline: None,
                ..classes[i % classes.len()].clone()
            })
            .collect();
        let live = LiveRun {
            workload: format!("{k}-at-once"),
            repetition: 1,
            policy: PolicySpec::Builtin(PolicyKind::FirstFit),
            jobs: runs,
            one_at_a_time: false,
        };
        let (_, of_level) = run(s, &live).with_context(|| format!("{k} jobs at once"))?;
        rows.extend(of_level);
    }
    Ok(rows)
}

/// The cluster of `config`'s first VM of each site, if it has both sites.
fn across_sites(config: &ClusterConfig) -> Option<ClusterConfig> {
    let first = |site: Site| {
        config.vms.iter().find(|g| g.site == site).map(|g| {
            let mut one = g.clone();
            one.count = 1;
            one
        })
    };
    Some(ClusterConfig {
        vms: vec![first(Site::Local)?, first(Site::Cloud)?],
        ..config.clone()
    })
}

/// `jobs` with the profiled estimates: T_C^L the mean on one site and T_C^H the mean
/// across sites of the job's class, where measured. A class not measured on one site
/// keeps the job's T_C^L; one not measured across sites gets the profiled T_C^L × the
/// job's own T_C^H / T_C^L (its hybrid penalty). T_C^H is kept at least T_C^L, as the
/// model requires.
pub fn apply(jobs: &[Job], profile: &[ProfileRow]) -> Vec<Job> {
    let mean = |j: &Job, placement: &str| {
        profile
            .iter()
            .find(|p| {
                p.placement == placement
                    && p.application == Application::of(j.kind).name()
                    && p.executors == j.executors
                    && p.cores == j.executor_demand.cores()
                    && p.memory_gib == j.executor_demand.memory_gib()
            })
            .map(|p| p.mean_s)
    };
    jobs.iter()
        .map(|j| {
            let t_local = mean(j, "one-site").unwrap_or(j.t_local);
            let t_hybrid = mean(j, "across-sites")
                .unwrap_or(t_local * j.t_hybrid / j.t_local)
                .max(t_local);
            Job {
                t_local,
                t_hybrid,
                ..j.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(kind: JobKind, t: f64) -> Job {
        Job {
            id: "j".into(),
            kind,
            executors: 2,
            executor_demand: Resources::from_gib(1, 1),
            arrival: 0.0,
            deadline: None,
            t_local: t,
            t_hybrid: (1.0 + frugal_core::job::HYBRID_PENALTY) * t,
        }
    }

    fn row(application: &str, placement: &str, mean_s: f64) -> ProfileRow {
        ProfileRow {
            application: application.into(),
            executors: 2,
            cores: 1,
            memory_gib: 1.0,
            placement: placement.into(),
            runs: 10,
            mean_s,
            std_s: 1.0,
            min_s: mean_s - 1.0,
            max_s: mean_s + 1.0,
        }
    }

    /// Across sites: the first VM of each site, one each; none on a one-site cluster.
    #[test]
    fn the_across_sites_cluster_is_the_first_vm_of_each_site() {
        let text = "[[instance_type]]\nname = \"m\"\ncores = 2\nmemory_gib = 2\n\
                    [[vms]]\ninstance_type = \"m\"\nsite = \"local\"\ncount = 2\nprice_per_hour = 0.1\n\
                    [[vms]]\ninstance_type = \"m\"\nsite = \"cloud\"\ncount = 3\nprice_per_hour = 0.2\n";
        let config = ClusterConfig::from_toml(text, "c").unwrap();
        let two = across_sites(&config).unwrap().build("two").unwrap();
        let sites: Vec<Site> = two.vms.iter().map(|v| v.site).collect();
        assert_eq!(sites, [Site::Local, Site::Cloud]);
        let local = ClusterConfig {
            vms: config.vms[..1].to_vec(),
            ..config
        };
        assert!(across_sites(&local).is_none());
    }

    #[test]
    fn profiled_means_replace_the_estimates_of_their_class_only() {
        let profile = [
            row("wordcount", "one-site", 40.0),
            row("wordcount", "across-sites", 35.0),
            row("sort", "one-site", 50.0),
        ];
        let jobs = [
            job(JobKind::CpuBound, 60.0),
            job(JobKind::MemoryBound, 60.0),
            job(JobKind::NetworkBound, 90.0),
        ];
        let out = apply(&jobs, &profile);
        // Faster across sites than on one: T_C^H is kept at T_C^L (Eq. 5 needs ≥).
        assert_eq!((out[0].t_local, out[0].t_hybrid), (40.0, 40.0));
        // No cross-site runs: the job's own penalty (78 / 60 = 1.3) on the profiled T_C^L.
        assert_eq!((out[1].t_local, out[1].t_hybrid), (50.0, 65.0));
        // No profile: unchanged.
        assert_eq!((out[2].t_local, out[2].t_hybrid), (90.0, 117.0));
    }
}

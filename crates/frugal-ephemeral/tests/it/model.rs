//! Hand-worked checks of paper 001's formulas and rules: Eq. 1, the seasonal quantile,
//! Alg. 1, Alg. 3 and Cuckoo's slot and placement rules; and the shipped data against the
//! recipe that builds it.

use frugal_core::spec::Choice;
use std::io::Read;

use flate2::read::GzDecoder;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_ephemeral::cuckoo::{place_chunks, tracker_capacity};
use frugal_ephemeral::forecast::{Forecaster, Oracle, SeasonalQuantile, available};
use frugal_ephemeral::hosts::{self, DataCentre, Host, Hosts};
use frugal_ephemeral::job::{Job, JobSpec};
use frugal_ephemeral::network::max_min;
use frugal_ephemeral::plan::{Assignment, NodeCapacity, Plan, Problem, Violation, violations};
use frugal_ephemeral::planner::{Effort, Planner};
use frugal_ephemeral::runtime::{Qos, kills};
use frugal_ephemeral::trace::{self, Metric, PrimaryWorkload, Utilisation};
use frugal_ephemeral::{ForecasterKind, experiment, rffd};

#[test]
fn eq1_subtracts_forecast_and_margin_and_clamps_at_zero() {
    // 200 GFLOP/s × (1 − (0.30 + 0.05)) = 130 GFLOP/s.
    assert!((available(200.0, 0.30, 0.05) - 130.0).abs() < 1e-9);
    // §IV-B1: prediction 80 % + margin 30 % > 100 % → nothing to schedule on.
    assert_eq!(available(64.0, 0.80, 0.30), 0.0);
}

/// One host, 7 days, CPU = 10 × day % and RAM = 50 % everywhere.
fn synthetic() -> Utilisation {
    let mut csv = String::from("host,day,sample,cpu_pct,mem_pct\n");
    for day in 1..=7 {
        for s in 0..288 {
            csv += &format!("0,{day},{s},{},50\n", 10 * day);
        }
    }
    Utilisation::parse(csv.as_bytes(), "synthetic", 1).unwrap()
}

#[test]
fn seasonal_quantile_pools_the_same_time_of_day_over_past_days() {
    let u = synthetic();
    // Window from day 5: days 1–4 give 11 samples each of 0.1, 0.2, 0.3, 0.4. The median
    // sits at position 0.5 × 43 = 21.5 between the 22nd (0.2) and 23rd (0.3) values.
    let median = SeasonalQuantile {
        tau: 0.5,
        half_width: 5,
    };
    let f = median.forecast(&u, 0, Metric::Cpu, 4 * 480, 3);
    assert!(f.iter().all(|v| (v - 0.25).abs() < 1e-12), "{f:?}");
    let f = SeasonalQuantile::PAPER.forecast(&u, 0, Metric::Cpu, 4 * 480, 1);
    assert!((f[0] - 0.4).abs() < 1e-12);
    // From day 6 00:00 day 5 joins the history: the 0.99 quantile becomes 0.5.
    let f = SeasonalQuantile::PAPER.forecast(&u, 0, Metric::Cpu, 5 * 480, 1);
    assert!((f[0] - 0.5).abs() < 1e-12);
    assert_eq!(
        Oracle.forecast(&u, 0, Metric::Cpu, 6 * 480 + 7, 1),
        vec![0.7]
    );
    // Past day 7 the trace wraps to day 5.
    assert_eq!(u.at(0, Metric::Cpu, 7 * 480), 0.5);
}

#[test]
fn bad_utilisation_rows_are_named() {
    let bad = "host,day,sample,cpu_pct,mem_pct\n0,1,0,20,101\n";
    let e = Utilisation::parse(bad.as_bytes(), "u.csv", 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "u.csv, line 2: mem_pct = 101 is outside 0–100 %"
    );
    let short = "host,day,sample,cpu_pct,mem_pct\n0,1,0,20,10\n";
    let e = Utilisation::parse(short.as_bytes(), "u.csv", 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "u.csv: host 0 day 1 has 1 samples; 288 are needed"
    );
    let twice = "host,day,sample,cpu_pct,mem_pct\n0,1,0,20,10\n0,1,0,20,10\n";
    let e = Utilisation::parse(twice.as_bytes(), "u.csv", 1).unwrap_err();
    assert!(
        e.to_string()
            .contains("line 3: host 0 day 1 sample 0 appears twice")
    );
    let host = "host,day,sample,cpu_pct,mem_pct\n3,1,0,20,10\n";
    let e = Utilisation::parse(host.as_bytes(), "u.csv", 1).unwrap_err();
    assert!(e.to_string().contains("line 2: host 3"));
}

#[test]
fn hosts_add_up_to_table_2() {
    let h = Hosts::embedded();
    assert_eq!(
        h,
        hosts::generate(),
        "the shipped hosts.csv follows the rule"
    );
    for &dc in DataCentre::ALL {
        let (n, g, cpu, ram_tb) = dc.table2();
        let of = h.of(dc);
        assert_eq!(of.len(), n);
        let configs: std::collections::BTreeSet<usize> =
            of.iter().map(|h| h.configuration).collect();
        assert_eq!(configs.len(), g);
        assert!((of.iter().map(|h| h.cpu_gflops).sum::<f64>() - cpu).abs() < 1e-9);
        assert!((of.iter().map(|h| h.ram_gib).sum::<f64>() - ram_tb * 1024.0).abs() < 1e-9);
    }
    let bad = "host,dc,configuration,cpu_gflops,ram_gib\n0,PC-1,0,-1,10\n";
    let e = Hosts::parse(bad.as_bytes(), "h.csv").unwrap_err();
    assert!(
        e.to_string().starts_with("h.csv, line 2: cpu_gflops = -1"),
        "{e}"
    );
}

/// The shared data directory: beside the repository, or FRUGAL_SHARED_DATA.
fn shared_file(name: &str) -> String {
    let shared = std::env::var("FRUGAL_SHARED_DATA").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data").to_string()
    });
    let path = format!("{shared}/utilisation/{name}");
    assert!(
        std::path::Path::new(&path).exists(),
        "{path} is missing: this test needs ../shared/data beside the repository (or \
         FRUGAL_SHARED_DATA)"
    );
    path
}

/// Asserts that `data/ephemeral/utilisation{suffix}.csv.gz` and `manifest{suffix}.csv`
/// hold exactly `samples` and `manifest`.
fn assert_shipped(suffix: &str, samples: &[trace::Sample], manifest: &[trace::ManifestRow]) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/ephemeral/");
    let mut w = csv::Writer::from_writer(Vec::new());
    for s in samples {
        w.serialize(s).unwrap();
    }
    let mut shipped = Vec::new();
    GzDecoder::new(std::fs::File::open(format!("{root}utilisation{suffix}.csv.gz")).unwrap())
        .read_to_end(&mut shipped)
        .unwrap();
    assert!(
        w.into_inner().unwrap() == shipped,
        "utilisation{suffix}.csv.gz differs from the recipe"
    );
    let mut m = csv::Writer::from_writer(Vec::new());
    for r in manifest {
        m.serialize(r).unwrap();
    }
    let shipped = std::fs::read(format!("{root}manifest{suffix}.csv")).unwrap();
    assert!(
        m.into_inner().unwrap() == shipped,
        "manifest{suffix}.csv differs from the recipe"
    );
}

/// Needs the source traces, which are not in the repository (`../shared/data` beside it,
/// or `FRUGAL_SHARED_DATA`): `--ignored`, run by `.ci/run`.
#[test]
#[ignore = "needs the source traces in ../shared/data (or FRUGAL_SHARED_DATA)"]
fn shipped_traces_are_the_recipes_applied_to_the_sources() {
    let gcd = shared_file("GCD_VMs.tar.gz");
    let (samples, manifest) = trace::derive_from_gcd(std::path::Path::new(&gcd)).unwrap();
    assert_shipped("", &samples, &manifest);
    // Spec §2.2: the first host is job 3418442's VMs 1–7; University ends the list.
    assert_eq!(manifest[0].source, "GCD_VMs/vm_3418442_1");
    assert_eq!(manifest.last().unwrap().dc, DataCentre::University);
    assert_eq!(Utilisation::embedded().hosts(), 42);

    let planetlab = shared_file("planetlab_20110303.tar.gz");
    let (stressed, manifest) =
        trace::derive_planetlab(std::path::Path::new(&planetlab), &samples).unwrap();
    assert_shipped("-planetlab", &stressed, &manifest);
    // Step 5: host 0 day 1 is the first file in sorted order; host 1 day 1 the eighth.
    assert_eq!(
        manifest[0].source,
        "20110303/146-179_surfsnel_dsl_internl_net_colostate_557"
    );
    assert_eq!((manifest[7].host, manifest[7].day), (1, 1));
    // Memory is GCD's, sample for sample; CPU is not.
    assert!(
        stressed
            .iter()
            .zip(&samples)
            .all(|(p, g)| p.mem_pct == g.mem_pct)
    );
    assert!(
        stressed
            .iter()
            .zip(&samples)
            .any(|(p, g)| p.cpu_pct != g.cpu_pct)
    );
    let shipped = Utilisation::shipped(PrimaryWorkload::Planetlab);
    assert_eq!(shipped.hosts(), 42);
    assert_ne!(shipped, Utilisation::embedded());
}

#[test]
fn planetlab_recipe_names_the_file_and_line_of_a_bad_sample() {
    let dir = std::env::temp_dir().join(format!("frugal-pl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tarball = dir.join("pl.tar.gz");
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        std::fs::File::create(&tarball).unwrap(),
        flate2::Compression::fast(),
    ));
    let mut body = "5\n".repeat(10);
    body.push_str("101\n");
    let mut header = tar::Header::new_gnu();
    header.set_size(body.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    builder
        .append_data(&mut header, "20110303/a_vm", body.as_bytes())
        .unwrap();
    builder.into_inner().unwrap().finish().unwrap();
    let e = trace::derive_planetlab(&tarball, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("pl.tar.gz:20110303/a_vm, line 11"), "{e}");
    assert!(e.contains("CPU % = 101 is outside 0–100"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A job of `maps` maps and one reduce whose tasks each last 2 s on a 20-GFLOP/s host
/// (v = 1 GFLOP/s): 1 MiB chunks at 1,000 FLOP/B; the reduce reads 1 MiB per map... at
/// 500/maps FLOP/B.
fn tiny_job(maps: usize) -> Job {
    Job::new(
        0,
        JobSpec {
            maps,
            reduces: 1,
            chunk_mib: 1,
            map_flop_per_byte: 1000.0,
            reduce_flop_per_byte: 1000.0 / maps as f64,
            ram_gib: 1.0,
            map_output_ratio: 1.0,
        },
    )
}

/// A 20-GFLOP/s node whose available CPU per 180-s step is `slots` slots (1 GFLOP/s each)
/// and RAM 10 GiB, over two steps.
fn node(slots: [f64; 2]) -> NodeCapacity {
    NodeCapacity::new(20.0, slots.to_vec(), vec![10.0; 2])
}

#[test]
fn alg1_fills_the_earliest_second_and_keeps_reduces_after_maps() {
    let p = Problem {
        nodes: vec![node([1.0, 1.0]), node([0.0, 0.0])],
        jobs: vec![tiny_job(2)],
        window_s: 360,
        plan_slot_s: 1,
    };
    assert_eq!(p.duration((0, 0), 0), 2, "⌈1.048576 s⌉ … rounded up to 2 s");
    let plan = rffd::plan(&p, &mut ChaCha8Rng::seed_from_u64(1));
    let at = |node, start| Some(Assignment { node, start });
    assert_eq!(plan, Plan(vec![vec![at(0, 0), at(0, 2), at(0, 4)]]));
    assert_eq!(plan.makespan(&p), 6);
    assert!(violations(&p, &plan).is_empty());

    // Capacity only from the second step: the maps wait for it.
    let late = Problem {
        nodes: vec![node([0.0, 1.0])],
        ..p.clone()
    };
    let plan = rffd::plan(&late, &mut ChaCha8Rng::seed_from_u64(1));
    assert_eq!(plan.0[0][0], at(0, 180));

    // A window of 5 s cannot hold 6 s of work on one slot: the whole job is rejected.
    let short = Problem {
        window_s: 5,
        ..p.clone()
    };
    let plan = rffd::plan(&short, &mut ChaCha8Rng::seed_from_u64(1));
    assert_eq!(plan.scheduled(), 0);

    // Two one-slot nodes: both maps start at 0, one on each node, whichever the draw.
    let two = Problem {
        nodes: vec![node([1.0, 1.0]), node([1.0, 1.0])],
        ..p.clone()
    };
    let mut nodes_of_first_map = std::collections::BTreeSet::new();
    for seed in 0..16 {
        let plan = rffd::plan(&two, &mut ChaCha8Rng::seed_from_u64(seed));
        let (m0, m1) = (plan.0[0][0].unwrap(), plan.0[0][1].unwrap());
        assert_eq!((m0.start, m1.start), (0, 0));
        assert_ne!(m0.node, m1.node);
        assert_eq!(plan.0[0][2].unwrap().start, 2);
        nodes_of_first_map.insert(m0.node);
    }
    assert_eq!(nodes_of_first_map.len(), 2, "the draw is random");
}

#[test]
fn the_plan_checker_finds_each_kind_of_violation() {
    let p = Problem {
        nodes: vec![node([1.0, 1.0])],
        jobs: vec![tiny_job(2)],
        window_s: 360,
        plan_slot_s: 1,
    };
    let at = |start| Some(Assignment { node: 0, start });
    let bad = Plan(vec![vec![at(0), at(1), at(2)]]);
    let v = violations(&p, &bad);
    assert!(v.contains(&Violation::Capacity { node: 0, at: 1 }), "{v:?}");
    assert!(v.contains(&Violation::Precedence { task: (0, 2) }), "{v:?}");
    let partial = Plan(vec![vec![at(0), None, None]]);
    assert_eq!(
        violations(&p, &partial),
        vec![Violation::PartialJob { job: 0 }]
    );
    // Ending at 361 breaks Eq. 4, and second 360 has no forecast capacity at all.
    let late = Plan(vec![vec![at(0), at(2), at(359)]]);
    assert_eq!(
        violations(&p, &late),
        vec![
            Violation::EndsAfterWindow { task: (0, 2) },
            Violation::Capacity { node: 0, at: 360 }
        ]
    );
}

fn host(cpu_gflops: f64, ram_gib: f64) -> Host {
    Host {
        host: 0,
        dc: DataCentre::Pc1,
        configuration: 0,
        cpu_gflops,
        ram_gib,
    }
}

#[test]
fn alg3_throttles_cpu_and_kills_latest_first_only_for_ram() {
    let h = host(200.0, 100.0);
    let twenty = [3.0; 20];
    // S = 10 %, u_ram = 50 %: ramLimit = 100 × 0.4 = 40 GiB, sm = 10 GiB; 60 GiB of tasks
    // exceed 40 + 5 = 45: keep 15 tasks (45 GiB), kill 5.
    assert_eq!(kills(Qos::Throttle, &h, (0.9, 0.5), 0.10, &twenty), 5);
    // u_cpu = 90 % does not kill under Alg. 3 (CPU is throttled), with RAM to spare.
    assert_eq!(kills(Qos::Throttle, &h, (0.9, 0.1), 0.10, &twenty), 0);
    // u_ram = 85 %: ramLimit = 5 GiB ≤ sm = 10 GiB → kill every task.
    assert_eq!(kills(Qos::Throttle, &h, (0.1, 0.85), 0.10, &twenty), 20);
    // Cuckoo's original controller also kills for CPU: 20 slots of 10 GFLOP/s demand
    // 200 > 200 × (1 − 0.3 − 0.1) + 0.5 × 0.1 × 200 = 130 → keep 13, kill 7.
    assert_eq!(
        kills(Qos::KillOnAnyViolation, &h, (0.3, 0.1), 0.10, &twenty),
        7
    );
}

#[test]
fn cuckoo_spreads_tasks_like_hadoop_and_places_chunks_by_weight() {
    // 640 maps on 9 × 20 slots: full trackers; 40 reduces: ⌈40 × 20 / 180⌉ = 5.
    assert_eq!(tracker_capacity(640, 180, 20), 20);
    assert_eq!(tracker_capacity(40, 180, 20), 5);
    assert_eq!(tracker_capacity(1, 180, 20), 1);
    assert_eq!(tracker_capacity(0, 180, 20), 0);
    // Smooth WRR with weights 2:1:1 picks 0, 1, 2, 0 (credits [2,1,1]→0, [0,2,2]→1,
    // [2,−1,3]→2, [4,0,0]→0).
    let job = tiny_job(4);
    let one = place_chunks(&job, &[2.0, 1.0, 1.0], 1);
    assert_eq!(one, vec![vec![0], vec![1], vec![2], vec![0]]);
    for holders in place_chunks(&job, &[2.0, 1.0, 1.0], 3) {
        let mut h = holders.clone();
        h.sort_unstable();
        assert_eq!(h, vec![0, 1, 2], "three distinct replicas");
    }
}

#[test]
fn max_min_fairness_by_hand() {
    // Link 1 (4 B/s) is shared by flows 1 and 2: 2 each; flow 0 gets link 0's rest, 8.
    let r = max_min(&[&[0], &[0, 1], &[1]], &[10.0, 4.0]);
    assert_eq!(r, vec![8.0, 2.0, 2.0]);
}

/// The shipped hosts and the University hosts' workload, forecast by `kinds`.
fn university(kinds: &[ForecasterKind]) -> (Hosts, experiment::Workload) {
    let hosts = Hosts::embedded();
    let util = Utilisation::embedded();
    let ids: Vec<usize> = hosts
        .of(DataCentre::University)
        .iter()
        .map(|h| h.host)
        .collect();
    let workload = experiment::Workload::new(&util, 1.0, &ids, kinds).unwrap();
    (hosts, workload)
}

#[test]
fn runs_are_deterministic_and_salamander_runs_local() {
    let kinds = [
        ForecasterKind::SeasonalQuantile,
        ForecasterKind::QuantileRegression,
    ];
    let (hosts, workload) = university(&kinds);
    for (strategy, forecaster) in [
        (experiment::Strategy::Cuckoo, kinds[0]),
        (experiment::Strategy::CuckooFixedSlots, kinds[0]),
        (experiment::Strategy::Salamander(Planner::Rffd), kinds[0]),
        (experiment::Strategy::Salamander(Planner::Rffd), kinds[1]),
    ] {
        let spec = experiment::RunSpec {
            dc: DataCentre::University,
            job: JobSpec::paper(128),
            jobs: 1,
            margin_pct: 5,
            start_hour: 7,
            strategy,
            forecaster,
            volatility: 1.0,
            upload: false,
            control_step_s: None,
            plan_slot_s: 1,
            effort: Effort::Quick,
            wall_clock: None,
            seed: 3,
        };
        let a = experiment::run(&spec, &hosts, &workload);
        let b = experiment::run(&spec, &hosts, &workload);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert!(a.job_time_s.is_finite() && a.job_time_s > 0.0, "{a:?}");
        if strategy == experiment::Strategy::Salamander(Planner::Rffd) {
            assert_eq!(a.remote_pct, 0.0, "every chunk is where its map runs");
            assert!(a.plan_makespan_s > 0);
        }
    }
}

/// The controller's extra checks: at the injection period they change nothing (a check
/// right after the injection's finds nothing left to kill), and at Cuckoo's 3-s
/// heartbeat period the fixed-slot Cuckoo, which refills its slots at every heartbeat,
/// is killed at least as often as when it is checked every 180 s.
#[test]
fn a_finer_controller_clock_kills_at_least_as_often() {
    let kinds = [ForecasterKind::SeasonalQuantile];
    let (hosts, workload) = university(&kinds);
    let spec = |control_step_s| experiment::RunSpec {
        dc: DataCentre::University,
        job: JobSpec::paper(256),
        jobs: 1,
        margin_pct: 5,
        start_hour: 7,
        strategy: experiment::Strategy::CuckooFixedSlots,
        forecaster: kinds[0],
        volatility: 1.0,
        upload: false,
        control_step_s,
        plan_slot_s: 1,
        effort: Effort::Quick,
        wall_clock: None,
        seed: 3,
    };
    let coarse = experiment::run(&spec(None), &hosts, &workload);
    let same = experiment::run(&spec(Some(180.0)), &hosts, &workload);
    assert_eq!(format!("{coarse:?}"), format!("{same:?}"));
    let fine = experiment::run(&spec(Some(3.0)), &hosts, &workload);
    assert!(
        fine.relaunched_pct >= coarse.relaunched_pct,
        "{} < {}",
        fine.relaunched_pct,
        coarse.relaunched_pct
    );
}

/// Volatility scales each host's deviations from its 7-day mean: 1 is the trace, 0 a
/// constant load at the mean, and the result stays in [0, 1].
#[test]
fn volatility_scales_the_swings_around_each_hosts_mean() {
    use frugal_ephemeral::trace::Metric;
    let util = Utilisation::embedded();
    assert!(util.with_volatility(1.0) == util, "1 is the trace exactly");
    let flat = util.with_volatility(0.0);
    let doubled = util.with_volatility(2.0);
    for k in 0..util.hosts() {
        for m in [Metric::Cpu, Metric::Ram] {
            let s = util.series(k, m);
            let mean = s.iter().sum::<f64>() / s.len() as f64;
            assert!(flat.series(k, m).iter().all(|&u| (u - mean).abs() < 1e-12));
            for (&u, &d) in s.iter().zip(doubled.series(k, m)) {
                assert!((0.0..=1.0).contains(&d));
                assert!((d - (mean + 2.0 * (u - mean)).clamp(0.0, 1.0)).abs() < 1e-12);
            }
        }
    }
}

/// Two jobs of 2 maps (100 s on a 1 GFLOP/s slot) and 1 reduce (60 s) on one idle host of
/// 20 GFLOP/s: one host, so nothing moves over the network.
fn two_small_jobs() -> (Vec<Host>, Utilisation, Vec<Job>) {
    let host = Host {
        host: 0,
        dc: DataCentre::University,
        configuration: 0,
        cpu_gflops: 20.0,
        ram_gib: 64.0,
    };
    let mut csv = String::from("host,day,sample,cpu_pct,mem_pct\n");
    for day in 1..=trace::DAYS {
        for sample in 0..trace::SAMPLES_PER_DAY {
            csv.push_str(&format!("0,{day},{sample},0,0\n"));
        }
    }
    let util = Utilisation::parse(csv.as_bytes(), "idle.csv", 1).unwrap();
    let mib = frugal_ephemeral::job::MIB;
    let spec = JobSpec {
        maps: 2,
        reduces: 1,
        chunk_mib: 1,
        map_flop_per_byte: 100e9 / mib,
        reduce_flop_per_byte: 60e9 / (2.0 * mib),
        ram_gib: 1.0,
        ..JobSpec::paper(128)
    };
    (vec![host], util, vec![Job::new(0, spec), Job::new(1, spec)])
}

/// Several jobs at run time (runtime module docs): each job's reduces wait for its own
/// maps only, a job's time ends with its own last reduce, and Cuckoo serves the jobs first
/// in, first out with one reduce per heartbeat.
#[test]
fn several_jobs_end_on_their_own_reduces_and_cuckoo_serves_them_fifo() {
    use frugal_ephemeral::runtime::{self, Driver, RunConfig};
    let (hosts, util, jobs) = two_small_jobs();
    let config = |holders| RunConfig {
        hosts: &hosts,
        util: &util,
        t0_step: experiment::start_step(0),
        margin: 0.0,
        jobs: &jobs,
        holders,
        upload: false,
        qos: Qos::Throttle,
        control_step_s: None,
    };
    let local = || vec![vec![vec![0]; 2]; 2];
    // Plan: job 0's maps at 0 and its reduce at 100; job 1's maps at 100, its reduce at
    // 200. Job 0 ends at 160, job 1 at 260: mean 210 s.
    let a = |start| Some(Assignment { node: 0, start });
    let plan = Plan(vec![vec![a(0), a(0), a(100)], vec![a(100), a(100), a(200)]]);
    let nodes = vec![NodeCapacity::new(20.0, vec![20.0; 960], vec![64.0; 960])];
    let problem = Problem {
        nodes,
        jobs: jobs.clone(),
        window_s: trace::DAY_S,
        plan_slot_s: 1,
    };
    let rng = Box::new(ChaCha8Rng::seed_from_u64(1));
    let o = runtime::run(
        &config(local()),
        Driver::Plan {
            problem: &problem,
            plan,
            rng,
        },
    )
    .unwrap();
    assert_eq!(o.job_times_s, vec![160.0, 260.0]);
    assert_eq!(o.job_time_s, 210.0);
    // Cuckoo: the heartbeat at 0 starts all four maps (Hadoop's cap: ⌈4 × 20 / 20⌉); both
    // reduces are pending from 100, and one is handed out per heartbeat, job 0's first:
    // at 102 (ends 162) and at 105 (ends 165).
    let o = runtime::run(&config(local()), Driver::Slots { fixed: false }).unwrap();
    assert_eq!(o.job_times_s, vec![162.0, 165.0]);
    // With fixed slots both reduces start at the heartbeat at 102.
    let o = runtime::run(&config(local()), Driver::Slots { fixed: true }).unwrap();
    assert_eq!(o.job_times_s, vec![162.0, 162.0]);
}

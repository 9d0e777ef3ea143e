//! The benchmarks of `frugal bench`: decision latency per policy, whole-simulation speed
//! and memory, the RL environment and its training, the queue disciplines at scale and the
//! bag-of-tasks policies, the spot policies of paper 005; with `--scale`, the cost per job on 180 against 10,080 VMs and a
//! million jobs. Each section writes its table of figures.

mod bot;
mod scale;
mod spot;
mod zones;

use frugal_core::spec::Choice;
use std::time::Instant;

use std::io::Write;

use anyhow::Result;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use frugal_core::Reading;
use frugal_core::policy::{PolicyKind, PolicyParams};
use frugal_core::{Cluster, Placement, Preset, PricingModel, QueueDiscipline};
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};
use frugal_sim::experiment::Setup;
use frugal_sim::metrics::percentile;
use frugal_sim::workload::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, Load, SwimHour, SyntheticConfig, TraceMapping, map_swim,
    parse_swim, replicate_days, select_hour, synthetic,
};

use frugal_core::choice;

choice! {
    /// A part of `frugal bench`.
    pub enum Section {
        Placement = "placement": "(a) one placement decision per policy",
        Simulation = "simulation": "(b) whole simulations per policy",
        Env = "env": "(c) RL environment steps",
        Queues = "queues": "(d) queue disciplines on 10,000 jobs",
        BagOfTasks = "bag-of-tasks": "(e) bags of tasks: HA and FFD on NASA, a million tasks, the default comparison",
        Training = "training": "(g) RL training: REINFORCE and DQN iterations on the burst pattern, one core",
        Gap = "gap": "(h) the service's decision with the exact optimum computed beside it (the gap)",
        Spot = "spot": "(i) spot with deadlines (paper 005): windows per second per core per policy",
        Zones = "zones": "(j) one job across many zones (paper 006): time per window per policy beside the artifact's simulator",
    }
}

/// What `frugal bench` measures: each field is a flag (derived with feature `clap`).
#[derive(Clone, Debug)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct BenchSpec {
    /// Policy calls timed per policy and cluster (the `milp` policy makes 1/100 of them).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 200_000))]
    pub decisions: usize,
    /// Jobs in the whole-simulation benchmark (synthetic high load, large-scale cluster).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 10_000))]
    pub jobs: usize,
    /// Comma-separated policies (default all; the whole-simulation benchmark skips `milp`
    /// unless it is named).
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', value_parser = frugal_core::flags::choice::<PolicyKind>()))]
    pub policies: Option<Vec<PolicyKind>>,
    /// Environment steps timed (random valid actions, paper 002 Table 4 cluster, burst
    /// training hours).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 2_000_000))]
    pub env_steps: usize,
    /// Seed of the cluster state and the jobs.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Sections to run [default: all].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Section>(), value_delimiter = ',', conflicts_with = "scale"))]
    pub sections: Option<Vec<Section>>,
    /// Run only section (f), scale: per-job simulation time on the 180-VM large-scale
    /// cluster against its 56-fold copy (10,080 VMs, 56 copies of every job), then
    /// SWIM-derived jobs with first fit on 10,080 VMs (several minutes).
    #[cfg_attr(feature = "clap", arg(long))]
    pub scale: bool,
    /// With --scale: synthetic high-load jobs per 180 VMs.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 2_000, requires = "scale",
          value_parser = clap::value_parser!(u64).range(1..=100_000)))]
    pub scale_jobs: u64,
    /// With --scale: SWIM-derived jobs on 10,080 VMs with first fit (0 skips the run).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1_000_000, requires = "scale",
          value_parser = clap::value_parser!(u64).range(0..=10_000_000)))]
    pub scale_million: u64,
}

/// A preset cluster with about half the VMs on and partly occupied: a mid-run state in
/// which policies must inspect active and off VMs alike.
fn busy_cluster(preset: Preset, seed: u64) -> Cluster {
    let mut c = preset
        .config(PricingModel::Model1)
        .build("preset")
        .expect("preset is valid");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let demand = frugal_core::Resources::from_gib(1, 2);
    for id in 0..c.len() as u32 {
        if rng.random_bool(0.5) {
            let slots = c.vm(id).free.copies_of(&demand);
            let mut p = Placement::default();
            p.add(id, rng.random_range(1..=slots));
            c.reserve(&p, &demand, 0.0, 0.0, &mut Vec::new())
                .expect("fits by construction");
            c.extend_busy(&p, rng.random_range(10.0..500.0));
        }
    }
    c
}

pub(crate) fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Runs the sections `a` asks for and writes their tables to `out` (build with
/// `--release` for real figures).
///
/// # Errors
/// A section's error; I/O errors.
pub fn run(a: &BenchSpec, out: &mut impl Write) -> Result<()> {
    let policies: Vec<PolicyKind> = match &a.policies {
        Some(names) => names.clone(),
        None => PolicyKind::ALL
            .into_iter()
            .filter(PolicyKind::in_default_set)
            .collect(),
    };
    if a.scale {
        scale::bench(
            out,
            &policies,
            a.scale_jobs as usize,
            a.scale_million as usize,
            a.seed,
        )?;
        return Ok(());
    }
    let on = |s: Section| a.sections.as_ref().is_none_or(|list| list.contains(&s));
    if on(Section::Placement) {
        placement_bench(out, a, &policies)?;
    }
    if on(Section::Simulation) {
        simulation_bench(out, a, &policies)?;
    }
    if on(Section::Env) {
        env_bench(out, a.env_steps, a.seed)?;
    }
    if on(Section::Queues) {
        queue_bench(out, a.seed)?;
    }
    if on(Section::BagOfTasks) {
        bot::bench(out)?;
    }
    if on(Section::Training) {
        training_bench(out, a.seed)?;
    }
    if on(Section::Gap) {
        gap_bench(out, a, &policies)?;
    }
    if on(Section::Spot) {
        spot::bench(out, a.seed)?;
    }
    if on(Section::Zones) {
        zones::bench(out)?;
    }
    if let Some(mib) = peak_rss_mib() {
        writeln!(
            out,
            "\npeak resident memory of this process (all runs): {mib:.1} MiB"
        )?;
    }
    Ok(())
}

/// The jobs the decision benchmarks place: 4,096 of paper 000 §6.1's synthetic jobs at
/// high load (the text's reading), seeded by `seed`.
fn decision_jobs(seed: u64) -> Vec<frugal_core::job::Job> {
    synthetic(&SyntheticConfig {
        load: Load::High,
        reading: Reading::PaperText,
        jobs: 4096,
        hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
        seed,
    })
}

/// (a) one placement decision per policy on a busy small and large cluster.
fn placement_bench(out: &mut impl Write, a: &BenchSpec, policies: &[PolicyKind]) -> Result<()> {
    let jobs = decision_jobs(a.seed);
    for preset in [Preset::SmallHybrid, Preset::LargeHybrid] {
        let cluster = busy_cluster(preset, a.seed);
        writeln!(
            out,
            "(a) one placement decision, {} cluster ({} VMs, {} active), synthetic jobs of paper 000 §6.1",
            preset.name(),
            cluster.len(),
            cluster.vms.iter().filter(|v| v.is_active()).count(),
        )?;
        writeln!(
            out,
            "{:<26} {:>8} {:>12} {:>12} {:>12} {:>8}",
            "policy", "calls", "mean µs", "p99 µs", "max µs", "placed"
        )?;
        for &kind in policies {
            let calls = if kind == PolicyKind::Milp {
                (a.decisions / 100).max(1)
            } else {
                a.decisions
            };
            let mut policy = kind.build(&PolicyParams::default());
            let mut placed = 0usize;
            let mut times = Vec::with_capacity(calls);
            for i in 0..calls {
                let job = &jobs[i % jobs.len()];
                let t0 = Instant::now();
                let p = std::hint::black_box(policy.place(job, &cluster, 0.0));
                times.push(t0.elapsed().as_secs_f64() * 1e6);
                placed += usize::from(p.is_some());
            }
            let mean = times.iter().sum::<f64>() / calls as f64;
            let max = times.iter().copied().fold(0.0, f64::max);
            writeln!(
                out,
                "{:<26} {:>8} {:>12.3} {:>12.3} {:>12.1} {:>7.1}%",
                kind.name(),
                calls,
                mean,
                percentile(&mut times, 0.99),
                max,
                100.0 * placed as f64 / calls as f64
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// (h) what measuring the gap adds to one decision of the service: the policy's call
/// alone, and the call with the exact optimum beside it and both placements priced
/// (Eq. 16), as `Scheduler::measure_gap` does, on the busy large-scale cluster.
fn gap_bench(out: &mut impl Write, a: &BenchSpec, policies: &[PolicyKind]) -> Result<()> {
    use frugal_core::policy::objective::placement_cost;
    use frugal_core::policy::{Optimal, PlacementPolicy};
    let jobs = decision_jobs(a.seed);
    let cluster = busy_cluster(Preset::LargeHybrid, a.seed);
    writeln!(
        out,
        "(h) one decision with the gap to the optimum measured, large-scale cluster (busy)"
    )?;
    writeln!(
        out,
        "{:<26} {:>8} {:>14} {:>14} {:>14} {:>14}",
        "policy", "calls", "alone p99 µs", "+gap p99 µs", "alone mean µs", "+gap mean µs"
    )?;
    let calls = (a.decisions / 4).max(1);
    for &kind in policies.iter().filter(|k| **k != PolicyKind::Milp) {
        let mut policy = kind.build(&PolicyParams::default());
        let mut optimum = Optimal::default();
        let (mut alone, mut with_gap) = (Vec::with_capacity(calls), Vec::with_capacity(calls));
        for i in 0..calls {
            let job = &jobs[i % jobs.len()];
            let t0 = Instant::now();
            std::hint::black_box(policy.place(job, &cluster, 0.0));
            alone.push(t0.elapsed().as_secs_f64() * 1e6);
            let t0 = Instant::now();
            if let Some(p) = policy.place(job, &cluster, 0.0) {
                let chosen = placement_cost(job, &cluster, 0.0, &p);
                let best = if kind == PolicyKind::Optimal {
                    chosen
                } else {
                    optimum
                        .place(job, &cluster, 0.0)
                        .map_or(chosen, |o| placement_cost(job, &cluster, 0.0, &o))
                };
                std::hint::black_box((chosen, best));
            }
            with_gap.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        writeln!(
            out,
            "{:<26} {:>8} {:>14.3} {:>14.3} {:>14.3} {:>14.3}",
            kind.name(),
            calls,
            percentile(&mut alone, 0.99),
            percentile(&mut with_gap, 0.99),
            mean(&alone),
            mean(&with_gap),
        )?;
    }
    writeln!(out)?;
    Ok(())
}

/// (b) whole simulations of synthetic high-load jobs on the large-scale cluster.
fn simulation_bench(out: &mut impl Write, a: &BenchSpec, policies: &[PolicyKind]) -> Result<()> {
    let default_policies = a.policies.is_none();
    let setup = bench_setup(Preset::LargeHybrid);
    let jobs = synthetic(&SyntheticConfig {
        load: Load::High,
        reading: Reading::PaperText,
        jobs: a.jobs,
        hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
        seed: a.seed,
    });
    writeln!(
        out,
        "(b) whole simulation: {} synthetic high-load jobs (paper 000 §6.1), large-scale hybrid cluster",
        a.jobs
    )?;
    writeln!(
        out,
        "{:<26} {:>10} {:>12} {:>10}",
        "policy", "wall s", "jobs/s", "cost $"
    )?;
    for &kind in policies
        .iter()
        .filter(|&&k| !(default_policies && k.is_solver()))
    {
        let t0 = Instant::now();
        let r = setup.run(kind, &jobs);
        let wall = t0.elapsed().as_secs_f64();
        writeln!(
            out,
            "{:<26} {:>10.3} {:>12.0} {:>10.2}",
            kind.name(),
            wall,
            a.jobs as f64 / wall,
            r.summary.total_cost
        )?;
    }
    Ok(())
}

/// Resets the process's peak resident memory (VmHWM), so the next reading covers only
/// what follows; false where the kernel does not support it.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Runs `f` and returns its result, its wall seconds and the peak resident MiB while it
/// ran ("-" where the kernel cannot reset the peak).
pub(crate) fn measure<T>(f: impl FnOnce() -> T) -> (T, f64, String) {
    let measured = reset_peak_rss();
    let t0 = Instant::now();
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let rss = peak_rss_mib()
        .filter(|_| measured)
        .map_or("-".into(), |m| format!("{m:.1}"));
    (out, wall, rss)
}

/// `jobs` SWIM jobs: the embedded FB-2009 day replayed day after day
/// ([`replicate_days`]), mapped with `seed`.
pub(crate) fn swim_days(jobs: usize, seed: u64) -> Result<Vec<frugal_core::Job>> {
    let records = parse_swim(EMBEDDED_FB2009, EMBEDDED_FB2009_NAME)?;
    let long = replicate_days(&records, jobs);
    Ok(map_swim(
        &select_hour(&long, SwimHour::Day, None),
        &TraceMapping {
            seed,
            ..Default::default()
        },
    ))
}

/// (d) the queue disciplines at scale on the small-scale hybrid cluster: 10,000 SWIM
/// jobs (the FB-2009 day replayed, `replicate_days`) and 10,000 synthetic high-load jobs
/// (paper 000 §6.1), which saturate it and keep thousands of jobs waiting.
fn queue_bench(out: &mut impl Write, seed: u64) -> Result<()> {
    let swim = swim_days(10_000, seed)?;
    let high = synthetic(&SyntheticConfig {
        load: Load::High,
        reading: Reading::PaperText,
        jobs: 10_000,
        hybrid_penalty: frugal_core::job::HYBRID_PENALTY,
        seed,
    });
    let mut setup = bench_setup(Preset::SmallHybrid);
    writeln!(
        out,
        "\n(d) queue disciplines, 10,000 jobs, small-scale hybrid cluster (9 VMs)"
    )?;
    writeln!(
        out,
        "{:<22} {:<26} {:<15} {:>9} {:>14} {:>10}",
        "workload", "policy", "queue", "wall s", "peak RSS MiB", "cost $"
    )?;
    for (name, jobs) in [("SWIM FB-2009 days", &swim), ("synthetic high", &high)] {
        for (policy, queue) in [
            (PolicyKind::Morpheus, QueueDiscipline::Morpheus),
            (
                PolicyKind::BestFitDecreasing,
                QueueDiscipline::DeadlineFirst,
            ),
            (PolicyKind::FirstFit, QueueDiscipline::Edf),
        ] {
            setup.queue = Some(queue);
            let (r, wall, rss) = measure(|| setup.run(policy, jobs));
            writeln!(
                out,
                "{:<22} {:<26} {:<15} {:>9.3} {:>14} {:>10.2}",
                name,
                policy.name(),
                queue.name(),
                wall,
                rss,
                r.summary.total_cost
            )?;
        }
    }
    Ok(())
}

/// The fixed conditions of the whole-simulation benchmarks on a preset (pricing model 1,
/// per-second billing, each policy's queue).
pub(crate) fn bench_setup(preset: Preset) -> Setup {
    Setup::of(
        preset
            .config(PricingModel::Model1)
            .build(preset.name())
            .expect("preset is valid"),
    )
}

/// (g) training speed: 200 REINFORCE iterations (10 episodes each) and 5,000 DQN iterations
/// (10 steps and one minibatch update each), Table 5 settings, on the burst pattern of both
/// job sources under the paper protocol.
fn training_bench(out: &mut impl Write, seed: u64) -> Result<()> {
    use frugal_agents::{AgentKind, TrainConfig, train};
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("paper002-cloud")
        .expect("preset is valid");
    writeln!(
        out,
        "\n(g) RL training, paper 002 Table 4 cluster, burst pattern, paper protocol, one core:"
    )?;
    for source in [JobSource::Swim, JobSource::Generator] {
        let mut env = SparkPlacementEnv::new(EnvConfig::paper002(
            cluster.clone(),
            episodes(source, Protocol::Paper, Pattern::Burst, Split::Train, seed),
            Mode::Masked,
            0.75,
        ))?;
        for (agent, iterations) in [(AgentKind::Reinforce, 200), (AgentKind::Dqn, 5_000)] {
            let cfg = TrainConfig::paper002(agent, iterations, seed);
            let mut steps = 0usize;
            let t0 = Instant::now();
            let mut episodes_done = 0usize;
            train(&mut env, &cfg, |s, _| {
                if s.mean_return.is_some() {
                    episodes_done += match agent {
                        AgentKind::Reinforce => cfg.collect_episodes,
                        AgentKind::Dqn | AgentKind::Ppo => 1,
                    };
                }
                steps += 1;
            })?;
            let wall = t0.elapsed().as_secs_f64();
            writeln!(
                out,
                "  {:<10} {:<9} {iterations:>6} iterations in {wall:6.2} s = {:8.1} it/s, {:7.1} episodes/s (the paper's budget, 20,000 iterations: {:.0} s)",
                source.name(),
                format!("{agent:?}").to_lowercase(),
                steps as f64 / wall,
                episodes_done as f64 / wall,
                20_000.0 * wall / steps as f64,
            )?;
        }
    }
    Ok(())
}

/// (c) steps per second of the RL environment with uniformly random feasible actions.
fn env_bench(out: &mut impl Write, steps: usize, seed: u64) -> Result<()> {
    let cluster = Preset::Paper002Cloud
        .config(PricingModel::Real)
        .build("paper002-cloud")
        .expect("preset is valid");
    let mut env = SparkPlacementEnv::new(EnvConfig::paper002(
        cluster,
        episodes(
            JobSource::Swim,
            Protocol::HeldOut,
            Pattern::Burst,
            Split::Train,
            seed,
        ),
        Mode::Masked,
        0.5,
    ))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut valid = Vec::with_capacity(env.action_count());
    let (mut episodes, mut done) = (0u64, 0usize);
    env.reset(Some(seed));
    let t0 = Instant::now();
    while done < steps {
        if env.is_done() {
            env.reset(None);
            episodes += 1;
        }
        valid.clear();
        valid.extend((0..env.action_count()).filter(|&a| env.action_mask()[a]));
        let action = valid[rng.random_range(0..valid.len())];
        std::hint::black_box(env.step(action)?);
        done += 1;
    }
    let wall = t0.elapsed().as_secs_f64();
    writeln!(
        out,
        "\n(c) RL environment, paper 002 Table 4 cluster (12 VMs), burst pattern, random feasible actions:\n\
         {steps} steps in {wall:.3} s = {:.0} steps/s ({episodes} episodes)",
        steps as f64 / wall
    )?;
    Ok(())
}

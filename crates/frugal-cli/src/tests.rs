//! The argument parser under arbitrary command lines: every one is either accepted and
//! planned, or refused with exit status 2 (0 for --help/--version) and a message —
//! never a panic.

use clap::Parser;
use proptest::prelude::*;

use crate::{Cli, Command};

const FLAGS: &[&str] = &[
    "--cluster",
    "--pricing",
    "--billing",
    "--load",
    "--trace",
    "--hour",
    "--jobs",
    "--synthetic",
    "--jobs-csv",
    "--policies",
    "--baseline",
    "--queue",
    "--admission-control",
    "--alpha",
    "--hybrid-penalty",
    "--hybrid-rule",
    "--kind-penalty",
    "--deadline-share",
    "--deadline-factor",
    "--milp-backend",
    "--milp-time-limit",
    "--charge-decision-time",
    "--boot-latency",
    "--keep-alive",
    "--seed",
    "--repetitions",
    "--format",
    "--wide",
    "--timings",
    "--threads",
    "--help",
    "--version",
];

const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "6",
    "23",
    "24",
    "50",
    "-1",
    "-0",
    "0.5",
    "1e20",
    "1e-300",
    "NaN",
    "inf",
    "-inf",
    "",
    " ",
    "day",
    "real",
    "both",
    "light",
    "high",
    "first-fit",
    "frist-fit",
    "gio,milp",
    "optimal,asq",
    "milp",
    "rl:",
    "rl:/nonexistent",
    "edf",
    "morpheus",
    "small-hybrid",
    "large-hybrid",
    "paper002-cloud",
    "paper004-cloud",
    "/nonexistent.toml",
    "/dev/null",
    "per-hour",
    "per-second",
    "spanning",
    "highs",
    "microlp",
    "csv",
    "json",
    "markdown",
    "table",
    "18446744073709551615",
    "99999999999",
    "é",
    "--",
    "-",
    "=",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(FLAGS).prop_map(String::from),
        4 => proptest::sample::select(VALUES).prop_map(String::from),
        1 => ".{0,12}",
        1 => (proptest::sample::select(FLAGS), proptest::sample::select(VALUES))
            .prop_map(|(f, v)| format!("{f}={v}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_argv_is_planned_or_refused_with_status_2(
        tokens in proptest::collection::vec(token(), 0..7),
        subcommand in any::<bool>(),
    ) {
        let mut argv = vec!["frugal".to_string()];
        if subcommand {
            argv.push("simulate".into());
        }
        argv.extend(tokens);
        match Cli::try_parse_from(&argv) {
            Err(e) => {
                let code = e.exit_code();
                prop_assert!(code == 0 || code == 2, "{argv:?}: exit {code}");
                prop_assert!(!e.to_string().is_empty());
            }
            Ok(Cli { command: Some(Command::Simulate(a)), .. }) => {
                if let Err(e) = frugal_sim::options::plan(&a.options, &frugal_agents::load_policy) {
                    let message = format!("{e:#}");
                    prop_assert!(!message.is_empty());
                }
            }
            Ok(_) => {}
        }
    }
}

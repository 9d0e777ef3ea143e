//! The argument parser under arbitrary command lines: every one is either accepted and
//! planned, or refused with exit status 2 (0 for --help/--version) and a message —
//! never a panic.

use clap::{CommandFactory, FromArgMatches, Parser};
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
        let matches = Cli::command().try_get_matches_from(&argv);
        match matches.and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m))) {
            Err(e) => {
                let code = e.exit_code();
                prop_assert!(code == 0 || code == 2, "{argv:?}: exit {code}");
                prop_assert!(!e.to_string().is_empty());
            }
            Ok((Cli { command: Some(Command::Simulate(a)), .. }, _)) => {
                if let Err(e) = frugal_sim::options::plan(&a.options, &frugal_agents::load_policy) {
                    let message = format!("{e:#}");
                    prop_assert!(!message.is_empty());
                }
            }
            Ok(_) => {}
        }
    }
}

/// The book's command-line reference is `--help` of every command, generated here and kept
/// equal (`FRUGAL_UPDATE_BOOK=1 cargo test -p frugal-cli --bin frugal` rewrites it).
#[test]
fn the_books_command_reference_is_the_help() {
    use clap::CommandFactory;
    fn walk(cmd: &mut clap::Command, path: &str, out: &mut String) {
        if cmd.is_hide_set() {
            return;
        }
        let name = if path.is_empty() {
            cmd.get_name().to_string()
        } else {
            format!("{path} {}", cmd.get_name())
        };
        let help = cmd.render_long_help().to_string();
        out.push_str(&format!(
            "## `{name}`\n\n```text\n{}\n```\n\n",
            help.trim_end()
        ));
        for sub in cmd.get_subcommands_mut() {
            if sub.get_name() != "help" {
                walk(sub, &name, out);
            }
        }
    }
    let mut cmd = Cli::command().term_width(100);
    cmd.build();
    let mut text = String::from(
        "# Command line\n\nEvery command's `--help`, generated from the code (a test keeps this page equal to it).\n\n",
    );
    walk(&mut cmd, "", &mut text);
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/book/src/reference/cli.md");
    if std::env::var_os("FRUGAL_UPDATE_BOOK").is_some() {
        std::fs::write(&page, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&page).unwrap_or_default();
    assert!(
        on_disk == text,
        "docs/book/src/reference/cli.md differs from --help: rerun with FRUGAL_UPDATE_BOOK=1"
    );
}

/// The specs whose flags are derived on them take their `Default` when no flag is given.
#[test]
fn derived_flags_default_to_the_specs_defaults() {
    let cli = Cli::try_parse_from(["frugal", "loadtest"]).unwrap();
    let Some(Command::Loadtest(spec)) = cli.command else {
        panic!("loadtest parses")
    };
    assert_eq!(spec, frugal_report::loadtest::LoadtestSpec::default());
    let cli = Cli::try_parse_from(["frugal", "serve"]).unwrap();
    let Some(Command::Serve(a)) = cli.command else {
        panic!("serve parses")
    };
    assert_eq!(a.spec, frugal_service::ServeSpec::default());
    let cli = Cli::try_parse_from(["frugal", "ephemeral"]).unwrap();
    let Some(Command::Ephemeral(a)) = cli.command else {
        panic!("ephemeral parses")
    };
    assert_eq!(
        a.options,
        frugal_ephemeral::options::EphemeralSpec::default()
    );
    let cli = Cli::try_parse_from(["frugal", "ephemeral", "--primary-workload", "gcd"]).unwrap();
    let Some(Command::Ephemeral(a)) = cli.command else {
        panic!("ephemeral parses")
    };
    assert_eq!(
        a.options.primary_workload,
        Some(frugal_ephemeral::PrimaryWorkload::Gcd),
        "given with its default value, it is given"
    );
    let cli = Cli::try_parse_from(["frugal", "train"]).unwrap();
    let Some(Command::Train(spec)) = cli.command else {
        panic!("train parses")
    };
    assert_eq!(spec, frugal_agents::training::TrainSpec::default());
}

//! clap parsers of the libraries' value types: a [`Choice`] (so `--help` lists its names
//! with their help and a typo gets clap's suggestion), a placement policy
//! (`<POLICY|rl:CHECKPOINT>`), a cluster (`<PRESET|FILE>`), and a number in a range for the
//! flags of the commands without a spec (`serve`, `live`, `agent`, `loadtest`). The names
//! and help come from the libraries; only their rendering as flags is here.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command};

use frugal_core::PolicyKind;
use frugal_core::PolicySpec;
use frugal_core::Preset;
use frugal_core::policy::PolicySpecError;
use frugal_core::spec::Choice;
use frugal_sim::options::choices::ClusterSource;

/// The possible values of a [`Choice`], each with its help.
fn possible<T: Choice>() -> impl Iterator<Item = PossibleValue> {
    T::ALL
        .iter()
        .map(|c| PossibleValue::new(c.name()).help(c.help()))
}

/// A parser of a [`Choice`] by name (`#[arg(value_parser = choice::<QueueDiscipline>())]`).
pub fn choice<T: Choice>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(possible::<T>())
        .map(|name| T::from_name(&name).expect("one of the possible values"))
}

/// Parses a [`PolicySpec`] (its [`FromStr`](std::str::FromStr)); a built-in name that is
/// not one gets clap's error, with its possible values and suggestion.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyParser;

impl TypedValueParser for PolicyParser {
    type Value = PolicySpec;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<PolicySpec, clap::Error> {
        let text = value.to_str().unwrap_or_default();
        match text.parse::<PolicySpec>() {
            Ok(spec) => Ok(spec),
            Err(e @ PolicySpecError::NoCheckpoint) => Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("{e}\n"),
            )
            .with_cmd(cmd)),
            Err(e @ PolicySpecError::Unknown { .. }) => {
                // clap's error, naming the flag, the possible values and the nearest one.
                PossibleValuesParser::new(possible::<PolicyKind>()).parse_ref(cmd, arg, value)?;
                unreachable!("{e}: a built-in name parses")
            }
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let rl = PossibleValue::new("rl:<checkpoint>")
            .help("A DQN or REINFORCE agent trained with `frugal train` (paper 002 §5)");
        let offline = PossibleValue::new("offline").help(
            "Not online: the cheapest schedule a search over per-job policy choices finds \
             knowing every job, and a proven lower bound on any schedule's bill",
        );
        Some(Box::new(possible::<PolicyKind>().chain([rl, offline])))
    }
}

/// Parses a preset name or a path.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClusterParser;

impl TypedValueParser for ClusterParser {
    type Value = ClusterSource;

    fn parse_ref(
        &self,
        _cmd: &Command,
        _arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<ClusterSource, clap::Error> {
        Ok(match value.to_str() {
            Some(s) => s.parse().unwrap_or_else(|never| match never {}),
            None => ClusterSource::File(value.into()),
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let file = PossibleValue::new("<file.toml>")
            .help("A cluster file (format in the book's configuration reference)");
        Some(Box::new(possible::<Preset>().chain(std::iter::once(file))))
    }
}

/// A parser of a number in `[min, max]`, whose error names the range.
pub fn number_in(
    min: f64,
    max: f64,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.trim().parse::<f64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is outside [{min}, {max}]")),
        Err(_) => Err(format!("not a number: {s:?}")),
    }
}

/// Whether the flag `id` was given on the command line (not taken from its default), for the
/// spec fields that are unset when not given; `None`: no flag was.
pub fn given(matches: Option<&ArgMatches>, id: &str) -> bool {
    matches.is_some_and(|m| m.value_source(id) == Some(ValueSource::CommandLine))
}

/// `argv` parsed as the flags `A` alone, with the matches that tell which were given (for
/// the tests of the flags' mapping onto a spec).
#[cfg(test)]
pub fn parsed<A: clap::Args + clap::FromArgMatches>(argv: &[&str]) -> (A, ArgMatches) {
    let m = A::augment_args(Command::new("frugal")).get_matches_from(argv);
    (A::from_arg_matches(&m).expect("the flags parse"), m)
}

//! clap value parsers of the library's value types (feature `clap`), for the specs that
//! derive their command-line flags: a [`Choice`] (so `--help` lists its names with their
//! help and a typo gets clap's suggestion), a placement policy (`<POLICY|rl:CHECKPOINT>`)
//! and a number in a range. The names and help are the types'; only their rendering as
//! flags is here.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, Command};

use crate::PolicyKind;
use crate::PolicySpec;
use crate::policy::PolicySpecError;
use crate::spec::Choice;

/// The possible values of a [`Choice`], each with its help.
pub fn possible<T: Choice>() -> impl Iterator<Item = PossibleValue> {
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

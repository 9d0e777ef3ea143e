//! The clap parsers of the libraries' value types (`frugal_core::flags`, the cluster's in
//! `frugal-sim`), and which flags were given.

use clap::ArgMatches;
#[cfg(test)]
use clap::Command;
use clap::parser::ValueSource;

pub use frugal_core::flags::{PolicyParser, choice, number_in};
pub use frugal_sim::options::choices::ClusterParser;

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

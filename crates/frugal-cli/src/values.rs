//! The clap parsers of the libraries' value types (`frugal_core::flags`, the cluster's in
//! `frugal-sim`), for the commands whose flags are not a library spec's.

pub use frugal_core::flags::{PolicyParser, choice};
pub use frugal_sim::options::choices::ClusterParser;

/// `argv` parsed as the flags `A` alone, with their matches (for the tests of the flags).
#[cfg(test)]
pub fn parsed<A: clap::Args + clap::FromArgMatches>(argv: &[&str]) -> (A, clap::ArgMatches) {
    let m = A::augment_args(clap::Command::new("frugal")).get_matches_from(argv);
    (A::from_arg_matches(&m).expect("the flags parse"), m)
}

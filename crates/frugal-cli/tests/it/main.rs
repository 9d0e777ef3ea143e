//! frugal-cli's integration tests: one test binary, a module per file (one link of the
//! workspace instead of one per file). Tests that need a real part outside the process are
//! `#[ignore]`d and run by `.ci/run`; select a file's tests with its module name as the
//! filter, e.g. `cargo test -p frugal-cli --test it bag_of_tasks::`.

mod common;

mod bag_of_tasks;
mod book;
mod cli;
mod dashboard;
#[cfg(feature = "ec2")]
mod ec2;
mod emulated_hosts;
mod ephemeral;
mod live;
mod multi_host;
mod reproduce;
mod serve;
mod spark;
mod whatif;

//! frugal-sim's integration tests: one test binary, a module per file (one link of the
//! workspace instead of one per file). Tests that need a real part outside the process are
//! `#[ignore]`d and run by `.ci/run`; select a file's tests with its module name as the
//! filter, e.g. `cargo test -p frugal-sim --test it engine::`.

mod authors_workloads;
mod engine;
mod parsers;
mod properties;

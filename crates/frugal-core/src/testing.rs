//! What the workspace's tests do when a real part they need is missing (root, a tool, the
//! source traces in `../shared`): skip with a message for a developer, fail in CI.
//!
//! CI (`.ci/run`, which runs as root with every real part installed) sets
//! [`REQUIRE_VAR`]`=1`; there a missing part is a defect of the machine or of the script,
//! and a test that quietly passed without it would hide it. Anywhere else a developer
//! without root still gets a run that says what it skipped.

/// The environment variable under which a missing real part fails the test.
pub const REQUIRE_VAR: &str = "FRUGAL_REQUIRE_REAL_PARTS";

/// Whether missing real parts must fail tests ([`REQUIRE_VAR`] set to anything but `0` or
/// the empty string).
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Call where a test cannot run because `missing` (e.g. "root for network namespaces") is
/// absent, then return from the test: prints `SKIPPED: …` on stderr, or panics naming the
/// part when [`required`].
///
/// # Panics
/// When [`REQUIRE_VAR`] is set: the part must be there.
pub fn skip(missing: &str) {
    if required() {
        panic!("{missing} is missing, and {REQUIRE_VAR} is set: this test must run here");
    }
    eprintln!("SKIPPED: {missing} is missing (set {REQUIRE_VAR}=1 to fail instead)");
}

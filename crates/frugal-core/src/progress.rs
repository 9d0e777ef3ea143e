//! How long batches of runs report their progress: the library announces runs and ticks
//! them off; a front-end draws it (the CLI's bar) or ignores it (`()`).

/// A sink for progress of a batch of runs. Implementations are shared by the worker
/// threads of a batch.
pub trait Progress: Sync {
    /// `n` more runs are coming.
    fn add(&self, n: usize);
    /// One run is done.
    fn tick(&self);
}

/// No progress reporting.
impl Progress for () {
    fn add(&self, _: usize) {}
    fn tick(&self) {}
}

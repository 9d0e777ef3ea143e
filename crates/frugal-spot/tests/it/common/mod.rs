//! A test policy shared by the spot tests.

use frugal_spot::model::Mode;
use frugal_spot::policy::{Observation, SpotPolicy};

/// Plays a fixed list of modes, one per tick (idle after its end).
pub struct Script(pub Vec<Mode>);

impl SpotPolicy for Script {
    fn name(&self) -> String {
        "script".into()
    }
    fn decide(&mut self, o: &Observation<'_>) -> Mode {
        self.0.get(o.tick).copied().unwrap_or(Mode::Idle)
    }
}

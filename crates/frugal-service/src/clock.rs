//! The service's clock.
//!
//! The scheduler works in *service seconds*: wall-clock seconds since the Unix epoch
//! times the backend's speed-up (1 on real clusters; the emulated backend's `--speedup`
//! s runs s service seconds per wall second, so estimates, durations and VM bills are in
//! service seconds and a run matches the simulator's). The database stores wall-clock
//! Unix seconds, so a restart with another speed-up reads the same instants; the API
//! reports instants as RFC 3339 UTC timestamps of wall-clock time and durations in
//! service seconds.

use std::time::{SystemTime, UNIX_EPOCH};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Service time ↔ wall-clock time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    speedup: f64,
}

impl Clock {
    /// A clock running `speedup` (> 0) service seconds per wall second.
    pub fn new(speedup: f64) -> Clock {
        Clock { speedup }
    }

    /// Service seconds per wall second.
    pub fn speedup(&self) -> f64 {
        self.speedup
    }

    /// Now, in service seconds.
    pub fn now(&self) -> f64 {
        self.from_wall(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs_f64(),
        )
    }

    /// Service seconds → wall-clock Unix seconds.
    pub fn to_wall(&self, t: f64) -> f64 {
        t / self.speedup
    }

    /// Wall-clock Unix seconds → service seconds.
    pub fn from_wall(&self, wall: f64) -> f64 {
        wall * self.speedup
    }

    /// The instant `t` (service seconds) as an RFC 3339 UTC timestamp with millisecond
    /// precision (trailing zeros dropped), e.g. `2026-11-23T10:15:00.25Z`.
    pub fn rfc3339(&self, t: f64) -> String {
        let millis = (self.to_wall(t) * 1e3).round() as i128;
        OffsetDateTime::from_unix_timestamp_nanos(millis * 1_000_000)
            .ok()
            .and_then(|d| d.format(&Rfc3339).ok())
            .unwrap_or_else(|| "out of range".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_time_maps_to_wall_clock_timestamps() {
        let c = Clock::new(60.0);
        // 1,800,000,000 wall seconds = 2027-01-15T08:00:00Z; × 60 in service time.
        assert_eq!(c.rfc3339(60.0 * 1.8e9), "2027-01-15T08:00:00Z");
        assert_eq!(c.rfc3339(60.0 * (1.8e9 + 0.25)), "2027-01-15T08:00:00.25Z");
        assert_eq!(c.to_wall(c.from_wall(123.5)), 123.5);
    }
}

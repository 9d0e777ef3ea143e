//! The fleet's power record and bill: one ledger for the simulator, the service and
//! `frugal whatif` (paper 004 Eq. 11: the bill is each VM's on-time × its price).
//!
//! Billing as a cloud bills:
//! - **An off and an on of one VM at the same instant is no power cycle**: the interval
//!   goes on, one interval (so per-hour billing charges no second started hour, and the
//!   provider never sees the off). A restart makes no power cycle either: an idle VM whose
//!   keep-alive ran out while the driver was down goes off at the instant of its first
//!   scheduling pass, so a job that pass places on it again continues its interval
//!   (`Event::PowerRestored`), whatever wall-clock time lay between.
//! - **Per-second** billing charges each interval's exact on-time; **per-hour** billing
//!   charges every interval whole started hours: each power-on starts a charged hour.
//! - **Keep-alive** ([`KeepAlive`]): an idle VM stays on for a number of seconds, or
//!   until the hour it has already paid for ends (per-hour billing: from its power-on,
//!   whole hours; per-second billing pays no time ahead, so it is turned off at once), so
//!   no policy pays twice for an hour it holds. A VM used again before then never went off.
//! - A **refused power-on** (the provider would not start the machine) is no interval:
//!   it costs nothing.
//! - A **lost** VM (its host stopped answering) is billed up to the loss and stays out of
//!   service until a given time.

use crate::billing::BillingGranularity;
use crate::cluster::{Cluster, Site, VmId};

/// Dollars billed by time `t` for a VM's power-on `intervals` `(on, off)` at
/// `price_per_second`: each interval clipped at `t` and billed under `billing` (per-hour
/// billing charges each started hour at its start). The bill of a window `[a, b)` is
/// `billed_at(b) − billed_at(a)`: what the simulator, the service and `frugal whatif` all
/// report. Intervals that meet at one instant are one (no power cycle: an off and an on
/// at the same instant, as a record written across a restart may hold).
pub fn billed_at(
    billing: BillingGranularity,
    intervals: &[(f64, f64)],
    price_per_second: f64,
    t: f64,
) -> f64 {
    // A VM's record is in time order already (the fleet appends it so): merged as it
    // comes, with no copy; only a record out of order is sorted, in a copy.
    let copy;
    let intervals = if intervals.is_sorted_by(|a, b| a.0 <= b.0) {
        intervals
    } else {
        let mut sorted = intervals.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        copy = sorted;
        &copy[..]
    };
    let bill = |(on, off): (f64, f64)| {
        if on < t {
            billing.cost(off.min(t) - on, price_per_second)
        } else {
            0.0
        }
    };
    let mut total = 0.0;
    let mut open: Option<(f64, f64)> = None;
    for &(on, off) in intervals {
        open = match open {
            Some((a, b)) if b == on => Some((a, off)),
            Some(done) => {
                total += bill(done);
                Some((on, off))
            }
            None => Some((on, off)),
        };
    }
    total + open.map_or(0.0, bill)
}

/// How long an idle VM stays on before it is turned off. Serde by its text form (`60`,
/// `"paid-hour"`), as its flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeepAlive {
    /// This many seconds (0: at once, the default).
    Seconds(f64),
    /// Until the end of the hour the VM has paid for (per-hour billing; at once under
    /// per-second billing, which pays nothing ahead).
    UntilPaidHourEnds,
}

impl Default for KeepAlive {
    fn default() -> KeepAlive {
        KeepAlive::Seconds(0.0)
    }
}

impl std::fmt::Display for KeepAlive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeepAlive::Seconds(s) => write!(f, "{s}"),
            KeepAlive::UntilPaidHourEnds => f.write_str("paid-hour"),
        }
    }
}

crate::serde_as_text!(KeepAlive);

impl std::str::FromStr for KeepAlive {
    type Err = String;

    /// Seconds (`60`) or `paid-hour`.
    fn from_str(s: &str) -> Result<KeepAlive, String> {
        match s.trim() {
            "paid-hour" => Ok(KeepAlive::UntilPaidHourEnds),
            t => match t.parse::<f64>() {
                Ok(v) if v >= 0.0 && v.is_finite() => Ok(KeepAlive::Seconds(v)),
                _ => Err(format!(
                    "keep-alive {s:?}: seconds (≥ 0) or `paid-hour` (until the hour paid for ends)"
                )),
            },
        }
    }
}

/// One VM's record.
#[derive(Clone, Debug, Default, PartialEq)]
struct VmPower {
    /// Dollars per second of on-time.
    price_per_second: f64,
    /// Closed power-on intervals (on, off), seconds, in order.
    closed: Vec<(f64, f64)>,
    /// Dollars of the closed intervals.
    closed_cost: f64,
    /// Start of the open interval, if on.
    on_since: Option<f64>,
    /// When the current power-on was asked for (a merged interval starts earlier).
    powered_on_at: Option<f64>,
    /// When the power-on of the interval closed last was asked for, while a reopening in
    /// the same instant may still take it back ([`Fleet::reopen`]).
    closed_request: Option<f64>,
    /// Out of service (lost) until then.
    out_of_service_until: Option<f64>,
}

/// The fleet's power record and bill.
#[derive(Clone, Debug, PartialEq)]
pub struct Fleet {
    billing: BillingGranularity,
    keep_alive: KeepAlive,
    vms: Vec<VmPower>,
    sites: Vec<Site>,
}

impl Fleet {
    /// Every VM of `cluster` off, billed under `billing`, idle VMs kept on per `keep_alive`.
    pub fn new(cluster: &Cluster, billing: BillingGranularity, keep_alive: KeepAlive) -> Fleet {
        Fleet {
            billing,
            keep_alive,
            vms: cluster
                .vms
                .iter()
                .map(|v| VmPower {
                    price_per_second: v.price_per_second,
                    ..VmPower::default()
                })
                .collect(),
            sites: cluster.vms.iter().map(|v| v.site).collect(),
        }
    }

    /// The billing granularity.
    pub fn billing(&self) -> BillingGranularity {
        self.billing
    }

    /// The keep-alive rule.
    pub fn keep_alive(&self) -> KeepAlive {
        self.keep_alive
    }

    /// VMs in the record.
    pub fn len(&self) -> usize {
        self.vms.len()
    }

    /// True for a fleet without VMs.
    pub fn is_empty(&self) -> bool {
        self.vms.is_empty()
    }

    /// True if `vm` is being billed (on).
    pub fn is_on(&self, vm: VmId) -> bool {
        self.vms[vm as usize].on_since.is_some()
    }

    /// `vm` powered on at `t`. An interval that closed at `t` goes on instead (no power
    /// cycle). Does nothing if it is on.
    pub fn power_on(&mut self, vm: VmId, t: f64) {
        let v = &mut self.vms[vm as usize];
        if v.on_since.is_some() {
            return;
        }
        v.powered_on_at = Some(t);
        match v.closed.last() {
            Some(&(on, off)) if off == t => {
                v.closed.pop();
                v.closed_cost -= self.billing.cost(off - on, v.price_per_second);
                v.on_since = Some(on);
            }
            _ => v.on_since = Some(t),
        }
    }

    /// `vm` powered off at `t` (nothing if it is off).
    pub fn power_off(&mut self, vm: VmId, t: f64) {
        let v = &mut self.vms[vm as usize];
        if let Some(on) = v.on_since.take() {
            let off = t.max(on);
            v.closed.push((on, off));
            v.closed_cost += self.billing.cost(off - on, v.price_per_second);
            v.closed_request = v.powered_on_at.take();
        }
    }

    /// `vm`, turned off at `t`, is on again at `t` without a power cycle: nothing was asked
    /// of the provider (the controller sends neither the off nor the on), so the interval
    /// that closed at `t` goes on, and the power-on that opened it stays the one a refusal
    /// rolls back to ([`Fleet::power_on_refused`]). This is what a service rebuilt from its
    /// stored intervals, which never saw the off, knows as well.
    pub fn reopen(&mut self, vm: VmId, t: f64) {
        self.power_on(vm, t);
        let v = &mut self.vms[vm as usize];
        v.powered_on_at = v.closed_request.or(v.powered_on_at);
    }

    /// `vm`'s power-on was refused: the interval it opened never ran (a merged interval
    /// ends where it was before). Returns when that power-on was asked for.
    pub fn power_on_refused(&mut self, vm: VmId) -> Option<f64> {
        let at = self.vms[vm as usize].powered_on_at?;
        self.power_off(vm, at);
        Some(at)
    }

    /// `vm` was lost at `t`: billed up to `t`, out of service until `until`.
    pub fn lose(&mut self, vm: VmId, t: f64, until: f64) {
        self.power_off(vm, t);
        self.vms[vm as usize].out_of_service_until = Some(until);
    }

    /// Until when `vm` is out of service, if it is.
    pub fn out_of_service(&self, vm: VmId) -> Option<f64> {
        self.vms
            .get(vm as usize)
            .and_then(|v| v.out_of_service_until)
    }

    /// `vm` is back in service.
    pub fn return_to_service(&mut self, vm: VmId) {
        self.vms[vm as usize].out_of_service_until = None;
    }

    /// When `vm`, idle since `idle_since`, is to be turned off under the keep-alive rule:
    /// `idle_since` + seconds, or the end of the hour it has paid for.
    pub fn off_at(&self, vm: VmId, idle_since: f64) -> f64 {
        match self.keep_alive {
            KeepAlive::Seconds(s) => idle_since + s,
            KeepAlive::UntilPaidHourEnds => match (self.billing, self.vms[vm as usize].on_since) {
                (BillingGranularity::PerHour, Some(on)) => {
                    let paid = ((idle_since - on) / 3600.0).ceil().max(1.0) * 3600.0;
                    on + paid
                }
                _ => idle_since,
            },
        }
    }

    /// Dollars billed for `vm` up to `now` (its open interval up to `now`).
    pub fn vm_cost(&self, vm: VmId, now: f64) -> f64 {
        let v = &self.vms[vm as usize];
        v.closed_cost
            + v.on_since.map_or(0.0, |on| {
                self.billing.cost((now - on).max(0.0), v.price_per_second)
            })
    }

    /// Dollars billed for the whole fleet up to `now`.
    pub fn cost(&self, now: f64) -> f64 {
        (0..self.vms.len())
            .map(|v| self.vm_cost(v as VmId, now))
            .sum()
    }

    /// Dollars billed for the VMs of `site` up to `now`.
    pub fn site_cost(&self, site: Site, now: f64) -> f64 {
        (0..self.vms.len())
            .filter(|&v| self.sites[v] == site)
            .map(|v| self.vm_cost(v as VmId, now))
            .sum()
    }

    /// The fleet's price now, dollars per hour: the summed price of the VMs on.
    pub fn price_per_hour(&self) -> f64 {
        self.vms
            .iter()
            .filter(|v| v.on_since.is_some())
            .map(|v| v.price_per_second)
            .fold(0.0, |a, p| a + p)
            * 3600.0
    }

    /// `vm`'s power-on intervals, the open one closed at `now`.
    pub fn intervals(&self, vm: VmId, now: f64) -> Vec<(f64, f64)> {
        let v = &self.vms[vm as usize];
        let mut out = v.closed.clone();
        if let Some(on) = v.on_since {
            out.push((on, now.max(on)));
        }
        out
    }

    /// Closes every open interval at `now` (the end of a run).
    pub fn close_all(&mut self, now: f64) {
        for vm in 0..self.vms.len() {
            self.power_off(vm as VmId, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Preset, PricingModel};

    /// The small hybrid cluster's fleet and each VM's price per second.
    fn fleet(billing: BillingGranularity, keep_alive: KeepAlive) -> (Fleet, Vec<f64>) {
        let cluster = Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap();
        let prices = cluster.vms.iter().map(|v| v.price_per_second).collect();
        (Fleet::new(&cluster, billing, keep_alive), prices)
    }

    #[test]
    fn an_off_and_an_on_at_one_instant_is_one_interval_and_one_started_hour() {
        let (mut f, p) = fleet(BillingGranularity::PerHour, KeepAlive::default());
        let p = p[0];
        // Three jobs of 10 minutes each, back to back on VM 0.
        for k in 0..3 {
            f.power_on(0, 600.0 * k as f64);
            f.power_off(0, 600.0 * (k + 1) as f64);
        }
        assert_eq!(f.intervals(0, 5000.0), [(0.0, 1800.0)]);
        assert!(
            (f.cost(5000.0) - 3600.0 * p).abs() < 1e-12,
            "one started hour"
        );
        // A real gap starts a new charged hour.
        f.power_on(0, 1801.0);
        f.power_off(0, 1802.0);
        assert!((f.cost(5000.0) - 7200.0 * p).abs() < 1e-12);
        // Per-second: the exact on-time.
        let (mut g, p) = fleet(BillingGranularity::PerSecond, KeepAlive::default());
        let p = p[0];
        g.power_on(0, 0.0);
        g.power_off(0, 600.0);
        g.power_on(0, 600.0);
        assert!((g.cost(900.0) - 900.0 * p).abs() < 1e-12);
    }

    /// A stored record may hold an off and an on at one instant (written across a
    /// restart): billed as one interval, one started hour, in any order.
    #[test]
    fn stored_intervals_that_meet_are_billed_as_one() {
        let iv = [(600.0, 1800.0), (0.0, 600.0), (4000.0, 4100.0)];
        let b = |t| billed_at(BillingGranularity::PerHour, &iv, 1.0, t);
        assert_eq!(b(0.0), 0.0);
        assert_eq!(b(1.0), 3600.0);
        assert_eq!(b(3999.0), 3600.0);
        assert_eq!(b(4001.0), 7200.0);
        let s = billed_at(BillingGranularity::PerSecond, &iv, 1.0, 1000.0);
        assert_eq!(s, 1000.0);
    }

    #[test]
    fn keep_alive_until_the_paid_hour_ends() {
        let (mut f, _) = fleet(BillingGranularity::PerHour, KeepAlive::UntilPaidHourEnds);
        f.power_on(0, 100.0);
        // Idle at 1,000 s: the first hour (100–3,700 s) is paid.
        assert_eq!(f.off_at(0, 1000.0), 3700.0);
        // Idle at 3,700 s exactly: that hour is over.
        assert_eq!(f.off_at(0, 3700.0), 3700.0);
        // Idle at 3,701 s: the second hour is paid too.
        assert_eq!(f.off_at(0, 3701.0), 7300.0);
        let (g, _) = fleet(BillingGranularity::PerSecond, KeepAlive::UntilPaidHourEnds);
        assert_eq!(g.off_at(0, 1000.0), 1000.0);
        let (h, _) = fleet(BillingGranularity::PerHour, KeepAlive::Seconds(60.0));
        assert_eq!(h.off_at(0, 1000.0), 1060.0);
        assert_eq!("paid-hour".parse(), Ok(KeepAlive::UntilPaidHourEnds));
        assert_eq!("60".parse(), Ok(KeepAlive::Seconds(60.0)));
        assert!("-1".parse::<KeepAlive>().is_err());
    }

    #[test]
    fn a_refused_power_on_costs_nothing_and_a_lost_vm_is_billed_to_the_loss() {
        let (mut f, p) = fleet(BillingGranularity::PerSecond, KeepAlive::default());
        f.power_on(1, 50.0);
        f.power_on_refused(1);
        assert_eq!(f.cost(500.0), 0.0);
        assert!(!f.is_on(1));
        // Refused right after a same-instant merge: the earlier interval stands.
        f.power_on(2, 0.0);
        f.power_off(2, 100.0);
        f.power_on(2, 100.0);
        f.power_on_refused(2);
        assert_eq!(f.intervals(2, 500.0), [(0.0, 100.0)]);
        f.power_on(3, 0.0);
        f.lose(3, 250.0, 850.0);
        assert!((f.vm_cost(3, 900.0) - 250.0 * p[3]).abs() < 1e-12);
        assert_eq!(f.out_of_service(3), Some(850.0));
        f.return_to_service(3);
        assert_eq!(f.out_of_service(3), None);
        assert!((f.price_per_hour() - 0.0).abs() < 1e-12);
        f.power_on(4, 0.0);
        assert!((f.price_per_hour() - p[4] * 3600.0).abs() < 1e-9);
    }
}

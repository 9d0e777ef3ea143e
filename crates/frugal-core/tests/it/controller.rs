//! The controller's restart rule, by hand: an off and an on that a restart produces
//! around the first scheduling pass are one instant, one interval.

use crate::common;

use common::{cluster, job};
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Site::Cloud;
use frugal_core::control::{ControlConfig, Controller, Effect};
use frugal_core::{Backfill, PolicyKind, QueueDiscipline};

/// One 4-core VM at $1/s under per-hour billing, first fit, FCFS, keep-alive 0.
fn controller() -> Controller {
    let s = common::scheduler(
        PolicyKind::FirstFit,
        QueueDiscipline::Fcfs,
        false,
        Backfill::None,
    );
    Controller::new(
        &cluster(&[(4, 16, Cloud, 1.0)]),
        Some(s),
        ControlConfig {
            billing: BillingGranularity::PerHour,
            ..ControlConfig::default()
        },
    )
}

/// A service stopped while VM 0 ran a job since t = 0; it restores at t = 100 (the job
/// re-queued: the backend no longer runs it) and its first pass comes 20 ms later, at
/// 100.02, placing the job on VM 0 again. The VM was never off: one interval from 0, one
/// started hour ($3,600) at t = 700, and no effect for VM 0 either way.
#[test]
fn a_restart_whose_first_pass_uses_the_vm_again_makes_no_power_cycle() {
    let mut ctl = controller();
    let restored = ctl.restore_power(0, (0.0, None), 0.0, 100.0);
    assert!(restored.is_empty(), "{restored:?}");
    ctl.add(job("j", 1, 1, 1, 600.0), None, 100.0);
    let effects = ctl.schedule(100.02);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::VmOn(..) | Effect::VmOff(..))),
        "{effects:?}"
    );
    assert!(effects.contains(&Effect::Launch(0)));
    assert_eq!(ctl.fleet().intervals(0, 700.0), [(0.0, 700.0)]);
    assert_eq!(ctl.fleet().cost(700.0), 3600.0);
}

/// The same restart with nothing to run: VM 0 goes off at the first pass's instant
/// (100.02 s, billed to then: nobody turned it off before), reported at the end of that
/// pass.
#[test]
fn a_restored_idle_vm_goes_off_at_the_first_pass() {
    let mut ctl = controller();
    assert!(ctl.restore_power(0, (0.0, None), 0.0, 100.0).is_empty());
    let effects = ctl.schedule(100.02);
    assert_eq!(effects, [Effect::VmOff(0, 100.02)]);
    assert_eq!(ctl.fleet().intervals(0, 500.0), [(0.0, 100.02)]);
    assert!(!ctl.fleet().is_on(0));
}

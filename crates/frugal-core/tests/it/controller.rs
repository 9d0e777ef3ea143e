//! The controller's restart rule, by hand: an off and an on that a restart produces
//! around the first scheduling pass are one instant, one interval.

use crate::common;

use common::{cluster, job};
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Site::Cloud;
use frugal_core::control::{ControlConfig, Controller, Effect, Event};
use frugal_core::lifecycle::JobState;
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

/// VM 0's interval, open since t = 0, as a restart restores it (idle since 0).
fn restored_vm0() -> Event {
    Event::PowerRestored {
        vm: 0,
        on: 0.0,
        off: None,
        idle_since: 0.0,
    }
}

/// A service stopped while VM 0 ran a job since t = 0; it restores at t = 100 (the job
/// re-queued: the backend no longer runs it) and its first pass comes 20 ms later, at
/// 100.02, placing the job on VM 0 again. The VM was never off: one interval from 0, one
/// started hour ($3,600) at t = 700, and no effect for VM 0 either way.
#[test]
fn a_restart_whose_first_pass_uses_the_vm_again_makes_no_power_cycle() {
    let mut ctl = controller();
    let restored = ctl.handle(restored_vm0(), 100.0);
    assert!(restored.is_empty(), "{restored:?}");
    ctl.add(job("j", 1, 1, 1, 600.0), None, 100.0);
    let effects = ctl.handle(Event::Schedule, 100.02);
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
    assert!(ctl.handle(restored_vm0(), 100.0).is_empty());
    let effects = ctl.handle(Event::Schedule, 100.02);
    assert_eq!(effects, [Effect::VmOff(0, 100.02)]);
    assert_eq!(ctl.fleet().intervals(0, 500.0), [(0.0, 100.02)]);
    assert!(!ctl.fleet().is_on(0));
}

/// Hand-computed, one job of 1 executor (1 core, 1 GiB, 600 s) on the $1/s VM: it starts
/// at 10, ends at 610 ($3,600: one started hour). A cancel after its end does nothing and
/// the job is not cancellable; a second job cancelled while queued leaves the queue.
#[test]
fn events_drive_a_job_through_its_lifecycle() {
    let mut ctl = controller();
    let (a, added) = ctl.add(job("a", 1, 1, 1, 600.0), None, 10.0);
    assert!(added.is_empty());
    let effects = ctl.handle(Event::Schedule, 10.0);
    assert!(effects.contains(&Effect::VmOn(0, 10.0)) && effects.contains(&Effect::Launch(a)));
    assert_eq!(ctl.record(a).finish, Some(610.0));
    let end = Event::Finish {
        job: a,
        state: JobState::Completed,
        reason: None,
    };
    assert_eq!(ctl.handle(end, 610.0), [Effect::Changed(a)]);
    assert_eq!(
        ctl.handle(Event::Schedule, 610.0),
        [Effect::VmOff(0, 610.0)]
    );
    assert_eq!(ctl.fleet().cost(700.0), 3600.0);
    assert!(!ctl.cancellable(a));
    assert!(ctl.handle(Event::Cancel { job: a }, 620.0).is_empty());
    assert_eq!(ctl.record(a).state, JobState::Completed);

    let (b, _) = ctl.add(job("b", 9, 1, 1, 60.0), None, 620.0);
    assert_eq!(
        ctl.record(b).state,
        JobState::Unschedulable,
        "9 executors fit no VM"
    );
    let (c, _) = ctl.add(job("c", 1, 1, 1, 60.0), None, 620.0);
    assert!(ctl.cancellable(c));
    assert_eq!(
        ctl.handle(Event::Cancel { job: c }, 620.0),
        [Effect::Changed(c)]
    );
    assert_eq!(ctl.record(c).state, JobState::Cancelled);
    assert!(
        ctl.handle(Event::Cancel { job: c }, 621.0).is_empty(),
        "cancelled once"
    );
    assert!(
        ctl.handle(Event::Schedule, 630.0).is_empty(),
        "nothing queued"
    );
}

/// A lost VM: billed to the loss (t = 100: one started hour), out of service for 600 s
/// (a pass at 699 cannot turn it on, one at 700 can), and the job on it failed, as no
/// other VM can take its executor.
#[test]
fn a_lost_vm_event_bills_to_the_loss_and_holds_it_out_of_service() {
    let mut ctl = controller();
    let (a, _) = ctl.add(job("a", 1, 1, 1, 600.0), None, 0.0);
    ctl.handle(Event::Schedule, 0.0);
    let lost = Event::VmLost {
        vm: 0,
        reason: "no heartbeat".into(),
    };
    let effects = ctl.handle(lost, 100.0);
    assert!(effects.contains(&Effect::VmOff(0, 100.0)), "{effects:?}");
    assert!(effects.contains(&Effect::Stop(a)));
    assert_eq!(ctl.record(a).state, JobState::Failed);
    assert_eq!(ctl.fleet().intervals(0, 800.0), [(0.0, 100.0)]);
    let (b, _) = ctl.add(job("b", 1, 1, 1, 60.0), None, 650.0);
    assert!(
        ctl.handle(Event::Schedule, 699.0)
            .iter()
            .all(|e| *e != Effect::Launch(b))
    );
    assert!(
        ctl.handle(Event::Schedule, 700.0)
            .contains(&Effect::Launch(b))
    );
}

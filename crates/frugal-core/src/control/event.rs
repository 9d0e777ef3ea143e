//! The controller's one input type: every driver — the simulator's event heap, the
//! service's loop and restart, the Kubernetes shell, the parity test — tells the
//! controller what happened as an [`Event`] at an instant and acts on the [`Effect`]s
//! [`Controller::handle`] returns. The table operations that give a job its slot
//! ([`Controller::add`], [`Controller::add_ended`], [`Controller::add_running`]) and a
//! self-placing driver's [`Controller::reserve`] (which answers when the VMs are ready)
//! are the only other calls that change it.
//!
//! Order within one instant (both clocks): ends and losses first, then arrivals, then
//! one [`Event::Schedule`] — the module doc of [`crate::control`].

use crate::cluster::VmId;
use crate::job::Job;
use crate::lifecycle::JobState;
use crate::placement::Placement;

use super::{Controller, Effect};

/// What happened, to be handled at the instant given with it (seconds on the driver's
/// clock). Job indices are slots of the controller's job table.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Job `job` of the table arrives and joins the queue (or is unschedulable if the
    /// policy cannot place it even on the empty cluster); `max_cost_usd` caps what its
    /// placement may cost (Eq. 16), if any.
    Arrive {
        /// The job's slot.
        job: usize,
        /// The cap on its placement's cost, dollars.
        max_cost_usd: Option<f64>,
    },
    /// Job `job` arrives for a driver that places executors itself (no queue, no
    /// scheduler).
    ArriveUnqueued {
        /// The job's slot.
        job: usize,
    },
    /// A self-placing driver found that job `job` can never be placed.
    Reject {
        /// The job's slot.
        job: usize,
    },
    /// Job `job`, whose executors a self-placing driver reserved as `placement`
    /// ([`Controller::reserve`]), runs from `start` to `finish` (under contention
    /// `finish − start` is its solo run time).
    Start {
        /// The job's slot.
        job: usize,
        /// Where its executors run.
        placement: Placement,
        /// When its executors start, seconds.
        start: f64,
        /// Its estimated end, seconds.
        finish: f64,
    },
    /// Running job `job` ended in `state` (completed, failed or cancelled): its executors
    /// are freed. Nothing for a job that is not running.
    Finish {
        /// The job's slot.
        job: usize,
        /// How it ended.
        state: JobState,
        /// Why (kept as the job's reason), if said.
        reason: Option<String>,
    },
    /// Running job `job` lost `executors` (`None`: all) of its executors on `vm` (a
    /// worker died): they are placed again at once, or the job fails.
    ExecutorsLost {
        /// The job's slot.
        job: usize,
        /// The VM they ran on.
        vm: VmId,
        /// How many; `None` or more than it has there: all of them.
        executors: Option<u32>,
    },
    /// VM `vm` was lost (its host stopped answering): billed up to now, out of service
    /// for [`super::ControlConfig::out_of_service_s`], its executors placed again.
    VmLost {
        /// The VM.
        vm: VmId,
        /// Why, for the jobs' reasons.
        reason: String,
    },
    /// VM `vm`'s power-on was refused: as [`Event::VmLost`], but it never ran and costs
    /// nothing.
    PowerOnRefused {
        /// The VM.
        vm: VmId,
        /// Why, for the jobs' reasons.
        reason: String,
    },
    /// Job `job` is cancelled: a queued one leaves the queue, a running one is stopped.
    /// Nothing for a job cancelled already or ended otherwise
    /// ([`Controller::cancellable`] tells them apart).
    Cancel {
        /// The job's slot.
        job: usize,
    },
    /// A restarting driver restores VM `vm`'s stored power interval `(on, off)`
    /// (`off` = `None`: still open), the VM idle since `idle_since` if it hosts nothing.
    /// A restart's off and the next pass's on are one instant: no power cycle
    /// ([`Controller::handle`]'s rule below).
    PowerRestored {
        /// The VM.
        vm: VmId,
        /// When it was turned on, seconds.
        on: f64,
        /// When it was turned off, if it was.
        off: Option<f64>,
        /// Since when it hosts nothing, seconds.
        idle_since: f64,
    },
    /// A restarting driver restores a stored loss (or refused power-on) of `vm` at `at`,
    /// after its power intervals: out of service until `at` plus the time out of service,
    /// if that is still ahead.
    LossRestored {
        /// The VM.
        vm: VmId,
        /// When it was lost, seconds.
        at: f64,
    },
    /// Time passes: boots due complete, idle VMs whose keep-alive ran out go off (at that
    /// time), lost VMs whose time out of service is over return. A driver sends it
    /// before the other events of an instant, so the bill and utilisation follow each
    /// change at its own time.
    Tick,
    /// A scheduling pass: [`Event::Tick`]'s work, then the queue offered to the policy.
    /// Needs a controller with a scheduler.
    Schedule,
    /// The run ends: [`Event::Tick`]'s work, then every VM still on is billed up to now.
    Close,
}

impl<J: AsRef<[Job]>> Controller<J> {
    /// Handles `event` at `now`: the changes for the driver to persist and act on.
    ///
    /// Power cycles: a VM turned off and on again within one instant is one interval —
    /// no boot, no effect, no second started hour. This covers an idle VM emptied by an
    /// end at t and chosen again by the pass at t, and a restart: a restored idle VM
    /// whose keep-alive ran out while the driver was down goes off at the instant of the
    /// next [`Event::Schedule`], not at the restart, so a pass that places a re-queued job
    /// on it continues its interval however much wall-clock time the restart took.
    ///
    /// # Panics
    /// [`Event::Arrive`] and [`Event::Schedule`] on a controller without a scheduler.
    #[inline]
    pub fn handle(&mut self, event: Event, now: f64) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.handle_into(event, now, &mut effects);
        effects
    }

    /// [`Controller::handle`], appending the effects to `effects` (a driver that keeps one
    /// buffer allocates nothing for the events that change nothing it must act on).
    ///
    /// # Panics
    /// As [`Controller::handle`].
    #[inline]
    pub fn handle_into(&mut self, event: Event, now: f64, effects: &mut Vec<Effect>) {
        let more = match event {
            Event::Arrive { job, max_cost_usd } => self.queue(job, max_cost_usd, now),
            Event::ArriveUnqueued { job } => {
                self.arrive_unqueued(job, now);
                Vec::new()
            }
            Event::Reject { job } => {
                self.reject(job, now);
                Vec::new()
            }
            Event::Start {
                job,
                placement,
                start,
                finish,
            } => self.start(job, placement, start, finish),
            Event::Finish { job, state, reason } => {
                self.finish(job, now, state, reason, effects);
                return;
            }
            Event::ExecutorsLost { job, vm, executors } => {
                self.lose_executors(job, vm, executors, now)
            }
            Event::VmLost { vm, reason } => self.lose(vm, &reason, now, true),
            Event::PowerOnRefused { vm, reason } => self.lose(vm, &reason, now, false),
            Event::Cancel { job } => self.cancel(job, now),
            Event::PowerRestored {
                vm,
                on,
                off,
                idle_since,
            } => self.restore_power(vm, (on, off), idle_since, now),
            Event::LossRestored { vm, at } => {
                self.restore_loss(vm, at, now);
                Vec::new()
            }
            Event::Tick => {
                self.wake(now);
                Vec::new()
            }
            Event::Schedule => self.schedule(now),
            Event::Close => {
                self.close(now);
                Vec::new()
            }
        };
        effects.extend(more);
    }
}

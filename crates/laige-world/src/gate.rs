//! Which systems of a tick do not run: the skips a layer above asked for (a throttle, load
//! shedding), and those the failure policy decides after a system panicked or failed.
//!
//! Every decision is made from the schedule's DAG, never from timing. A system's status is
//! written only by the thread that ran (or skipped) it, and read when one of its successors
//! is taken: on the executor a successor in the plan cannot start before its predecessor
//! finished, so the skip is decided from finished predecessors alone, the same on the
//! sequential runner and on any number of threads. This module knows nothing of the World.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, Ordering};

use laige_registry::{SystemId, SystemSet};

use crate::SkipReason;

/// What the tick does with the systems after one panics or returns `Err`. The failed
/// system's commands are dropped and it is reported whatever the policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FailurePolicy {
    /// The failed system's transitive successors in the schedule (its `depends_on` / `after`
    /// / `before` edges) are skipped as dependency-failed; every other system runs.
    #[default]
    Isolate,
    /// Every other system runs, successors included.
    Continue,
    /// Every system ordered after the failed one, by the schedule or by a data conflict
    /// (what the executor's plan orders), is skipped as aborted, and so is every system of
    /// the tick's later tracks. A system with no order to the failed one still runs: on the
    /// executor it may already be running, and skipping it only sometimes would make the
    /// world depend on thread timing.
    AbortTick,
}

impl SkipReason {
    /// The status code and the failed root of this reason.
    pub(crate) fn code(self) -> (u8, u32) {
        match self {
            Self::RunConditionFalse => (code::RUN_CONDITION_FALSE, NO_CAUSE),
            Self::EventsEmpty => (code::EVENTS_EMPTY, NO_CAUSE),
            Self::Throttled => (code::THROTTLED, NO_CAUSE),
            Self::Shed => (code::SHED, NO_CAUSE),
            Self::DependencyFailed { dependency } => (code::DEPENDENCY_FAILED, dependency.get()),
            Self::Aborted => (code::ABORTED, NO_CAUSE),
        }
    }

    /// The reason a status code stands for; `None` for pending and failed.
    pub(crate) fn from_code(status: u8, cause: Option<SystemId>) -> Option<Self> {
        Some(match status {
            code::RUN_CONDITION_FALSE => Self::RunConditionFalse,
            code::EVENTS_EMPTY => Self::EventsEmpty,
            code::THROTTLED => Self::Throttled,
            code::SHED => Self::Shed,
            code::DEPENDENCY_FAILED => Self::DependencyFailed { dependency: cause? },
            code::ABORTED => Self::Aborted,
            _ => return None,
        })
    }
}

/// A system's status in the current tick, one byte per system.
pub(crate) mod code {
    pub(crate) const PENDING: u8 = 0;
    pub(crate) const FAILED: u8 = 1;
    pub(crate) const RUN_CONDITION_FALSE: u8 = 2;
    pub(crate) const EVENTS_EMPTY: u8 = 3;
    pub(crate) const THROTTLED: u8 = 4;
    pub(crate) const SHED: u8 = 5;
    pub(crate) const DEPENDENCY_FAILED: u8 = 6;
    pub(crate) const ABORTED: u8 = 7;

    /// Whether a system of this status makes its successors skip under the policy.
    pub(crate) fn propagates(status: u8) -> bool {
        matches!(status, FAILED | DEPENDENCY_FAILED | ABORTED)
    }

    /// Whether this status is a skip (the system did not run).
    pub(crate) fn is_skip(status: u8) -> bool {
        status >= RUN_CONDITION_FALSE
    }
}

/// No failed root recorded.
const NO_CAUSE: u32 = 0;

/// The per-tick skip state: requested skips for the next tick, and this tick's statuses.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    pub(crate) policy: FailurePolicy,
    /// This tick's status per system ([`code`]), by [`SystemId::index`].
    status: Vec<AtomicU8>,
    /// Per system skipped as dependency-failed or aborted, the failed system that caused it
    /// (its id's number; 0 for none).
    cause: Vec<AtomicU32>,
    /// The skips asked for the next tick, by index (`code::PENDING` for none).
    requested: Vec<u8>,
    requested_any: bool,
    /// Whether any status of this tick is not pending: the hosts look only then.
    active: AtomicBool,
    /// Whether a system failed this tick (under a policy that propagates).
    failed: AtomicBool,
    /// Under `AbortTick`, after a track with a failure: every later system is aborted.
    aborted: AtomicBool,
    /// Per system, the systems whose failure it inherits, and what they were built for.
    preds: Vec<SystemSet>,
    preds_key: Option<PredsKey>,
}

/// What a predecessor table was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PredsKey {
    pub(crate) schedule: u64,
    pub(crate) archetypes: usize,
    pub(crate) policy: FailurePolicy,
}

impl Gate {
    /// Sizes the tables for `systems` systems; allocates only when systems were registered.
    pub(crate) fn size_for(&mut self, systems: usize) {
        if self.status.len() != systems {
            self.status
                .resize_with(systems, || AtomicU8::new(code::PENDING));
            self.cause.resize_with(systems, || AtomicU32::new(NO_CAUSE));
            self.requested.resize(systems, code::PENDING);
        }
    }

    /// Asks for system `index` to be skipped with `status` in the next tick. Returns false
    /// for an index past the tables.
    pub(crate) fn request(&mut self, index: usize, status: u8, cause: u32) -> bool {
        let (Some(slot), Some(why)) = (self.requested.get_mut(index), self.cause.get(index)) else {
            return false;
        };
        *slot = status;
        why.store(cause, Ordering::Relaxed);
        self.requested_any = true;
        true
    }

    /// Whether the predecessor table is the one `key` needs.
    pub(crate) fn preds_match(&self, key: PredsKey) -> bool {
        self.preds_key == Some(key)
    }

    /// Installs the predecessor table built for `key` (setup-time work).
    pub(crate) fn set_preds(&mut self, key: PredsKey, preds: Vec<SystemSet>) {
        self.preds = preds;
        self.preds_key = Some(key);
    }

    /// Starts a tick: clears the last tick's statuses (only if it had any) and applies the
    /// requested skips.
    pub(crate) fn begin_tick(&mut self) {
        if *self.active.get_mut() {
            for status in &mut self.status {
                *status.get_mut() = code::PENDING;
            }
            *self.active.get_mut() = false;
            *self.failed.get_mut() = false;
            *self.aborted.get_mut() = false;
        }
        if self.requested_any {
            for (status, requested) in self.status.iter_mut().zip(&mut self.requested) {
                *status.get_mut() = std::mem::replace(requested, code::PENDING);
            }
            self.requested_any = false;
            *self.active.get_mut() = true;
        }
    }

    /// After a track: under `AbortTick`, a failure in it aborts every later track.
    pub(crate) fn end_track(&mut self) {
        if self.policy == FailurePolicy::AbortTick && *self.failed.get_mut() {
            *self.aborted.get_mut() = true;
        }
    }

    /// Whether any status of this tick may be other than pending. One relaxed load: what
    /// a host pays per system when nothing is skipped.
    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// Decides, as system `id` is taken, whether it is skipped; records the skip and returns
    /// true if so. Reads only its own slot and those of its predecessors, which finished.
    #[cold]
    pub(crate) fn skips(&self, id: SystemId) -> bool {
        let index = id.index();
        let Some(status) = self.status.get(index) else {
            return false;
        };
        if code::is_skip(status.load(Ordering::Relaxed)) {
            return true;
        }
        if self.aborted.load(Ordering::Relaxed) {
            status.store(code::ABORTED, Ordering::Relaxed);
            return true;
        }
        if !self.failed.load(Ordering::Relaxed) {
            return false;
        }
        let Some(preds) = self.preds.get(index) else {
            return false;
        };
        for pred in preds.iter() {
            let pred_status = self
                .status
                .get(pred.index())
                .map_or(code::PENDING, |it| it.load(Ordering::Relaxed));
            if !code::propagates(pred_status) {
                continue;
            }
            // The root of the failure: the predecessor itself, or what it inherited.
            let root = if pred_status == code::FAILED {
                pred.get()
            } else {
                self.cause[pred.index()].load(Ordering::Relaxed)
            };
            self.cause[index].store(root, Ordering::Relaxed);
            let skip = match self.policy {
                FailurePolicy::AbortTick => code::ABORTED,
                _ => code::DEPENDENCY_FAILED,
            };
            status.store(skip, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// System `id` was skipped as it was taken, for `status` (a reactive system with no
    /// events): recorded for the tick report. Its successors are not affected.
    #[cold]
    pub(crate) fn record_skip(&self, id: SystemId, status: u8) {
        if let Some(slot) = self.status.get(id.index()) {
            slot.store(status, Ordering::Relaxed);
            self.active.store(true, Ordering::Relaxed);
        }
    }

    /// System `id` ran and panicked or failed: under a policy that propagates, its
    /// successors will see it.
    #[cold]
    pub(crate) fn record_failure(&self, id: SystemId) {
        if self.policy == FailurePolicy::Continue {
            return;
        }
        if let Some(status) = self.status.get(id.index()) {
            status.store(code::FAILED, Ordering::Relaxed);
            self.failed.store(true, Ordering::Relaxed);
            self.active.store(true, Ordering::Relaxed);
        }
    }

    /// System `index`'s status this tick, with the failed root for an inherited skip.
    pub(crate) fn status(&self, index: usize) -> (u8, Option<SystemId>) {
        let status = self
            .status
            .get(index)
            .map_or(code::PENDING, |it| it.load(Ordering::Relaxed));
        let cause = self
            .cause
            .get(index)
            .map(|it| it.load(Ordering::Relaxed))
            .and_then(SystemId::new);
        (status, cause)
    }
}

//! What observes a tick, without the World: the recorders the World holds and how many
//! ticks it has run, and the span wrapper around each system run (with the `tracing-spans`
//! feature). `observe.rs` has the World's methods that feed them.

use laige_record::{ChecksumRecord, Timeline};
use laige_registry::SystemId;

/// The most ticks a timeline or a checksum record keeps; a larger capacity is cut to this.
pub const MAX_RECORDED_TICKS: usize = 1 << 20;

/// What records ticks, and how many ticks the world has run.
#[derive(Debug, Default)]
pub(crate) struct Observers {
    /// Ticks run so far: the next tick's number.
    pub(crate) tick: u64,
    pub(crate) timeline: Option<Timeline>,
    pub(crate) checksums: Option<ChecksumRecord>,
}

impl Observers {
    /// Whether anything records.
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.timeline.is_some() || self.checksums.is_some()
    }
}

/// Runs `run` (one run of system `id`, registered as `name`) inside an `info` span named
/// `system` with fields `name` and `id`, when the `tracing-spans` feature is on; runs it
/// bare otherwise.
///
/// With the feature on, the global level check comes first: with no subscriber, or none
/// that wants `info`, a run costs that one relaxed load and no span is built.
#[inline(always)]
pub(crate) fn in_system_span<T>(name: &'static str, id: SystemId, run: impl FnOnce() -> T) -> T {
    #[cfg(feature = "tracing-spans")]
    {
        if !tracing::level_enabled!(tracing::Level::INFO) {
            return run();
        }
        let _span = tracing::info_span!(target: "laige", "system", name, id = id.get()).entered();
        run()
    }
    #[cfg(not(feature = "tracing-spans"))]
    {
        let _ = (name, id);
        run()
    }
}

//! Where and when one system ran: the raw clock readings a timeline is built from.

/// One run of one system: the thread it ran on and the raw clock readings around it.
///
/// The readings are in the runner's or executor's [`TickClock`](laige_diag::TickClock) units;
/// turn them into nanoseconds with its `delta_as_nanos`. Thread 0 is the thread that called
/// the runner or the executor; an executor's workers are 1 and up.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SystemSpan {
    /// The raw reading just before the system ran (on the sequential runner: the previous
    /// system's end, so one reading serves both).
    pub start: u64,
    /// The raw reading just after it returned.
    pub end: u64,
    /// The thread that ran it.
    pub thread: u32,
}

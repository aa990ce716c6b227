//! Inside a track: claiming ready systems, stealing them, running them and counting down
//! their dependents. See `crate::pool` for the protocol around it.

use crate::error::drop_payload;
use crate::plan::{Plan, WORDS};
use crate::shared::{Job, MAX_CHUNK, Shared, lowest_bits, spin_start};
use crate::sync::{AtomicU64, Backoff, Ordering, happens_after, happens_before};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What made [`work`] return.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Left {
    /// The whole track has run.
    Done,
    /// A worker found nothing to run for its spin budget: it leaves the track to sleep
    /// outside it, so the end of the track never waits for it to wake (`crate::pool`).
    Idle,
}

/// Runs systems of `job` until the whole track has run, or, for a worker, until it idled for
/// its spin budget. Called by the caller (`me == 0`) and by every worker that joined.
pub(crate) fn work(shared: &Shared, job: &Job, plan: &Plan, me: usize) -> Left {
    // SAFETY: `Pool::run`'s caller keeps the pick order alive until it returns, and every
    // thread that runs `work` for this job does so before that.
    let order = unsafe { &*job.order };
    let words = job.len.div_ceil(64);
    let mut done = 0u32;
    let mut next: Option<usize> = None;
    let mut chunk = (0usize, 0u64);
    let mut busy = 0u64;
    let mut backoff = Backoff::default();
    // When this thread last ran out of work; `None` while it has some.
    let mut idle_since: Option<u64> = None;
    let mut left = Left::Done;
    loop {
        let local = if let Some(local) = next.take() {
            local
        } else if chunk.1 != 0 {
            let bit = chunk.1.trailing_zeros() as usize;
            chunk.1 &= chunk.1 - 1;
            order.position(chunk.0 * 64 + bit)
        } else if let Some(claimed) = claim_own(shared, me, words) {
            chunk = claimed;
            idle_since = None;
            continue;
        } else {
            if done != 0 {
                // Completions are counted in batches, when a thread runs out of its own work.
                if shared.remaining.fetch_sub(done, Ordering::AcqRel) == done {
                    // This ended the track: nobody may sleep through that.
                    shared.naps.wake_all(&job.caller);
                }
                done = 0;
            }
            if let Some(stolen) = steal(shared, me, words) {
                chunk = stolen;
                backoff.reset();
                idle_since = None;
                continue;
            }
            if shared.remaining.load(Ordering::Acquire) == 0 {
                break;
            }
            if shared.batches.help() {
                backoff.reset();
                idle_since = None;
                continue;
            }
            let since = *idle_since.get_or_insert_with(|| spin_start(shared));
            if me != 0 && idle_budget_spent(shared, me, &backoff, since) {
                // Everything this thread counted is in `remaining` (above), and it holds no
                // claimed system: whoever publishes more work wakes it to rejoin.
                left = Left::Idle;
                break;
            }
            // The caller cannot leave: it naps in place, and whoever ends the track wakes it.
            if cfg!(not(loom)) && me == 0 && idle_budget_spent(shared, me, &backoff, since) {
                shared.naps.nap(me, || {
                    shared.remaining.load(Ordering::Acquire) != 0
                        && !any_ready(shared, words)
                        && !shared.batches.wants_help()
                });
            }
            backoff.snooze();
            continue;
        };
        run_one(shared, job, plan, me, local, &mut busy);
        done += 1;
        // Count down the dependents. The AcqRel RMWs chain every predecessor's release to
        // the thread whose decrement reaches 0, which runs the dependent or publishes it. A
        // dependent with this system as its only predecessor is ready now, no RMW needed:
        // nobody else ever counts it down (so a chain touches no shared counter).
        let mut publish = [0u64; WORDS];
        let mut published = false;
        for &dependent in plan.dependents(job.base + local) {
            let dependent = usize::from(dependent);
            if plan.pred_count(job.base + dependent) != 1 {
                happens_before(&shared.pending[dependent]);
                if shared.pending[dependent].fetch_sub(1, Ordering::AcqRel) != 1 {
                    continue;
                }
                happens_after(&shared.pending[dependent]);
            }
            if next.is_none() && chunk.1 == 0 {
                next = Some(dependent);
            } else {
                let slot = order.slot(dependent);
                publish[slot / 64] |= 1 << (slot % 64);
                published = true;
            }
        }
        if published {
            let mut worth_waking = 0;
            for ((word, bits), short) in shared.ready[me]
                .iter()
                .zip(publish)
                .zip(order.short_slots())
            {
                if bits != 0 {
                    happens_before(word);
                    word.fetch_or(bits, Ordering::Release);
                    worth_waking += (bits & !short).count_ones();
                }
            }
            // A system whose remaining chain is shorter than a wake-up is left to this
            // thread, which takes it after what it holds, or to a thread still spinning.
            if worth_waking != 0 {
                shared.naps.wake_for(worth_waking, &job.caller);
            }
        }
    }
    if busy != 0 {
        shared.busy.fetch_add(busy, Ordering::Relaxed);
    }
    left
}

/// Whether a worker that found nothing to run since `since` has idled for its budget
/// (under loom: after a couple of spins, so the models cover leaving and rejoining).
#[cfg(not(loom))]
fn idle_budget_spent(shared: &Shared, me: usize, backoff: &Backoff, since: u64) -> bool {
    // One clock read per 8 spins: after a `yield_now` that gave the core away for a while,
    // leaving should not wait for 63 more spins.
    backoff.spins() % 8 == 7
        && shared.clock.delta_as_nanos(since, shared.clock.raw()) > shared.spin_nanos(me)
}

#[cfg(loom)]
fn idle_budget_spent(shared: &Shared, me: usize, backoff: &Backoff, _: u64) -> bool {
    let _ = shared.spin_nanos(me);
    backoff.spins() >= 2
}

/// Whether any thread holds ready systems nobody has claimed, in the first `words` words.
pub(crate) fn any_ready(shared: &Shared, words: usize) -> bool {
    shared.ready.iter().any(|own| {
        own.iter()
            .take(words)
            .any(|word| word.load(Ordering::Relaxed) != 0)
    })
}

/// Takes a few of this thread's own ready systems, lowest positions first.
fn claim_own(shared: &Shared, me: usize, words: usize) -> Option<(usize, u64)> {
    claim(&shared.ready[me], words, |ready| {
        lowest_bits(ready, chunk_size(ready.count_ones(), shared.threads))
    })
}

/// Takes the upper half of a word of another thread's ready systems, trying the threads
/// after `me` in turn, so idle threads spread over their victims. Half, because a thief
/// that takes little comes back soon, and every visit contends for the victim's line.
fn steal(shared: &Shared, me: usize, words: usize) -> Option<(usize, u64)> {
    let threads = shared.ready.len();
    (1..threads).find_map(|k| {
        claim(&shared.ready[(me + k) % threads], words, |ready| {
            let count = ready.count_ones();
            ready & !lowest_bits(ready, count - count.div_ceil(2))
        })
    })
}

/// Takes the systems `bite` picks from the first non-empty word of `ready`, with one CAS:
/// `(word, bits)`.
fn claim(
    ready: &[AtomicU64; WORDS],
    words: usize,
    bite: impl Fn(u64) -> u64,
) -> Option<(usize, u64)> {
    for (w, word) in ready.iter().enumerate().take(words) {
        let mut current = word.load(Ordering::Relaxed);
        while current != 0 {
            let take = bite(current);
            match word.compare_exchange_weak(
                current,
                current & !take,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    happens_after(word);
                    return Some((w, take));
                }
                Err(now) => current = now,
            }
        }
    }
    None
}

/// Guided self-scheduling: a `1 / (2 · threads)` share of what is ready, 1 to [`MAX_CHUNK`].
fn chunk_size(ready: u32, threads: u32) -> u32 {
    (ready / (2 * threads)).clamp(1, MAX_CHUNK)
}

/// Runs the system at track-local `local`, catching a panic and timing it when asked.
#[inline]
fn run_one(shared: &Shared, job: &Job, plan: &Plan, me: usize, local: usize, busy: &mut u64) {
    let id = plan.node(job.base + local);
    let start = if job.timed { shared.timer.raw() } else { 0 };
    // SAFETY: `id` is a system of the job's track whose predecessors have all finished (its
    // count reached 0, or it is a root), it was claimed by exactly one thread (one CAS clears
    // its ready bit, or one decrement reaches 0), and `Pool::run`'s caller made `job.run`
    // sound under exactly that ordering.
    let res = catch_unwind(AssertUnwindSafe(|| unsafe { (job.run)(job.ctx, id) }));
    if job.timed {
        let end = shared.timer.raw();
        *busy += end.saturating_sub(start);
        if job.record {
            shared.set_span(id.index(), start, end, me);
        }
    }
    if let Err(payload) = res {
        shared.record_panic(me, local, id, &*payload);
        drop_payload(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::chunk_size;
    use crate::shared::lowest_bits;

    #[test]
    fn lowest_bits_takes_the_lowest_set_bits() {
        assert_eq!(lowest_bits(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(lowest_bits(0b1011_0110, 9), 0b1011_0110);
        assert_eq!(lowest_bits(0, 3), 0);
        assert_eq!(lowest_bits(u64::MAX, 8), 0xFF);
    }

    #[test]
    fn chunks_shrink_with_the_ready_count() {
        assert_eq!(chunk_size(64, 2), 8);
        assert_eq!(chunk_size(20, 2), 5);
        assert_eq!(chunk_size(3, 2), 1);
        assert_eq!(chunk_size(1, 8), 1);
    }
}

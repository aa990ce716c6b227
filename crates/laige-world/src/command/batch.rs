//! Recording a batch of spawns of one bundle type: the bundle's ids are resolved and
//! checked once, and the buffer's lists are reserved once; applying the buffer then spawns
//! the batch as one run (see `apply::spawn_run`).

use laige_storage::bundle::Bundle;

use super::{Command, Commands, PendingEntity};
use crate::tick_report::CommandKind;

/// The placeholders of a batch recorded by [`Commands::spawn_batch`]: consecutive spawn
/// indices of one buffer, as a range (it holds no list, so recording allocates nothing for
/// it).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct PendingBatch {
    buffer: u32,
    epoch: u32,
    first: u32,
    len: u32,
}

impl PendingBatch {
    /// How many spawns the batch recorded.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the batch recorded no spawn.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The placeholder of the batch's `i`-th spawn.
    pub fn get(&self, i: usize) -> Option<PendingEntity> {
        (i < self.len as usize).then(|| PendingEntity {
            buffer: self.buffer,
            epoch: self.epoch,
            index: self.first + i as u32,
        })
    }

    /// The placeholders in spawn order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PendingEntity> + use<> {
        let Self {
            buffer,
            epoch,
            first,
            len,
        } = *self;
        (first..first + len).map(move |index| PendingEntity {
            buffer,
            epoch,
            index,
        })
    }
}

impl Commands<'_> {
    /// Records spawning one entity per bundle of `bundles`, all of one bundle type, in
    /// order; returns their placeholders. The same as [`Commands::spawn`] for each bundle
    /// (the same placeholders, entities, failures and reports), with the bundle type
    /// resolved and checked once; applying the buffer spawns the batch with one table
    /// lookup and one reservation.
    ///
    /// A bundle type that [`Commands::spawn`] would refuse is refused once here (its event
    /// emitted) and every bundle dropped; applying skips each spawn and every later command
    /// on its placeholder.
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> PendingBatch
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let bundles = bundles.into_iter();
        let first = self.buffer.spawns;
        let ids = B::resolve(self.storage.components())
            .map_err(|err| self.storage.report(err))
            .and_then(|ids| self.storage.refuse_resources(ids.set()).map(|()| ids))
            .and_then(|ids| self.buffer.bind(self.storage).map(|()| ids));
        let hint = bundles.size_hint().0;
        self.buffer.commands.reserve(hint);
        match ids {
            Ok(ids) => {
                self.buffer
                    .values
                    .reserve(hint.saturating_mul(ids.ids().len()));
                for bundle in bundles {
                    self.buffer.spawns += 1;
                    self.record_spawn(&ids, bundle);
                }
            }
            Err(error) => {
                for bundle in bundles {
                    drop(bundle);
                    self.buffer.spawns += 1;
                    self.buffer.commands.push(Command::Refused {
                        command: CommandKind::Spawn,
                        error,
                    });
                }
            }
        }
        PendingBatch {
            buffer: self.buffer.id,
            epoch: self.buffer.epoch,
            first,
            len: self.buffer.spawns - first,
        }
    }
}

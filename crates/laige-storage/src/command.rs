//! Deferred structural changes: a reusable command buffer per system.
//!
//! Systems never change the world's structure directly; they record spawn, despawn, insert
//! and remove in their [`CommandBuffer`] through [`Commands`], and
//! `World::apply_commands` (laige-world), through [`Storage::apply_commands`], applies the buffers in schedule
//! order at the end of the system phase.

mod apply;
mod arena;
mod batch;
mod report;

use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

use laige_registry::{ComponentId, ComponentSet};

use crate::bundle::{Bundle, BundleIds};
use crate::component::DropFn;
use crate::{Entity, Storage, WorldError};
use arena::Arena;

#[cfg(test)]
pub(crate) use apply::ONE_BY_ONE;
pub use batch::PendingBatch;
pub use report::{ApplyStats, CommandKind, CommandSkipReason, SkippedCommand};

/// A placeholder for an entity spawned by a command; it gets its real [`Entity`] when the
/// buffer is applied. Later commands of the same buffer, in the same tick, may target it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct PendingEntity {
    buffer: u32,
    epoch: u32,
    index: u32,
}

impl PendingEntity {
    /// Its position among the spawns of its buffer, from 0.
    pub fn index(self) -> u32 {
        self.index
    }
}

/// What a command acts on: a live entity, or one spawned earlier in the same buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CommandTarget {
    /// An existing entity; skipped (and reported) if stale when the command is applied.
    Entity(Entity),
    /// An entity spawned earlier in this buffer.
    Pending(PendingEntity),
}

impl From<Entity> for CommandTarget {
    fn from(entity: Entity) -> Self {
        CommandTarget::Entity(entity)
    }
}

impl From<PendingEntity> for CommandTarget {
    fn from(pending: PendingEntity) -> Self {
        CommandTarget::Pending(pending)
    }
}

#[derive(Clone, Copy, Debug)]
enum Target {
    Entity(Entity),
    Pending(u32),
}

#[derive(Clone, Copy, Debug)]
enum Command {
    Spawn {
        signature: ComponentSet,
        first: u32,
        count: u32,
    },
    Despawn {
        target: Target,
    },
    Insert {
        target: Target,
        value: u32,
    },
    Remove {
        target: Target,
        component: ComponentId,
    },
    /// Row `row` of the batch `batch` (`CommandBuffer::batches`): a spawn recorded by
    /// `Commands::spawn_batch`, whose values are stored by column.
    SpawnRow {
        batch: u32,
        row: u32,
    },
    /// A command refused when it was recorded; applying it skips it with `error`.
    Refused {
        command: CommandKind,
        error: WorldError,
    },
}

/// One value in the arena.
#[derive(Clone, Copy, Debug)]
struct Value {
    offset: usize,
    component: ComponentId,
    drop: Option<DropFn>,
    /// Still owned by the buffer (not yet moved into the world or dropped).
    live: bool,
}

/// A run of spawns of one bundle type recorded by `Commands::spawn_batch`: each component's
/// values packed in spawn order in one arena region, so applying writes each table column
/// with one copy.
#[derive(Clone, Copy, Debug)]
struct BatchRecord {
    signature: ComponentSet,
    /// Its columns: `batch_columns[first_column..first_column + columns]`, in bundle order.
    first_column: u32,
    columns: u32,
    /// Rows recorded.
    rows: u32,
    /// Rows `0..consumed` were moved into the world or dropped; the rest are owned here.
    consumed: u32,
}

/// One component's region of a [`BatchRecord`].
#[derive(Clone, Copy, Debug)]
struct BatchColumn {
    component: ComponentId,
    /// The arena offset of row 0; row `r` is at `offset + r * size`.
    offset: usize,
    size: usize,
    drop: Option<DropFn>,
}

/// A reusable list of structural commands. Component values are stored in a byte arena
/// (aligned for each value), not boxed; clearing keeps every capacity, so a buffer that has
/// seen its largest tick allocates nothing more.
///
/// Each registered system owns one (see `World::system_commands` in laige-world);
/// a standalone buffer for setup code comes from [`CommandBuffer::new`] and is filled
/// through `World::commands`.
#[derive(Debug)]
pub struct CommandBuffer {
    id: u32,
    epoch: u32,
    /// The identity of the world whose component ids the buffer holds; 0 while empty.
    world: u64,
    commands: Vec<Command>,
    values: Vec<Value>,
    arena: Arena,
    spawns: u32,
    resolved: Vec<Option<Entity>>,
    batches: Vec<BatchRecord>,
    batch_columns: Vec<BatchColumn>,
    /// The component `component_of` last found, with its world's identity and type: a
    /// system recording one command per entity looks its type up once.
    last_type: Option<(u64, std::any::TypeId, ComponentId)>,
    /// Scratch of an insert run being applied: each command's live target, or `None`.
    run_targets: Vec<Option<Entity>>,
}

impl Default for CommandBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl CommandBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        // Buffer ids only tell placeholders of different buffers apart.
        static NEXT_ID: AtomicU32 = AtomicU32::new(1);
        Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            epoch: 0,
            world: 0,
            commands: Vec::new(),
            values: Vec::new(),
            arena: Arena::new(),
            spawns: 0,
            resolved: Vec::new(),
            batches: Vec::new(),
            batch_columns: Vec::new(),
            last_type: None,
            run_targets: Vec::new(),
        }
    }

    /// The number of recorded commands.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// Whether no command is recorded.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Whether applying the buffer would change nothing: no command is recorded and the last
    /// apply spawned nothing, so [`CommandBuffer::last_spawned`] is empty already. A tick
    /// skips such a buffer instead of applying it.
    #[inline]
    pub fn is_idle(&self) -> bool {
        // One test of the two lengths, no branch between them: this runs after every system.
        (self.commands.len() | self.resolved.len()) == 0
    }

    /// The entities the last apply spawned, by spawn index ([`PendingEntity::index`]);
    /// `None` where a spawn failed. Valid until the next apply.
    pub fn last_spawned(&self) -> &[Option<Entity>] {
        &self.resolved
    }

    /// Drops every recorded command and value, keeping the capacity. Placeholders handed
    /// out so far become invalid.
    pub fn clear(&mut self) {
        self.drop_owned();
        self.reset();
    }

    /// Drops every value the buffer still owns.
    fn drop_owned(&mut self) {
        for i in 0..self.values.len() {
            self.drop_value(i);
        }
        for batch in 0..self.batches.len() {
            let rows = self.batches[batch].rows;
            self.drop_batch_rows(batch, rows);
        }
    }

    /// Drops batch `batch`'s rows from the first one still owned up to `upto` (excluded),
    /// marking them consumed first, so each is dropped once even if a drop panics.
    fn drop_batch_rows(&mut self, batch: usize, upto: u32) {
        let record = self.batches[batch];
        if record.consumed >= upto {
            return;
        }
        self.batches[batch].consumed = upto;
        let columns = record.first_column as usize..(record.first_column + record.columns) as usize;
        for c in columns {
            let column = self.batch_columns[c];
            let Some(drop) = column.drop else { continue };
            for row in record.consumed..upto {
                let at = self.arena.ptr(column.offset + row as usize * column.size);
                // SAFETY: an unconsumed row holds a valid value of the column's type, owned
                // by the buffer; the row was marked consumed above, so it is dropped once.
                unsafe { drop(at) };
            }
        }
    }

    fn reset(&mut self) {
        self.commands.clear();
        self.values.clear();
        self.batches.clear();
        self.batch_columns.clear();
        self.arena.clear();
        self.spawns = 0;
        self.world = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Drops value `i` if the buffer still owns it.
    fn drop_value(&mut self, i: usize) {
        let value = &mut self.values[i];
        if !std::mem::replace(&mut value.live, false) {
            return;
        }
        if let Some(drop) = value.drop {
            let at = self.arena.ptr(value.offset);
            // SAFETY: a live value is a valid value of its component's type at an aligned
            // offset; marking it dead first means it is dropped once, even if the drop panics.
            unsafe { drop(at) };
        }
    }

    /// `storage.require::<T>()`, remembered for the next command of the same type.
    #[inline]
    fn component_of<T: 'static>(&mut self, storage: &Storage) -> Result<ComponentId, WorldError> {
        let type_id = std::any::TypeId::of::<T>();
        if let Some((world, last, id)) = self.last_type
            && world == storage.identity()
            && last == type_id
        {
            return Ok(id);
        }
        let id = storage.require::<T>()?;
        self.last_type = Some((storage.identity(), type_id, id));
        Ok(id)
    }

    #[inline]
    fn bind(&mut self, storage: &Storage) -> Result<(), WorldError> {
        if self.world != 0 && self.world != storage.identity() {
            return Err(storage.report(WorldError::ForeignCommandBuffer));
        }
        self.world = storage.identity();
        Ok(())
    }

    #[inline]
    fn target(&self, target: CommandTarget, storage: &Storage) -> Result<Target, WorldError> {
        match target {
            CommandTarget::Entity(entity) => Ok(Target::Entity(entity)),
            CommandTarget::Pending(p)
                if p.buffer == self.id && p.epoch == self.epoch && p.index < self.spawns =>
            {
                Ok(Target::Pending(p.index))
            }
            CommandTarget::Pending(p) => {
                Err(storage.report(WorldError::InvalidPending { index: p.index }))
            }
        }
    }

    /// Moves the value at `src` (of `component`'s type) into the arena.
    ///
    /// # Safety
    ///
    /// `src` points to a valid value of `component`'s type in `storage`, which the caller
    /// gives up.
    unsafe fn push_value(
        &mut self,
        storage: &Storage,
        component: ComponentId,
        src: *const u8,
    ) -> u32 {
        let info = storage.components().get(component);
        let offset = self.arena.alloc(info.layout());
        let at = self.arena.ptr(offset);
        // SAFETY: the arena reserved `size` bytes at an offset aligned for the type; `src`
        // is a valid value, moved by a byte copy.
        unsafe { ptr::copy_nonoverlapping(src, at, info.size()) };
        let index = self.values.len() as u32;
        self.values.push(Value {
            offset,
            component,
            drop: info.drop_fn(),
            live: true,
        });
        index
    }
}

/// The handle systems (and setup code) record commands through: a command buffer plus the
/// world's component registry.
///
/// Recording never fails at the call site, so it works inside a query's closure. A command
/// the world cannot carry out is skipped when the buffer is applied, and reported: a
/// mistake seen at once (an unregistered type, a repeated bundle type, a placeholder from
/// elsewhere) is refused as it is recorded, and problems that depend on the world at apply
/// time (a stale entity, the entity limit) are found then. Either way its event is emitted,
/// [`ApplyStats`] counts it, and a tick's `TickReport` (laige-world) names the system,
/// the command and the cause, and `World::run_systems` returns
/// `TickError::CommandsSkipped`.
#[derive(Debug)]
pub struct Commands<'a> {
    buffer: &'a mut CommandBuffer,
    storage: &'a Storage,
}

impl<'a> Commands<'a> {
    /// The commands of `buffer`, recorded against `storage`'s registry: what the tick layer
    /// hands a system. A buffer that holds values for one storage is refused by another's
    /// [`Storage::apply_commands`] ([`WorldError::ForeignCommandBuffer`]).
    pub fn new(buffer: &'a mut CommandBuffer, storage: &'a Storage) -> Self {
        Self { buffer, storage }
    }

    /// Records spawning an entity with `bundle`; returns its placeholder.
    ///
    /// A bundle with an unregistered or resource type, or one type twice, is refused here
    /// (its event is emitted and the bundle dropped): applying skips the spawn and every
    /// later command on its placeholder.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> PendingEntity {
        let index = self.buffer.spawns;
        self.buffer.spawns += 1;
        let pending = PendingEntity {
            buffer: self.buffer.id,
            epoch: self.buffer.epoch,
            index,
        };
        let ids = B::resolve(self.storage.components())
            .map_err(|err| self.storage.report(err))
            .and_then(|ids| self.storage.refuse_resources(ids.set()).map(|()| ids))
            .and_then(|ids| self.buffer.bind(self.storage).map(|()| ids));
        let ids = match ids {
            Ok(ids) => ids,
            Err(error) => {
                self.buffer.commands.push(Command::Refused {
                    command: CommandKind::Spawn,
                    error,
                });
                return pending;
            }
        };
        self.record_spawn(&ids, bundle);
        pending
    }

    /// Records the spawn of `bundle`, whose type resolved to `ids` (checked and bound).
    fn record_spawn<B: Bundle>(&mut self, ids: &BundleIds, bundle: B) {
        let first = self.buffer.values.len() as u32;
        let buffer = &mut *self.buffer;
        let storage = self.storage;
        // SAFETY: `take` hands out each value of the resolved components once, which is
        // moved into the arena and then forgotten by `take`.
        bundle.take(ids, &mut |component, src| unsafe {
            buffer.push_value(storage, component, src);
        });
        let count = self.buffer.values.len() as u32 - first;
        self.buffer.commands.push(Command::Spawn {
            signature: *ids.set(),
            first,
            count,
        });
    }

    /// Records despawning `target`. A placeholder from another buffer or tick is refused
    /// here ([`WorldError::InvalidPending`]); a stale target is skipped when applied.
    pub fn despawn(&mut self, target: impl Into<CommandTarget>) {
        let target = self
            .buffer
            .target(target.into(), self.storage)
            .and_then(|target| self.buffer.bind(self.storage).map(|()| target));
        self.push(CommandKind::Despawn, target, |target| Command::Despawn {
            target,
        });
    }

    /// Records setting `target`'s `T` to `value` (adding it, or replacing the old value).
    /// An unregistered or resource type, or a placeholder from another buffer or tick, is
    /// refused here and `value` dropped; a stale target is skipped when applied.
    pub fn insert<T: Send + Sync + 'static>(&mut self, target: impl Into<CommandTarget>, value: T) {
        let kind = CommandKind::Insert(std::any::type_name::<T>());
        let checked = self
            .buffer
            .target(target.into(), self.storage)
            .and_then(|target| {
                let component = self.buffer.component_of::<T>(self.storage)?;
                self.buffer.bind(self.storage)?;
                Ok((target, component))
            });
        let (target, component) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                self.buffer.commands.push(Command::Refused {
                    command: kind,
                    error,
                });
                return;
            }
        };
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: `value` is a valid `T`, the type of `component`; it is moved into the arena
        // and, being `ManuallyDrop`, not dropped here.
        let value = unsafe {
            self.buffer
                .push_value(self.storage, component, ptr::from_ref(&*value).cast())
        };
        self.buffer.commands.push(Command::Insert { target, value });
    }

    /// Records removing `target`'s `T` (dropping it); a no-op when applied to an entity
    /// without one. Refused and skipped as [`Commands::insert`] is.
    pub fn remove<T: 'static>(&mut self, target: impl Into<CommandTarget>) {
        let checked = self
            .buffer
            .target(target.into(), self.storage)
            .and_then(|target| {
                let component = self.buffer.component_of::<T>(self.storage)?;
                self.buffer.bind(self.storage)?;
                Ok((target, component))
            });
        self.push(
            CommandKind::Remove(std::any::type_name::<T>()),
            checked,
            |(target, component)| Command::Remove { target, component },
        );
    }

    /// Records `make(checked)`, or the refusal of `command`.
    fn push<C>(
        &mut self,
        command: CommandKind,
        checked: Result<C, WorldError>,
        make: impl FnOnce(C) -> Command,
    ) {
        let command = match checked {
            Ok(checked) => make(checked),
            Err(error) => Command::Refused { command, error },
        };
        self.buffer.commands.push(command);
    }

    /// The number of recorded commands.
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    /// Whether no command is recorded.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }
}

impl Drop for CommandBuffer {
    fn drop(&mut self) {
        self.drop_owned();
    }
}

//! The 64 W4 component types, as one const-generic type every peer can store, and the
//! names the generated systems (`w4_graph.rs`) use.

pub use bevy_ecs::prelude::{IntoScheduleConfigs, Query, Schedule};
pub use shipyard::scheduler::SystemModificator;
pub use shipyard::{View, ViewMut, Workload};
pub use specs::{DispatcherBuilder, ReadStorage, WriteStorage};

/// W4 component `N` of 64.
#[derive(bevy_ecs::component::Component)]
pub struct K<const N: usize>;

impl<const N: usize> specs::Component for K<N> {
    type Storage = specs::VecStorage<Self>;
}

impl<const N: usize> shipyard::Component for K<N> {
    type Tracking = shipyard::track::Untracked;
}

/// One empty specs system per line: `S017: (R 3) (W 40);`.
macro_rules! specs_systems {
    ($($name:ident: $(($kind:ident $n:literal))+;)*) => {$(
        pub struct $name;
        impl<'a> specs::System<'a> for $name {
            type SystemData = ($(specs_access!('a $kind $n),)+);
            fn run(&mut self, _: Self::SystemData) {}
        }
    )*};
}

macro_rules! specs_access {
    ($a:lifetime R $n:literal) => { ReadStorage<$a, K<$n>> };
    ($a:lifetime W $n:literal) => { WriteStorage<$a, K<$n>> };
}

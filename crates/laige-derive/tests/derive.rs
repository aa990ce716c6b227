//! What the derives generate, checked by behaviour: the bytes `#[derive(StateHash)]` feeds
//! (against the order the crate documents, fed by hand), and the options
//! `#[derive(Component)]` hands to `World::register_component`.

use std::marker::PhantomData;

use laige_world::{Component, ComponentOptions, Entity, StateHash, StateHasher, World};

fn hash(value: &impl StateHash) -> u64 {
    let mut h = StateHasher::new();
    value.hash_state(&mut h);
    h.finish()
}

fn fed(feed: impl FnOnce(&mut StateHasher)) -> u64 {
    let mut h = StateHasher::new();
    feed(&mut h);
    h.finish()
}

#[derive(StateHash)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(StateHash)]
struct Tagged(u8, Option<u32>, Entity);

#[derive(StateHash)]
struct Unit;

#[derive(StateHash)]
enum Shape {
    Dot,
    Circle(f32),
    Rect { w: u16, h: u16 },
}

#[derive(StateHash)]
#[allow(dead_code)]
enum Explicit {
    A = 7,
    B = 3,
}

/// No variants, no values: it must still derive.
#[derive(StateHash)]
#[allow(dead_code)]
enum Never {}

#[derive(StateHash)]
struct Pair<T> {
    a: T,
    b: T,
}

#[derive(StateHash)]
struct Marked<T> {
    value: u32,
    #[state_hash(skip)]
    marker: PhantomData<T>,
}

#[derive(StateHash)]
struct Wrapped<T, const N: usize>([T; N])
where
    T: Copy;

#[test]
fn struct_fields_feed_in_declaration_order() {
    let expected = fed(|h| {
        h.write_f32(1.5);
        h.write_f32(-2.0);
    });
    assert_eq!(hash(&Position { x: 1.5, y: -2.0 }), expected);
    assert_ne!(hash(&Position { x: -2.0, y: 1.5 }), expected);
    // The hand-written form the demo had: a tuple of the fields.
    assert_eq!(hash(&(1.5f32, -2.0f32)), expected);
}

#[test]
fn tuple_and_unit_structs() {
    let e = Entity::from_parts(3, 9).unwrap();
    let expected = fed(|h| {
        h.write_u8(4);
        h.write_u8(1);
        h.write_u32(77);
        h.write_u32(3);
        h.write_u32(9);
    });
    assert_eq!(hash(&Tagged(4, Some(77), e)), expected);
    assert_eq!(hash(&Unit), StateHasher::new().finish());
}

#[test]
fn enums_feed_the_variant_index_as_a_byte_then_its_fields() {
    assert_eq!(hash(&Shape::Dot), fed(|h| h.write_u8(0)));
    assert_eq!(
        hash(&Shape::Circle(2.0)),
        fed(|h| {
            h.write_u8(1);
            h.write_f32(2.0);
        })
    );
    assert_eq!(
        hash(&Shape::Rect { w: 3, h: 4 }),
        fed(|h| h.write_bytes(&[2, 0, 3, 0, 4]))
    );
    // The index in declaration order, not the `= value` discriminant.
    assert_eq!(hash(&Explicit::A), fed(|h| h.write_u8(0)));
    assert_eq!(hash(&Explicit::B), fed(|h| h.write_u8(1)));
}

/// 257 variants: one too many for a one-byte index, so it takes two.
#[derive(StateHash)]
#[allow(dead_code)]
#[rustfmt::skip]
enum Wide { V0, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21, V22, V23, V24, V25, V26, V27, V28, V29, V30, V31, V32, V33, V34, V35, V36, V37, V38, V39, V40, V41, V42, V43, V44, V45, V46, V47, V48, V49, V50, V51, V52, V53, V54, V55, V56, V57, V58, V59, V60, V61, V62, V63, V64, V65, V66, V67, V68, V69, V70, V71, V72, V73, V74, V75, V76, V77, V78, V79, V80, V81, V82, V83, V84, V85, V86, V87, V88, V89, V90, V91, V92, V93, V94, V95, V96, V97, V98, V99, V100, V101, V102, V103, V104, V105, V106, V107, V108, V109, V110, V111, V112, V113, V114, V115, V116, V117, V118, V119, V120, V121, V122, V123, V124, V125, V126, V127, V128, V129, V130, V131, V132, V133, V134, V135, V136, V137, V138, V139, V140, V141, V142, V143, V144, V145, V146, V147, V148, V149, V150, V151, V152, V153, V154, V155, V156, V157, V158, V159, V160, V161, V162, V163, V164, V165, V166, V167, V168, V169, V170, V171, V172, V173, V174, V175, V176, V177, V178, V179, V180, V181, V182, V183, V184, V185, V186, V187, V188, V189, V190, V191, V192, V193, V194, V195, V196, V197, V198, V199, V200, V201, V202, V203, V204, V205, V206, V207, V208, V209, V210, V211, V212, V213, V214, V215, V216, V217, V218, V219, V220, V221, V222, V223, V224, V225, V226, V227, V228, V229, V230, V231, V232, V233, V234, V235, V236, V237, V238, V239, V240, V241, V242, V243, V244, V245, V246, V247, V248, V249, V250, V251, V252, V253, V254, V255, V256 }

#[test]
fn an_enum_of_more_than_256_variants_feeds_a_two_byte_index() {
    assert_eq!(hash(&Wide::V0), fed(|h| h.write_u16(0)));
    assert_eq!(hash(&Wide::V256), fed(|h| h.write_u16(256)));
}

#[test]
fn generics_are_bounded_by_their_field_types() {
    assert_eq!(
        hash(&Pair { a: 1u16, b: 2u16 }),
        fed(|h| h.write_bytes(&[0, 1, 0, 2]))
    );
    // A skipped `PhantomData<T>` needs no `T: StateHash`.
    struct NotHashed;
    let marked = Marked::<NotHashed> {
        value: 5,
        marker: PhantomData,
    };
    assert_eq!(hash(&marked), fed(|h| h.write_u32(5)));
    assert_eq!(
        hash(&Wrapped([1u8, 2, 3])),
        fed(|h| h.write_bytes(&[1, 2, 3]))
    );
}

#[derive(Component)]
struct Plain;

#[derive(Component, StateHash)]
#[component(hashed)]
struct Hashed(u32);

#[derive(Component, Clone)]
#[component(versioned)]
struct Versioned;

#[derive(Component, StateHash, Clone)]
#[component(versioned, hashed)]
struct Both(u32);

#[derive(Component, StateHash, Clone)]
#[component(hashed)]
#[component(versioned)]
struct Generic<T>(T);

#[test]
fn component_options_come_from_the_attribute() {
    let mut world = World::default();
    let info = |world: &World, id| {
        let info = world.component_info(id).expect("registered");
        (info.is_hashed(), info.is_versioned())
    };
    let plain = world.register_component::<Plain>().unwrap();
    let hashed = world.register_component::<Hashed>().unwrap();
    let versioned = world.register_component::<Versioned>().unwrap();
    let both = world.register_component::<Both>().unwrap();
    let generic = world.register_component::<Generic<u8>>().unwrap();
    assert_eq!(info(&world, plain), (false, false));
    assert_eq!(info(&world, hashed), (true, false));
    assert_eq!(info(&world, versioned), (false, true));
    assert_eq!(info(&world, both), (true, true));
    assert_eq!(info(&world, generic), (true, true));
    // Explicit options still win over the type's.
    let mut world = World::default();
    let id = world
        .register_component_with(ComponentOptions::<Both>::new())
        .unwrap();
    assert_eq!(info(&world, id), (false, false));
}

#[test]
fn a_hashed_component_changes_the_state_hash_with_its_value() {
    let hash_with = |value: u32| {
        let mut world = World::default();
        world.register_component::<Hashed>().unwrap();
        world.register_component::<Plain>().unwrap();
        world.spawn((Hashed(value), Plain)).unwrap();
        world.state_hash()
    };
    assert_ne!(hash_with(1), hash_with(2));
}

mod renamed {
    // What a crate that renamed its dependency writes: the path to the laige items.
    use laige_world as engine;

    #[derive(engine::Component, engine::StateHash)]
    #[component(crate = engine, hashed)]
    #[state_hash(crate = engine)]
    pub(super) struct Score(pub(super) u32);
}

#[test]
fn the_crate_path_can_be_given() {
    let mut world = World::default();
    let id = world.register_component::<renamed::Score>().unwrap();
    assert!(world.component_info(id).unwrap().is_hashed());
    assert_eq!(hash(&renamed::Score(9)), fed(|h| h.write_u32(9)));
}

//! `system!`: the Rust form of the original `LAIGE_SYSTEM(Name, budget_ms, Dep...)`.

/// Builds a [`SystemDef`](crate::SystemDef) from a function, a budget in milliseconds and
/// the names of the systems it runs after.
///
/// The function is cast to the registry's run type, so the definition must go where that
/// type is known. The name is the function's name; the trailing names become the `depends_on` spec,
/// joined by `", "` verbatim. `system!("Name" => path::to_fn, ...)` names it explicitly.
///
/// ```
/// use laige_registry::{SystemDef, system};
///
/// fn spawner(_: &mut ()) {}
/// fn movement(_: &mut ()) {}
/// fn damage(_: &mut ()) {}
///
/// // The run type comes from where the definition goes, usually a registry.
/// type Def = SystemDef<fn(&mut ())>;
/// let def: Def = system!(damage, 1, spawner, movement);
/// assert_eq!(def.name, "damage");
/// assert_eq!(def.depends_on, "spawner, movement");
/// assert_eq!(def.budget.raw(), 65536);
///
/// let free: Def = system!("Spawn" => spawner, 0.5);
/// assert_eq!((free.name, free.depends_on, free.budget.raw()), ("Spawn", "", 32768));
/// # let _ = movement;
/// ```
#[macro_export]
macro_rules! system {
    ($name:literal => $run:path, $budget:expr $(, $dep:ident)* $(,)?) => {
        $crate::SystemDef::new($name, $run as _)
            .budget_ms($budget as f32)
            .depends_on($crate::__depends_on!($($dep),*))
    };
    ($run:ident, $budget:expr $(, $dep:ident)* $(,)?) => {
        $crate::SystemDef::new(stringify!($run), $run as _)
            .budget_ms($budget as f32)
            .depends_on($crate::__depends_on!($($dep),*))
    };
}

/// Joins dependency names into a spec string at compile time.
#[doc(hidden)]
#[macro_export]
macro_rules! __depends_on {
    () => {
        ""
    };
    ($first:ident $(, $rest:ident)*) => {
        concat!(stringify!($first) $(, ", ", stringify!($rest))*)
    };
}

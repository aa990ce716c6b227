//! The `syn` walk that finds every public item of a set of crates.
//!
//! It loads each crate's module tree from `src/lib.rs` (following `mod foo;` to `foo.rs`,
//! `foo/mod.rs` or `#[path]`), resolves `use` paths well enough to follow re-exports (also across the
//! crates it was given), then walks outwards from the crate root through `pub` names only.
//! See `docs/decisions/0001-api-manifest-extraction.md` for what this deliberately does not see.

use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    fs,
    path::{Path, PathBuf},
};

use anyhow::{Context as _, Result, bail};
use syn::{Attribute, ImplItem, Item, Token, Type, UseTree, Visibility, punctuated::Punctuated};

use super::render;

/// One crate to load: its name as written in paths (`laige_registry`) and its root file.
#[derive(Debug, Clone)]
pub struct CrateSource {
    /// The crate name with underscores.
    pub name: String,
    /// The crate root, usually `src/lib.rs`.
    pub root: PathBuf,
}

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The public path, e.g. `laige_registry::SystemId`.
    pub path: String,
    /// What the item is: `fn`, `struct`, `field`, `method`, `impl`, …
    pub kind: String,
    /// The normalized token string.
    pub signature: String,
    /// Whether the item is public but `#[doc(hidden)]`. Hidden is not private; the manifest
    /// lists it, marked.
    pub hidden: Hidden,
}

/// Whether, and how, a public item is hidden from the docs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hidden {
    /// Shown.
    #[default]
    No,
    /// It carries the `#[doc(hidden)]` itself (on the item, its `pub use` or its impl block):
    /// one of the hidden items ADR 0001 must name.
    Marked,
    /// It is reached only through a hidden module, item or impl block, or is a trait item's
    /// implementation that the trait hides: the hidden thing it is in is the one counted.
    Inside,
}

impl Hidden {
    /// `Inside` when the enclosing path is hidden, else `Marked` when `own` (its own
    /// attribute), else `No`.
    pub fn within(outer: bool, own: bool) -> Self {
        if outer {
            Self::Inside
        } else if own {
            Self::Marked
        } else {
            Self::No
        }
    }

    /// Whether it is hidden at all.
    pub fn any(self) -> bool {
        self != Self::No
    }
}

/// Recursion bound for resolving `use` chains; deeper chains are pathological.
const MAX_DEPTH: usize = 32;

/// The lookups in progress (crate, module, name), to cut cycles such as `use super::*` both ways.
type Stack = Vec<(usize, usize, String)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Def {
    Item {
        krate: usize,
        module: usize,
        item: usize,
    },
    Module {
        krate: usize,
        module: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Def(Def),
    /// A path outside the loaded crates, e.g. `tracing::Level`.
    External(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vis {
    Pub,
    /// `pub(crate)`, `pub(super)`, `pub(in ..)`: visible inside the crate only.
    Crate,
    Private,
}

#[derive(Debug, Clone)]
enum BindingKind {
    Def(Def),
    Use(Vec<String>),
    Glob(Vec<String>),
}

#[derive(Debug, Clone)]
struct Binding {
    /// The bound name (empty for globs).
    name: String,
    vis: Vis,
    hidden: bool,
    kind: BindingKind,
}

#[derive(Default)]
struct Module {
    parent: Option<usize>,
    items: Vec<Item>,
    bindings: Vec<Binding>,
}

struct Crate {
    name: String,
    modules: Vec<Module>,
}

/// An impl block, and whether it hangs off its trait (blanket or foreign-type impls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ImplRef {
    krate: usize,
    module: usize,
    item: usize,
    via_trait: bool,
    hidden: bool,
}

struct World {
    crates: Vec<Crate>,
}

/// Whether `attrs` hold `#[doc(hidden)]`.
fn is_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("doc")
            && attr.meta.require_list().is_ok_and(|list| {
                list.tokens
                    .to_string()
                    .split(',')
                    .any(|it| it.trim() == "hidden")
            })
    })
}

/// Whether `attrs` hold exactly `#[cfg(test)]`.
fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string() == "test")
    })
}

/// Whether a member (field, variant, impl item) is left out of the manifest.
fn skipped(attrs: &[Attribute]) -> bool {
    is_hidden(attrs) || is_cfg_test(attrs)
}

fn vis_of(vis: &Visibility) -> Vis {
    match vis {
        Visibility::Public(_) => Vis::Pub,
        Visibility::Restricted(_) => Vis::Crate,
        Visibility::Inherited => Vis::Private,
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(it) => &it.attrs,
        Item::Enum(it) => &it.attrs,
        Item::ExternCrate(it) => &it.attrs,
        Item::Fn(it) => &it.attrs,
        Item::ForeignMod(it) => &it.attrs,
        Item::Impl(it) => &it.attrs,
        Item::Macro(it) => &it.attrs,
        Item::Mod(it) => &it.attrs,
        Item::Static(it) => &it.attrs,
        Item::Struct(it) => &it.attrs,
        Item::Trait(it) => &it.attrs,
        Item::TraitAlias(it) => &it.attrs,
        Item::Type(it) => &it.attrs,
        Item::Union(it) => &it.attrs,
        Item::Use(it) => &it.attrs,
        _ => &[],
    }
}

/// The name and visibility an item binds in its module's namespace.
fn item_name(item: &Item) -> Option<(String, &Visibility)> {
    let (ident, vis) = match item {
        Item::Const(it) => (&it.ident, &it.vis),
        Item::Enum(it) => (&it.ident, &it.vis),
        Item::Fn(it) => (&it.sig.ident, &it.vis),
        Item::Static(it) => (&it.ident, &it.vis),
        Item::Struct(it) => (&it.ident, &it.vis),
        Item::Trait(it) => (&it.ident, &it.vis),
        Item::TraitAlias(it) => (&it.ident, &it.vis),
        Item::Type(it) => (&it.ident, &it.vis),
        Item::Union(it) => (&it.ident, &it.vis),
        Item::Mod(it) => (&it.ident, &it.vis),
        _ => return None,
    };
    Some((ident.to_string(), vis))
}

fn parse_file(path: &Path) -> Result<syn::File> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    syn::parse_file(&text).map_err(|e| {
        let start = e.span().start();
        anyhow::anyhow!(
            "{}:{}:{}: {e}",
            path.display(),
            start.line,
            start.column + 1
        )
    })
}

fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|it| it.path().is_ident("path"))
        .and_then(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

/// Loads the module holding `items` and, recursively, its children.
/// `child_dir` is where `mod foo;` looks for `foo.rs`; `file_dir` is the directory of the current file.
fn load_module(
    modules: &mut Vec<Module>,
    parent: Option<usize>,
    items: Vec<Item>,
    child_dir: &Path,
    file_dir: &Path,
) -> Result<usize> {
    let idx = modules.len();
    modules.push(Module {
        parent,
        ..Module::default()
    });
    let mut kept = Vec::new();
    let mut children = BTreeMap::new();
    for item in items {
        if is_cfg_test(item_attrs(&item)) {
            continue;
        }
        if let Item::Mod(m) = &item {
            let name = m.ident.to_string();
            let child = match &m.content {
                Some((_, items)) => load_module(
                    modules,
                    Some(idx),
                    items.clone(),
                    &child_dir.join(&name),
                    file_dir,
                )?,
                None => {
                    let (file, grand_dir) = match path_attr(&m.attrs) {
                        Some(p) => {
                            let file = file_dir.join(p);
                            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
                            (file, dir)
                        }
                        None => {
                            let flat = child_dir.join(format!("{name}.rs"));
                            let nested = child_dir.join(&name).join("mod.rs");
                            if flat.is_file() {
                                (flat, child_dir.join(&name))
                            } else if nested.is_file() {
                                (nested, child_dir.join(&name))
                            } else {
                                bail!(
                                    "module `{name}`: neither {} nor {} exists",
                                    flat.display(),
                                    nested.display()
                                );
                            }
                        }
                    };
                    let parsed = parse_file(&file)?;
                    let file_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
                    load_module(modules, Some(idx), parsed.items, &grand_dir, &file_dir)?
                }
            };
            children.insert(kept.len(), child);
        }
        kept.push(item);
    }
    modules[idx].items = kept;
    // Children are recorded by item index so bindings can find them.
    let mut bindings = Vec::new();
    for (item_idx, item) in modules[idx].items.iter().enumerate() {
        let hidden = is_hidden(item_attrs(item));
        match item {
            Item::Use(it) => {
                let mut flat = Vec::new();
                let mut prefix = Vec::new();
                if it.leading_colon.is_some() {
                    prefix.push("::".to_owned());
                }
                flatten_use(&it.tree, &mut prefix, &mut flat);
                let vis = vis_of(&it.vis);
                bindings.extend(flat.into_iter().map(|(name, kind)| Binding {
                    name,
                    vis,
                    hidden,
                    kind,
                }));
            }
            Item::ExternCrate(it) => {
                let name = it
                    .rename
                    .as_ref()
                    .map_or_else(|| it.ident.to_string(), |(_, rename)| rename.to_string());
                let kind = BindingKind::Use(vec!["::".to_owned(), it.ident.to_string()]);
                bindings.push(Binding {
                    name,
                    vis: vis_of(&it.vis),
                    hidden,
                    kind,
                });
            }
            Item::Mod(_) => {
                let (name, vis) = item_name(item).expect("modules have names");
                let def = Def::Module {
                    krate: usize::MAX,
                    module: children[&item_idx],
                };
                bindings.push(Binding {
                    name,
                    vis: vis_of(vis),
                    hidden,
                    kind: BindingKind::Def(def),
                });
            }
            _ => {
                if let Some((name, vis)) = item_name(item) {
                    let def = Def::Item {
                        krate: usize::MAX,
                        module: idx,
                        item: item_idx,
                    };
                    bindings.push(Binding {
                        name,
                        vis: vis_of(vis),
                        hidden,
                        kind: BindingKind::Def(def),
                    });
                }
            }
        }
    }
    modules[idx].bindings = bindings;
    Ok(idx)
}

/// Flattens a use tree into `(bound name, kind)` pairs; `_` renames bind nothing.
fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, BindingKind)>) {
    match tree {
        UseTree::Path(it) => {
            prefix.push(it.ident.to_string());
            flatten_use(&it.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(it) => {
            let ident = it.ident.to_string();
            if ident == "self" {
                if let Some(last) = prefix.last() {
                    out.push((last.clone(), BindingKind::Use(prefix.clone())));
                }
            } else {
                let mut path = prefix.clone();
                path.push(ident.clone());
                out.push((ident, BindingKind::Use(path)));
            }
        }
        UseTree::Rename(it) => {
            let rename = it.rename.to_string();
            if rename == "_" {
                return;
            }
            let mut path = prefix.clone();
            if it.ident != "self" {
                path.push(it.ident.to_string());
            }
            out.push((rename, BindingKind::Use(path)));
        }
        UseTree::Glob(_) => out.push((String::new(), BindingKind::Glob(prefix.clone()))),
        UseTree::Group(group) => {
            for it in &group.items {
                flatten_use(it, prefix, out);
            }
        }
    }
}

fn load_crate(krate: usize, src: &CrateSource) -> Result<Crate> {
    let file = parse_file(&src.root)?;
    let dir = src.root.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut modules = Vec::new();
    load_module(&mut modules, None, file.items, &dir, &dir)?;
    // Fill in the crate index, and hoist `#[macro_export]` macros to the crate root.
    let mut exported_macros = Vec::new();
    for (module_idx, module) in modules.iter_mut().enumerate() {
        for binding in &mut module.bindings {
            if let BindingKind::Def(Def::Item { krate: k, .. } | Def::Module { krate: k, .. }) =
                &mut binding.kind
            {
                *k = krate;
            }
        }
        for (item_idx, item) in module.items.iter().enumerate() {
            if let Item::Macro(mac) = item
                && let Some(ident) = &mac.ident
                && mac
                    .attrs
                    .iter()
                    .any(|it| it.path().is_ident("macro_export"))
            {
                exported_macros.push(Binding {
                    name: ident.to_string(),
                    vis: Vis::Pub,
                    hidden: is_hidden(&mac.attrs),
                    kind: BindingKind::Def(Def::Item {
                        krate,
                        module: module_idx,
                        item: item_idx,
                    }),
                });
            }
        }
    }
    modules[0].bindings.extend(exported_macros);
    Ok(Crate {
        name: src.name.clone(),
        modules,
    })
}

impl World {
    fn module(&self, krate: usize, module: usize) -> &Module {
        &self.crates[krate].modules[module]
    }

    fn item(&self, krate: usize, module: usize, item: usize) -> &Item {
        &self.module(krate, module).items[item]
    }

    fn is_ancestor_or_self(&self, krate: usize, ancestor: usize, mut module: usize) -> bool {
        loop {
            if module == ancestor {
                return true;
            }
            match self.module(krate, module).parent {
                Some(parent) => module = parent,
                None => return false,
            }
        }
    }

    /// Resolves `path` as written in module `module` of `krate`.
    fn resolve(
        &self,
        krate: usize,
        module: usize,
        path: &[String],
        stack: &mut Stack,
    ) -> Vec<Target> {
        let Some((first, mut rest)) = path.split_first() else {
            return Vec::new();
        };
        let mut cur = match first.as_str() {
            "crate" | "$crate" => vec![Target::Def(Def::Module { krate, module: 0 })],
            "self" => vec![Target::Def(Def::Module { krate, module })],
            "super" => {
                let parent = self.module(krate, module).parent.unwrap_or(0);
                vec![Target::Def(Def::Module {
                    krate,
                    module: parent,
                })]
            }
            "::" => {
                let Some((name, tail)) = rest.split_first() else {
                    return Vec::new();
                };
                rest = tail;
                match self.crates.iter().position(|it| it.name == *name) {
                    Some(k) => vec![Target::Def(Def::Module {
                        krate: k,
                        module: 0,
                    })],
                    None => vec![Target::External(name.clone())],
                }
            }
            name => {
                let local = self.lookup(krate, module, name, stack);
                let bound = self
                    .module(krate, module)
                    .bindings
                    .iter()
                    .any(|it| it.name == name);
                if !local.is_empty() {
                    local
                } else if let Some(k) = self.crates.iter().position(|it| it.name == name) {
                    vec![Target::Def(Def::Module {
                        krate: k,
                        module: 0,
                    })]
                } else if bound {
                    // Bound here but unresolvable (a cycle, or an enum variant): not an outside path.
                    Vec::new()
                } else {
                    vec![Target::External(name.to_owned())]
                }
            }
        };
        for seg in rest {
            // Only modules (and outside paths) have path children; a name that is both a module and
            // a function, as after `mod capture; pub use capture::capture;`, means the module here.
            if cur
                .iter()
                .any(|it| matches!(it, Target::Def(Def::Module { .. })))
            {
                cur.retain(|it| matches!(it, Target::Def(Def::Module { .. })));
            }
            let mut next = Vec::new();
            for target in cur {
                match target {
                    Target::Def(Def::Module { krate, module }) => match seg.as_str() {
                        "self" => next.push(target),
                        "super" => {
                            let parent = self.module(krate, module).parent.unwrap_or(0);
                            next.push(Target::Def(Def::Module {
                                krate,
                                module: parent,
                            }));
                        }
                        name => next.extend(self.lookup(krate, module, name, stack)),
                    },
                    Target::External(prefix) => {
                        next.push(Target::External(format!("{prefix}::{seg}")))
                    }
                    // Paths into enums (variants) and types (associated items) are not followed.
                    Target::Def(Def::Item { .. }) => {}
                }
            }
            cur = next;
        }
        cur.sort();
        cur.dedup();
        cur
    }

    /// What `name` means inside module `module` of `krate`.
    fn lookup(&self, krate: usize, module: usize, name: &str, stack: &mut Stack) -> Vec<Target> {
        let key = (krate, module, name.to_owned());
        if stack.len() > MAX_DEPTH || stack.contains(&key) {
            return Vec::new();
        }
        stack.push(key);
        let mut res = self.lookup_uncached(krate, module, name, stack);
        stack.pop();
        res.sort();
        res.dedup();
        res
    }

    fn lookup_uncached(
        &self,
        krate: usize,
        module: usize,
        name: &str,
        stack: &mut Stack,
    ) -> Vec<Target> {
        let mut res = Vec::new();
        for binding in self
            .module(krate, module)
            .bindings
            .iter()
            .filter(|it| it.name == name)
        {
            match &binding.kind {
                BindingKind::Def(def) => res.push(Target::Def(*def)),
                BindingKind::Use(path) => res.extend(self.resolve(krate, module, path, stack)),
                BindingKind::Glob(_) => {}
            }
        }
        if !res.is_empty() {
            return res;
        }
        for binding in &self.module(krate, module).bindings {
            let BindingKind::Glob(path) = &binding.kind else {
                continue;
            };
            for target in self.resolve(krate, module, path, stack) {
                if let Target::Def(Def::Module {
                    krate: k,
                    module: m,
                }) = target
                {
                    // A glob imports what the importing module can see.
                    let see_private = k == krate && self.is_ancestor_or_self(krate, m, module);
                    let see_crate = k == krate;
                    for binding in self
                        .module(k, m)
                        .bindings
                        .iter()
                        .filter(|it| it.name == name)
                    {
                        let ok = match binding.vis {
                            Vis::Pub => true,
                            Vis::Crate => see_crate,
                            Vis::Private => see_private,
                        };
                        if ok {
                            res.extend(self.lookup(k, m, name, stack));
                            break;
                        }
                    }
                }
            }
        }
        res
    }

    /// The public names of a module and what they point to, each with whether the name is
    /// hidden (`#[doc(hidden)]` on its binding, or on a glob it comes through). A target
    /// reached both ways is not hidden.
    fn exports(
        &self,
        krate: usize,
        module: usize,
        seen: &mut Vec<(usize, usize)>,
    ) -> BTreeMap<String, BTreeMap<Target, bool>> {
        let mut res: BTreeMap<String, BTreeMap<Target, bool>> = BTreeMap::new();
        let add = |res: &mut BTreeMap<String, BTreeMap<Target, bool>>,
                   name: String,
                   target: Target,
                   hidden: bool| {
            let seen_hidden = res.entry(name).or_default().entry(target).or_insert(hidden);
            *seen_hidden &= hidden;
        };
        if seen.len() > MAX_DEPTH || seen.contains(&(krate, module)) {
            return res;
        }
        seen.push((krate, module));
        let public = self
            .module(krate, module)
            .bindings
            .iter()
            .filter(|it| it.vis == Vis::Pub);
        let mut globs = Vec::new();
        for binding in public {
            match &binding.kind {
                BindingKind::Def(def) => {
                    add(
                        &mut res,
                        binding.name.clone(),
                        Target::Def(*def),
                        binding.hidden,
                    );
                }
                BindingKind::Use(path) => {
                    let mut targets = self.resolve(krate, module, path, &mut Stack::new());
                    if targets.is_empty() {
                        targets.push(Target::External(
                            path.join("::").trim_start_matches("::").to_owned(),
                        ));
                    }
                    for target in targets {
                        add(&mut res, binding.name.clone(), target, binding.hidden);
                    }
                }
                BindingKind::Glob(path) => globs.push((path, binding.hidden)),
            }
        }
        let explicit: BTreeSet<String> = res.keys().cloned().collect();
        for (path, glob_hidden) in globs {
            for target in self.resolve(krate, module, path, &mut Stack::new()) {
                match target {
                    Target::Def(Def::Module {
                        krate: k,
                        module: m,
                    }) => {
                        for (name, targets) in self.exports(k, m, seen) {
                            if !explicit.contains(&name) {
                                for (target, hidden) in targets {
                                    add(&mut res, name.clone(), target, hidden || glob_hidden);
                                }
                            }
                        }
                    }
                    Target::External(p) => {
                        add(
                            &mut res,
                            "*".to_owned(),
                            Target::External(format!("{p}::*")),
                            glob_hidden,
                        );
                    }
                    Target::Def(Def::Item { .. }) => {}
                }
            }
        }
        seen.pop();
        res
    }

    /// The definitions `ty` names, if it is a plain path.
    fn resolve_type(&self, krate: usize, module: usize, ty: &Type) -> Vec<Target> {
        match ty {
            Type::Path(it) if it.qself.is_none() => self.resolve_path(krate, module, &it.path),
            Type::Group(it) => self.resolve_type(krate, module, &it.elem),
            Type::Paren(it) => self.resolve_type(krate, module, &it.elem),
            _ => Vec::new(),
        }
    }

    fn resolve_path(&self, krate: usize, module: usize, path: &syn::Path) -> Vec<Target> {
        let mut segs = Vec::new();
        if path.leading_colon.is_some() {
            segs.push("::".to_owned());
        }
        segs.extend(path.segments.iter().map(|it| it.ident.to_string()));
        self.resolve(krate, module, &segs, &mut Stack::new())
    }

    fn is_item(&self, target: &Target, pred: impl Fn(&Item) -> bool) -> Option<Def> {
        match target {
            Target::Def(
                def @ Def::Item {
                    krate,
                    module,
                    item,
                },
            ) if pred(self.item(*krate, *module, *item)) => Some(*def),
            _ => None,
        }
    }

    /// Whether `path` (as written in `module` of `krate`) names a trait of the loaded crates
    /// that is not `pub` (`pub(crate)` or private).
    fn is_private_trait(&self, krate: usize, module: usize, path: &syn::Path) -> bool {
        self.resolve_path(krate, module, path)
            .iter()
            .filter_map(|t| self.is_item(t, |it| matches!(it, Item::Trait(_))))
            .any(|def| match def {
                Def::Item {
                    krate,
                    module,
                    item,
                } => item_name(self.item(krate, module, item))
                    .is_some_and(|(_, vis)| vis_of(vis) != Vis::Pub),
                Def::Module { .. } => false,
            })
    }

    /// Every impl block of every crate, keyed by the type (or else the trait) it belongs to.
    fn impls(&self) -> BTreeMap<Def, Vec<ImplRef>> {
        let mut res: BTreeMap<Def, Vec<ImplRef>> = BTreeMap::new();
        for (krate, c) in self.crates.iter().enumerate() {
            for (module, m) in c.modules.iter().enumerate() {
                for (item, it) in m.items.iter().enumerate() {
                    let Item::Impl(imp) = it else { continue };
                    if is_cfg_test(&imp.attrs) {
                        continue;
                    }
                    // An impl of a trait no other crate can name is no one's API.
                    if let Some((_, path, _)) = &imp.trait_
                        && self.is_private_trait(krate, module, path)
                    {
                        continue;
                    }
                    let hidden = is_hidden(&imp.attrs);
                    let is_type =
                        |it: &Item| matches!(it, Item::Struct(_) | Item::Enum(_) | Item::Union(_));
                    let types: Vec<Def> = self
                        .resolve_type(krate, module, &imp.self_ty)
                        .iter()
                        .filter_map(|t| self.is_item(t, is_type))
                        .collect();
                    let (defs, via_trait) = if !types.is_empty() {
                        (types, false)
                    } else if let Some((_, path, _)) = &imp.trait_ {
                        let traits = self
                            .resolve_path(krate, module, path)
                            .iter()
                            .filter_map(|t| self.is_item(t, |it| matches!(it, Item::Trait(_))))
                            .collect();
                        (traits, true)
                    } else {
                        (Vec::new(), false)
                    };
                    for def in defs {
                        res.entry(def).or_default().push(ImplRef {
                            krate,
                            module,
                            item,
                            via_trait,
                            hidden,
                        });
                    }
                }
            }
        }
        res
    }

    /// Whether `def`'s own attributes hide it (`#[doc(hidden)]` on the item or `mod`).
    fn def_hidden(&self, def: Def) -> bool {
        match def {
            Def::Item {
                krate,
                module,
                item,
            } => is_hidden(item_attrs(self.item(krate, module, item))),
            // A module's attribute is on its binding, which `exports` reads.
            Def::Module { .. } => false,
        }
    }

    /// Every public name of crate `doc`, as `(path, name, target, hidden)`, reached from its
    /// root through its own modules; hidden when the path passes a hidden module or name, or
    /// the target itself is hidden (`Marked` only for this crate's own items and bindings: an
    /// item of another crate is counted where it is defined). A re-exported module of another crate is a name
    /// here, not walked: that crate lists its own items. A module reached by a visible path
    /// is walked through that one (breadth first, visible paths first at each depth).
    fn exported(&self, doc: usize) -> Vec<(String, String, Target, Hidden)> {
        let mut res = Vec::new();
        let root_path = self.crates[doc].name.clone();
        let mut visited = BTreeSet::from([(doc, 0)]);
        let mut queue = VecDeque::from([(0, root_path, Hidden::No)]);
        while let Some((module, prefix, prefix_hidden)) = queue.pop_front() {
            let mut found = Vec::new();
            for (name, targets) in self.exports(doc, module, &mut Vec::new()) {
                let path = format!("{prefix}::{name}");
                for (target, binding_hidden) in targets {
                    let (own, home) = match target {
                        Target::Def(def) => {
                            let (Def::Item { krate, .. } | Def::Module { krate, .. }) = def;
                            (self.def_hidden(def), krate == doc)
                        }
                        Target::External(_) => (false, true),
                    };
                    let hidden = match Hidden::within(prefix_hidden.any(), binding_hidden || own) {
                        Hidden::Marked if !binding_hidden && !home => Hidden::Inside,
                        hidden => hidden,
                    };
                    found.push((path.clone(), name.clone(), target, hidden));
                }
            }
            // Visible paths claim their modules first.
            found.sort_by_key(|it| it.3);
            for (path, name, target, hidden) in found {
                if let Target::Def(Def::Module { krate, module }) = target
                    && krate == doc
                    && visited.insert((krate, module))
                {
                    queue.push_back((module, path.clone(), hidden));
                }
                res.push((path, name, target, hidden));
            }
        }
        res
    }

    /// The shortest public path of every item and module of crate `doc` (the crate root is
    /// the crate's name), for naming them where another crate re-exports them.
    fn canonical_paths(&self, doc: usize) -> BTreeMap<Def, String> {
        let mut res = BTreeMap::from([(
            Def::Module {
                krate: doc,
                module: 0,
            },
            self.crates[doc].name.clone(),
        )]);
        let mut hidden_paths = BTreeSet::new();
        for (path, _, target, hidden) in self.exported(doc) {
            let Target::Def(def) = target else { continue };
            let (Def::Item { krate, .. } | Def::Module { krate, .. }) = def;
            if krate != doc {
                continue;
            }
            let key =
                |path: &String, hidden: bool| (hidden, path.matches("::").count(), path.clone());
            let better =
                |old: &String| key(&path, hidden.any()) < key(old, hidden_paths.contains(old));
            if res.get(&def).is_none_or(better) {
                if hidden.any() {
                    hidden_paths.insert(path.clone());
                }
                res.insert(def, path);
            }
        }
        res
    }

    /// The manifest entries of crate `doc`. Its own items are listed in full, under every
    /// public path; an item or module of another workspace crate that it re-exports is one
    /// `pub use` line naming the original, which that crate's own entries describe.
    fn public_api(
        &self,
        doc: usize,
        impls: &BTreeMap<Def, Vec<ImplRef>>,
        canonical: &[BTreeMap<Def, String>],
    ) -> Vec<Entry> {
        let mut entries = Vec::new();
        let entry = |path: &str, kind: &str, signature: String, hidden: Hidden| Entry {
            path: path.to_owned(),
            kind: kind.to_owned(),
            signature,
            hidden,
        };
        let root_path = self.crates[doc].name.clone();
        entries.push(entry(
            &root_path,
            "mod",
            format!("pub mod {root_path}"),
            Hidden::No,
        ));
        let reexport = |original: &str, name: &str| {
            let last = original.rsplit("::").next().unwrap_or_default();
            if last == name || name == "*" {
                format!("pub use {original}")
            } else {
                format!("pub use {original} as {name}")
            }
        };
        let mut item_paths: BTreeMap<Def, Vec<(String, Hidden)>> = BTreeMap::new();
        for (path, name, target, hidden) in self.exported(doc) {
            match target {
                Target::Def(def @ (Def::Item { krate, .. } | Def::Module { krate, .. }))
                    if krate != doc =>
                {
                    if let Some(original) = canonical[krate].get(&def) {
                        entries.push(entry(&path, "use", reexport(original, &name), hidden));
                    }
                }
                Target::Def(Def::Module { .. }) => {
                    entries.push(entry(&path, "mod", format!("pub mod {name}"), hidden));
                }
                Target::Def(def @ Def::Item { .. }) => {
                    item_paths.entry(def).or_default().push((path, hidden));
                }
                Target::External(p) => {
                    entries.push(entry(&path, "use", reexport(&p, &name), hidden));
                }
            }
        }
        let hidden = self.hidden_trait_items();
        for (def, paths) in &item_paths {
            let Def::Item {
                krate,
                module,
                item,
            } = *def
            else {
                continue;
            };
            let it = self.item(krate, module, item);
            let Some((kind, signature)) = render::item_sig(it, skipped) else {
                continue;
            };
            for (path, path_hidden) in paths {
                entries.push(entry(path, kind, signature.clone(), *path_hidden));
            }
            let canonical = paths
                .iter()
                .min_by_key(|(p, hidden)| (*hidden, p.matches("::").count(), p.clone()));
            let Some((canonical, canonical_hidden)) = canonical else {
                continue;
            };
            self.members(it, canonical, canonical_hidden.any(), &mut entries);
            for imp in impls.get(def).into_iter().flatten() {
                self.impl_members(
                    imp,
                    canonical,
                    canonical_hidden.any(),
                    &hidden,
                    &mut entries,
                );
            }
        }
        entries.sort();
        entries.dedup();
        entries
    }

    /// Fields, variants and trait items of `item`, listed under `path`; all hidden when
    /// `item` is reached only through a hidden path (`hidden`).
    fn members(&self, item: &Item, path: &str, hidden: bool, out: &mut Vec<Entry>) {
        let fields = match item {
            Item::Struct(it) => Some(it.fields.iter().collect::<Vec<_>>()),
            Item::Union(it) => Some(it.fields.named.iter().collect()),
            _ => None,
        };
        let attrs = match item {
            Item::Struct(it) => &it.attrs[..],
            Item::Enum(it) => &it.attrs,
            Item::Union(it) => &it.attrs,
            _ => &[],
        };
        let mut derived = BTreeSet::new();
        for attr in attrs.iter().filter(|it| it.path().is_ident("derive")) {
            let parser = Punctuated::<syn::Path, Token![,]>::parse_terminated;
            for it in attr.parse_args_with(parser).into_iter().flatten() {
                derived.insert(render::normalize(quote::ToTokens::to_token_stream(&it)));
            }
        }
        if !derived.is_empty() {
            let derived: Vec<String> = derived.into_iter().collect();
            out.push(Entry {
                path: path.to_owned(),
                kind: "impl".to_owned(),
                signature: format!("#[derive({})]", derived.join(", ")),
                hidden: Hidden::within(hidden, false),
            });
        }
        let mut push = |name: String, kind: &str, signature: String, attrs: &[Attribute]| {
            out.push(Entry {
                path: format!("{path}::{name}"),
                kind: kind.to_owned(),
                signature,
                hidden: Hidden::within(hidden, is_hidden(attrs)),
            });
        };
        for (idx, field) in fields.into_iter().flatten().enumerate() {
            if !render::is_pub(&field.vis) || is_cfg_test(&field.attrs) {
                continue;
            }
            let name = field
                .ident
                .as_ref()
                .map_or_else(|| idx.to_string(), ToString::to_string);
            let ty = render::normalize(quote::ToTokens::to_token_stream(&field.ty));
            push(
                name.clone(),
                "field",
                format!("pub {name}: {ty}"),
                &field.attrs,
            );
        }
        match item {
            Item::Enum(it) => {
                for variant in it.variants.iter().filter(|it| !is_cfg_test(&it.attrs)) {
                    push(
                        variant.ident.to_string(),
                        "variant",
                        render::variant_sig(variant),
                        &variant.attrs,
                    );
                }
            }
            Item::Trait(it) => {
                for trait_item in &it.items {
                    let attrs = match trait_item {
                        syn::TraitItem::Fn(it) => &it.attrs,
                        syn::TraitItem::Type(it) => &it.attrs,
                        syn::TraitItem::Const(it) => &it.attrs,
                        _ => continue,
                    };
                    if is_cfg_test(attrs) {
                        continue;
                    }
                    if let Some((kind, name, signature)) = render::trait_item_sig(trait_item) {
                        push(name, kind, signature, attrs);
                    }
                }
            }
            _ => {}
        }
    }

    /// The items that traits of the loaded crates hide (`#[doc(hidden)]`), as
    /// `(trait name, item name)`: an impl of such a trait does not list them either, as
    /// rustdoc does not show them on the implementor.
    fn hidden_trait_items(&self) -> BTreeSet<(String, String)> {
        let mut hidden = BTreeSet::new();
        for krate in &self.crates {
            for module in &krate.modules {
                for item in &module.items {
                    let Item::Trait(it) = item else { continue };
                    for trait_item in &it.items {
                        let (attrs, name) = match trait_item {
                            syn::TraitItem::Fn(it) => (&it.attrs, &it.sig.ident),
                            syn::TraitItem::Type(it) => (&it.attrs, &it.ident),
                            syn::TraitItem::Const(it) => (&it.attrs, &it.ident),
                            _ => continue,
                        };
                        if is_hidden(attrs) {
                            hidden.insert((it.ident.to_string(), name.to_string()));
                        }
                    }
                }
            }
        }
        hidden
    }

    /// The entries one impl block contributes under `path` (hidden when `path_hidden`, or
    /// the block or the item is); `trait_hidden` lists the trait items its trait hides
    /// ([`World::hidden_trait_items`]), which are hidden on the implementor too.
    fn impl_members(
        &self,
        imp: &ImplRef,
        path: &str,
        path_hidden: bool,
        trait_hidden: &BTreeSet<(String, String)>,
        out: &mut Vec<Entry>,
    ) {
        let Item::Impl(block) = self.item(imp.krate, imp.module, imp.item) else {
            return;
        };
        let trait_name = block
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .map(|it| it.ident.to_string());
        let header = block.trait_.is_some().then(|| render::impl_header(block));
        let block_hidden = path_hidden || imp.hidden;
        if let Some(header) = &header {
            out.push(Entry {
                path: path.to_owned(),
                kind: "impl".to_owned(),
                signature: header.clone(),
                hidden: Hidden::within(path_hidden, imp.hidden),
            });
        }
        if imp.via_trait {
            return;
        }
        for impl_item in &block.items {
            let (attrs, vis) = match impl_item {
                ImplItem::Fn(it) => (&it.attrs, &it.vis),
                ImplItem::Const(it) => (&it.attrs, &it.vis),
                ImplItem::Type(it) => (&it.attrs, &it.vis),
                _ => continue,
            };
            if is_cfg_test(attrs) || (header.is_none() && !render::is_pub(vis)) {
                continue;
            }
            let Some((kind, name, signature)) = render::impl_item_sig(impl_item) else {
                continue;
            };
            let hidden_by_trait = trait_name.as_ref().is_some_and(|trait_name| {
                trait_hidden.contains(&(trait_name.clone(), name.clone()))
            });
            let signature = match &header {
                Some(header) => format!("{header} {{ {signature} }}"),
                None => signature,
            };
            out.push(Entry {
                path: format!("{path}::{name}"),
                kind: kind.to_owned(),
                signature,
                hidden: Hidden::within(block_hidden || hidden_by_trait, is_hidden(attrs)),
            });
        }
    }
}

/// Loads `crates` and lists the public API of each of them, sorted by path, kind and signature.
///
/// All crates are loaded first, so a `pub use` of one of them from another is followed.
pub fn public_api(crates: &[CrateSource]) -> Result<Vec<Entry>> {
    let loaded = crates
        .iter()
        .enumerate()
        .map(|(idx, it)| {
            load_crate(idx, it).with_context(|| format!("while reading crate `{}`", it.name))
        })
        .collect::<Result<Vec<_>>>()?;
    let world = World { crates: loaded };
    let impls = world.impls();
    let canonical: Vec<_> = (0..world.crates.len())
        .map(|idx| world.canonical_paths(idx))
        .collect();
    let mut res = Vec::new();
    for idx in 0..world.crates.len() {
        res.extend(world.public_api(idx, &impls, &canonical));
    }
    res.sort();
    res.dedup();
    Ok(res)
}

//! The library's public API as a list, so an accidental change to what embedders can use
//! fails a test; an intended one is accepted with `cargo insta review`.
//!
//! What is public is what an embedder can name: the modules reachable from `lib.rs` through
//! `pub mod`, every `pub` item in them, and from internal modules only what a `pub use`
//! re-exports (with the methods of its `impl` blocks). It reads the source rather than
//! rustdoc's JSON (which needs a nightly toolchain), so it sees names and kinds, not full
//! signatures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const KINDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "use",
];

/// `kind name` for a line declaring a `pub` item; a `pub use` is kept whole.
fn declaration(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let kind = rest.split_whitespace().next()?;
    if !KINDS.contains(&kind) {
        return None;
    }
    if kind == "use" {
        return Some(rest.trim_end().to_string());
    }
    let name: String = rest[kind.len()..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let indent = if line.starts_with(' ') { "  " } else { "" };
    Some(format!("{indent}{kind} {name}"))
}

/// The items of a file, outside its tests: each `pub` declaration (a `pub use` joined up to
/// its `;`), with the type of the `impl` block it is in, if any.
fn items_of(text: &str) -> Vec<(String, Option<String>)> {
    // Test modules come last in a file; nothing after them is API.
    let api = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    let mut items = Vec::new();
    let mut in_impl = None;
    let mut lines = api.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("impl") {
            in_impl = impl_type(line);
        } else if !line.starts_with(' ') && !line.starts_with('}') && !line.is_empty() {
            in_impl = None;
        }
        let Some(mut item) = declaration(line) else {
            continue;
        };
        // A `pub use` over several lines, up to its `;`.
        while item.starts_with("use ") && !item.ends_with(';') {
            let Some(next) = lines.next() else { break };
            item.push(' ');
            item.push_str(next.trim());
        }
        let owner = if line.starts_with(' ') {
            in_impl.clone()
        } else {
            None
        };
        items.push((item.replace("{ ", "{").replace(", }", "}"), owner));
    }
    items
}

/// The type an `impl` line is for: `Type` in `impl<T> Trait for Type<T> {`.
fn impl_type(line: &str) -> Option<String> {
    let after = line.rsplit_once(" for ").map_or(line, |(_, ty)| ty);
    let after = after.strip_prefix("impl").unwrap_or(after);
    let after = after.trim_start();
    let after = if after.starts_with('<') {
        after
            .split_once('>')
            .map_or(after, |(_, rest)| rest)
            .trim_start()
    } else {
        after
    };
    let name: String = after
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The names a `pub use` line makes public (`a::{b, c as d}` gives `d` and `b`'s original
/// `c`... both the original and the new name, so the original's impl blocks are found), or
/// `*` for a glob.
fn reexported(item: &str) -> Vec<String> {
    let body = item.trim_start_matches("use ").trim_end_matches(';');
    let names = match body.split_once('{') {
        Some((_, list)) => list.trim_end_matches('}').to_string(),
        None => body.rsplit("::").next().unwrap_or_default().to_string(),
    };
    names
        .split(',')
        .flat_map(|name| {
            let name = name.trim();
            match name.split_once(" as ") {
                Some((from, to)) => vec![from.trim().to_string(), to.trim().to_string()],
                None => vec![name.rsplit("::").next().unwrap_or(name).to_string()],
            }
        })
        .filter(|name| !name.is_empty() && name != "self")
        .collect()
}

/// The file of module `name` declared in `file`.
fn module_file(file: &Path, name: &str) -> PathBuf {
    let stem = file.file_stem().unwrap().to_string_lossy();
    let dir = file.parent().unwrap();
    let dir = if stem == "lib" || stem == "mod" {
        dir.to_path_buf()
    } else {
        dir.join(&*stem)
    };
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        dir.join(name).join("mod.rs")
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            rust_files(&path, out);
        } else if name.ends_with(".rs") && !name.starts_with("tests") {
            out.push(path);
        }
    }
}

fn public_items(root: &Path) -> String {
    // The public modules: lib.rs, and every `pub mod` of a public module, with glob
    // re-exports (`pub use types::*`) making that module's file public too.
    let mut public = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut queue = vec![root.join("lib.rs")];
    while let Some(file) = queue.pop() {
        if !public.insert(file.clone()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (item, _) in items_of(&text) {
            if let Some(name) = item.strip_prefix("mod ") {
                queue.push(module_file(&file, name));
            } else if item.starts_with("use ") {
                for name in reexported(&item) {
                    if name == "*" {
                        let module = item.trim_start_matches("use ").split("::").next().unwrap();
                        queue.push(module_file(&file, module));
                    } else {
                        names.insert(name);
                    }
                }
            }
        }
    }
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut out = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let is_public = public.contains(&file);
        let items: Vec<String> = items_of(&text)
            .into_iter()
            .filter(|(item, owner)| {
                is_public
                    || match owner {
                        Some(owner) => names.contains(owner),
                        None => {
                            let name = item.split_whitespace().nth(1).unwrap_or_default();
                            !item.starts_with("use ") && names.contains(name)
                        }
                    }
            })
            .map(|(item, _)| item)
            .collect();
        if !items.is_empty() {
            let relative = file.strip_prefix(root).unwrap().display().to_string();
            let marker = if is_public {
                ""
            } else {
                " (internal; re-exported items)"
            };
            out.push_str(&format!("{relative}{marker}\n"));
            for item in items {
                out.push_str(&format!("    {item}\n"));
            }
        }
    }
    out
}

#[test]
fn the_public_api_is_what_was_chosen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    insta::assert_snapshot!(public_items(&root));
}

/// The `bootgen-diagnose` crate's, which the library re-exports as `bootgen::diagnose`: a change
/// to it is a change to the library's API too.
#[test]
fn the_diagnose_crates_public_api_is_what_was_chosen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../diagnose/src");
    insta::assert_snapshot!(public_items(&root));
}

#[test]
fn the_lister_sees_items_and_skips_private_ones() {
    assert_eq!(
        declaration("pub fn generate(x: u8)"),
        Some("fn generate".into())
    );
    assert_eq!(
        declaration("    pub fn name(self)"),
        Some("  fn name".into())
    );
    assert_eq!(declaration("pub(crate) fn hidden()"), None);
    assert_eq!(declaration("fn private()"), None);
    assert_eq!(declaration("    pub field: u8,"), None);
}

#[test]
fn the_lister_follows_reexports_and_impl_blocks() {
    assert_eq!(
        reexported("use generate::{generate, Options as Settings, self};"),
        vec!["generate", "Options", "Settings"]
    );
    assert_eq!(reexported("use types::*;"), vec!["*"]);
    assert_eq!(
        impl_type("impl<'a> Display for SplitDoc<'a> {"),
        Some("SplitDoc".into())
    );
    assert_eq!(impl_type("impl Options {"), Some("Options".into()));
    let items = items_of("pub struct A;\nimpl A {\n    pub fn new() {}\n}\nfn free() {}\n");
    assert_eq!(
        items,
        vec![
            ("struct A".to_string(), None),
            ("  fn new".to_string(), Some("A".to_string()))
        ]
    );
}

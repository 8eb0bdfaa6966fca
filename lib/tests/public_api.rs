//! The library's public API as a list: every `pub` item (modules, re-exports, types, functions,
//! constants, methods) by file, outside test code. An accidental change to what embedders
//! can use changes this snapshot and fails the test; an intended one is accepted with
//! `cargo insta review`. It reads the source rather than rustdoc's JSON (which needs a
//! nightly toolchain), so it sees names and kinds, not full signatures.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

const KINDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "use",
];

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

fn public_items(root: &Path) -> String {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let mut out = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // Test modules come last in a file; nothing after them is API.
        let api = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        let mut items = Vec::new();
        let mut lines = api.lines();
        while let Some(line) = lines.next() {
            let Some(mut item) = declaration(line) else {
                continue;
            };
            // A `pub use` over several lines, up to its `;`.
            while item.starts_with("use ") && !item.ends_with(';') {
                let Some(next) = lines.next() else { break };
                item.push(' ');
                item.push_str(next.trim());
            }
            items.push(item.replace("{ ", "{").replace(", }", "}"));
        }
        if !items.is_empty() {
            let relative = file.strip_prefix(root).unwrap().display().to_string();
            out.push_str(&format!("{relative}\n"));
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

//! The library's modules (and the CLI's) stack in layers: a module may use its own layer and
//! those below, never one above, so no two modules import each other in a circle. The layers
//! are written down here and in ARCHITECTURE.md; this test reads the sources and fails on an
//! import that goes up, naming the file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The library's top-level modules, lowest layer first.
const LIBRARY_LAYERS: &[&[&str]] = &[
    &["arch", "pki"],
    &["error"],
    &["config", "render"],
    &["release"],
    &["model"],
    &["identity"],
    &["context", "templates"],
    &["assets"],
    &["ignition"],
    &["passes"],
    &["checks", "report", "diagnose"],
    &["generate"],
    &["output", "golden"],
];

/// The CLI's modules, lowest layer first.
const CLI_LAYERS: &[&[&str]] = &[
    &["args", "clock", "resolver", "node"],
    &["input"],
    &["options"],
    &["report"],
    &["checks", "pack", "lock"],
    &["commands"],
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules `text` names through `crate::` (in paths and in `use crate::{...}`
/// groups), leaving out comments and test code.
fn imports(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            for item in top_level_items(group) {
                // `module::item`, or a bare module.
                let item = item.trim();
                let name = ident(item);
                if !name.is_empty() && (item == name || item.starts_with(&format!("{name}::"))) {
                    found.push(name);
                }
            }
        } else {
            let name = ident(rest);
            if rest.starts_with(&format!("{name}::")) && !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// The items of a `{...}` group (given without its `{`) at its own level: nested groups stay
/// inside their item.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// Every import that goes to a higher layer (or to a module the table does not know), as
/// `file: module -> module`.
fn upward_imports(root: &Path, layers: &[&[&str]]) -> Vec<String> {
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, mods)| mods.iter().map(move |m| (*m, i)))
        .collect();
    let mut files = Vec::new();
    sources(root, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(root).unwrap();
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.starts_with("tests_") {
            continue;
        }
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if ["lib", "main"].contains(&module.as_str()) {
            continue;
        }
        let Some(&own) = layer_of.get(module.as_str()) else {
            wrong.push(format!(
                "{}: module {module} has no layer",
                relative.display()
            ));
            continue;
        };
        for used in imports(&std::fs::read_to_string(&file).unwrap()) {
            if used == module {
                continue;
            }
            match layer_of.get(used.as_str()) {
                Some(&layer) if layer <= own => {}
                Some(_) => wrong.push(format!(
                    "{}: {module} imports {used}, a higher layer",
                    relative.display()
                )),
                None => wrong.push(format!(
                    "{}: {module} imports {used}, which has no layer",
                    relative.display()
                )),
            }
        }
    }
    wrong
}

#[test]
fn library_modules_import_only_their_layer_and_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let wrong = upward_imports(&root, LIBRARY_LAYERS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn cli_modules_import_only_their_layer_and_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/src");
    let wrong = upward_imports(&root, CLI_LAYERS);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The scan itself: it sees paths and groups, and not comments or tests.
#[test]
fn the_scan_finds_imports_and_skips_comments_and_tests() {
    let text = "use crate::error::Result;\nuse crate::{model::{Model, arch}, release};\n\
                // crate::generate::x\nfn f() { crate::passes::apply(); }\n\
                #[cfg(test)]\nmod tests { use crate::output::x; }\n";
    assert_eq!(imports(text), ["error", "model", "release", "passes"]);
    let wrong = {
        let dir = tempfile_dir();
        std::fs::write(dir.join("render.rs"), "use crate::generate::Options;\n").unwrap();
        upward_imports(&dir, LIBRARY_LAYERS)
    };
    assert_eq!(
        wrong,
        ["render.rs: render imports generate, a higher layer"]
    );
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bootgen-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

//! The library's modules (and the CLI's) stack in layers: a module may use its own layer and
//! those below, never one above, so no two modules import each other in a circle. The layers
//! are written down here and in ARCHITECTURE.md; this test reads the sources and fails on an
//! import that goes up, naming the file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The library's top-level modules, lowest layer first.
const LIBRARY_LAYERS: &[&[&str]] = &[
    &["arch", "ownership", "pki", "url_syntax"],
    &["error"],
    &["config", "render", "media"],
    &["release"],
    &["model"],
    &["identity", "network"],
    &["context", "templates"],
    &["assets"],
    &["ignition"],
    &["passes"],
    &["checks", "report", "diagnose", "node_requests"],
    &["generate"],
    &["output", "golden", "check"],
];

/// The CLI's modules, lowest layer first.
const CLI_LAYERS: &[&[&str]] = &[
    &["args", "clock", "resolver", "node", "remote"],
    &["input"],
    &["options"],
    &["report"],
    &["checks", "pack", "lock", "media"],
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

/// A source file's code without its comment lines and its test module.
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules `text` names through `crate::` (in paths and in `use crate::{...}`
/// groups), leaving out comments and test code.
fn imports(text: &str) -> Vec<String> {
    let code = code_of(text);
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

/// The items `text` takes from the crate root's re-exports (`crate::Error`, `crate::{Arch,
/// ...}`): those hide which module, and so which layer, they come from.
fn root_imports(text: &str) -> Vec<String> {
    let code = code_of(text);
    let item = |s: &str| -> String {
        s.trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let names: Vec<String> = match rest.strip_prefix('{') {
            Some(group) => top_level_items(group).into_iter().map(item).collect(),
            None => vec![item(rest)],
        };
        found.extend(
            names
                .into_iter()
                .filter(|n| n.starts_with(|c: char| c.is_ascii_uppercase())),
        );
    }
    found
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
fn no_library_file_imports_through_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap();
        for item in root_imports(&std::fs::read_to_string(&file).unwrap()) {
            wrong.push(format!(
                "{}: crate::{item}: name the module it comes from",
                relative.display()
            ));
        }
    }
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
    let through_root =
        "use crate::{Error, model::Model};\nfn f() -> crate::Result<()> { crate::error::x() }\n";
    assert_eq!(root_imports(through_root), ["Error", "Result"]);
    let wrong = {
        let dir = tempfile_dir("upward");
        std::fs::write(
            dir.path().join("render.rs"),
            "use crate::generate::Options;\n",
        )
        .unwrap();
        upward_imports(dir.path(), LIBRARY_LAYERS)
    };
    assert_eq!(
        wrong,
        ["render.rs: render imports generate, a higher layer"]
    );
}

/// A new temporary directory, removed when the returned handle drops.
fn tempfile_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("bootgen-layers-{name}-"))
        .tempdir()
        .unwrap()
}

/// A file's module path below `src/`: `release/table` for `release/table.rs`, `release` for
/// `release/mod.rs`, `` for `lib.rs`.
fn module_path(relative: &Path) -> String {
    let text = relative
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/");
    match text.strip_suffix("/mod") {
        Some(dir) => dir.to_string(),
        None if text == "lib" || text == "main" || text == "mod" => String::new(),
        None => text,
    }
}

fn parent_of(module: &str) -> String {
    module
        .rsplit_once('/')
        .map_or(String::new(), |(p, _)| p.to_string())
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}/{name}")
    }
}

/// The modules a file's code names through `super::`, `self::` and `crate::` paths (groups
/// included), each resolved to the longest module path that exists.
fn file_imports(text: &str, module: &str, known: &[String]) -> Vec<String> {
    let code = code_of(text);
    // `self` is the file's own module (`release/table`, or `release` for its mod.rs), `super`
    // the one above it.
    let self_base = module.to_string();
    let mut found = Vec::new();
    let mut resolve = |base: String, rest: &str| {
        let mut path = base.clone();
        let mut best = base;
        for part in rest.split("::") {
            let name: String = part
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                break;
            }
            path = join(&path, &name);
            if known.contains(&path) {
                best = path.clone();
            }
        }
        found.push(best);
    };
    for (at, _) in code.match_indices("::") {
        // Only the start of a path: `crate::`, `self::` or a run of `super::`.
        let before = &code[..at];
        let word: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        let preceded_by_path = before[..before.len() - word.len()].ends_with("::");
        if preceded_by_path {
            continue;
        }
        let mut rest = &code[at + 2..];
        let mut base = match word.as_str() {
            "crate" => String::new(),
            "self" => self_base.clone(),
            "super" => parent_of(&self_base),
            _ => continue,
        };
        while let Some(more) = rest.strip_prefix("super::") {
            base = parent_of(&base);
            rest = more;
        }
        if let Some(group) = rest.strip_prefix('{') {
            for item in top_level_items(group) {
                resolve(base.clone(), item);
            }
        } else {
            resolve(base, rest);
        }
    }
    found
}

/// Every circle of imports between files below `root`, each as its files' module paths. A
/// module's `mod.rs` declaring and re-exporting its children is no import of them.
fn file_circles(root: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    sources(root, &mut files);
    let entries: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            name != "tests.rs" && !name.starts_with("tests_")
        })
        .map(|f| (module_path(f.strip_prefix(root).unwrap()), f))
        .collect();
    let known: Vec<String> = entries.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (module, file) in &entries {
        let text = std::fs::read_to_string(file).unwrap();
        let mut targets: Vec<String> = file_imports(&text, module, &known)
            .into_iter()
            .filter(|t| t != module && !t.is_empty())
            .filter(|t| !t.starts_with(&format!("{module}/")) || module.is_empty())
            .collect();
        targets.sort();
        targets.dedup();
        edges.insert(module.clone(), targets);
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|group| group.len() > 1)
        .collect()
}

/// Tarjan's strongly connected components of `edges`.
fn strongly_connected(edges: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, Vec<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: std::collections::BTreeSet<&'a str>,
        groups: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.edges.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            group.sort();
            s.groups.push(group);
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: Default::default(),
        groups: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.groups
}

#[test]
fn no_two_files_import_each_other_in_a_circle() {
    for root in ["src", "../cli/src", "../diagnose/src"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
        let circles = file_circles(&root);
        assert!(circles.is_empty(), "{}: {circles:?}", root.display());
    }
}

/// The files below `root` that import an item of the crate root itself (`crate::Item`), each as
/// its module path.
fn root_importers(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(root, &mut files);
    let known: Vec<String> = files
        .iter()
        .map(|f| module_path(f.strip_prefix(root).unwrap()))
        .collect();
    let mut found: Vec<String> = files
        .iter()
        .zip(&known)
        .filter(|(_, module)| !module.is_empty())
        .filter(|(file, module)| {
            let text = std::fs::read_to_string(file).unwrap();
            file_imports(&text, module, &known)
                .iter()
                .any(String::is_empty)
        })
        .map(|(_, module)| module.clone())
        .collect();
    found.sort();
    found
}

/// The diagnose crate's lib.rs calls into its files, so none of them may import from lib.rs: the
/// types they share live in leaf files (`report.rs`, `limits.rs`), and the root is the top of
/// the crate, outside every circle the scan above does not see (it leaves the root out).
#[test]
fn no_file_of_the_diagnose_crate_imports_its_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../diagnose/src");
    let importers = root_importers(&root);
    assert!(importers.is_empty(), "import from lib.rs: {importers:?}");
    let dir = tempfile_dir("root");
    std::fs::write(dir.path().join("lib.rs"), "mod a;\npub struct E;\n").unwrap();
    std::fs::write(dir.path().join("a.rs"), "use crate::E;\n").unwrap();
    assert_eq!(root_importers(dir.path()), ["a"]);
}

/// The circle scan sees `super::` groups, `crate::` paths through re-exports and `self::`, and
/// does not count a `mod.rs` re-exporting its children.
#[test]
fn the_circle_scan_finds_the_circles_it_should() {
    let dir = tempfile_dir("circles");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod release;\nmod diagnose;\n");
    write(
        "release/mod.rs",
        "mod a;\nmod b;\npub use a::A;\npub use b::B;\n",
    );
    write("release/a.rs", "use super::{b::B, c};\npub struct A;\n");
    write("release/b.rs", "use crate::release::a::A;\npub struct B;\n");
    write("diagnose/mod.rs", "mod x;\nmod y;\npub struct E;\n");
    write("diagnose/x.rs", "use super::E;\nuse super::y::Y;\n");
    write(
        "diagnose/y.rs",
        "pub struct Y;\n#[cfg(test)]\nmod tests { use super::super::x; }\n",
    );
    assert_eq!(file_circles(dir.path()), [vec!["release/a", "release/b"]]);
}

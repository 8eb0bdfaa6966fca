//! The storage rules: files, directories and links share one namespace of clean absolute
//! paths, each defined once, with modes in range; files have sources Ignition can fetch and
//! decode, and none is another entry's parent directory (the files stage fails on that).

use super::{list, str_at, Rules};
use crate::checks::problem::{Check, Problem, Severity};
use crate::error::Result;
use crate::ignition::files::FileList;
use serde_json::Value;
use std::collections::HashMap;

/// `path` is absolute and equal to its cleaned form (no `//`, `.`, `..` or trailing `/`).
pub(super) fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("path not specified");
    }
    if !path.starts_with('/') {
        return Some("path not absolute");
    }
    let clean = path == "/"
        || path[1..]
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    (!clean).then_some("path is not fully simplified")
}

/// The entries of a list of the tree that have a path: (kind, index, path).
fn named_in<'v>(
    kind: &'static str,
    list: &'v [Value],
) -> impl Iterator<Item = (&'static str, usize, &'v str)> + 'v {
    list.iter()
        .enumerate()
        .filter_map(move |(i, e)| Some((kind, i, str_at(e, "path")?)))
}

impl Rules {
    /// Files, directories and links: one namespace of clean paths, each defined once; modes
    /// in range; sources Ignition can fetch and decode. The file entries are read one at a
    /// time, so their problems come in the order of the checks, not of the entries.
    pub(super) fn storage(&mut self, config: &Value, files: FileList<'_>) -> Result<()> {
        let file_paths = files.paths()?;
        let directories = list(config, "/storage/directories");
        let links = list(config, "/storage/links");
        let mut seen = HashMap::new();
        let mut sources = Vec::new();
        // Directories first, then files and links, as Ignition reads them (its storage's fields
        // in alphabetical order): of two entries of one path, the later is the duplicate.
        for (i, entry) in directories.iter().enumerate() {
            if let Some(path) = str_at(entry, "path") {
                self.entry(
                    ("directories", i),
                    path,
                    (Some(entry), Some(entry)),
                    &mut seen,
                );
            }
        }
        for (i, entry) in files.iter().enumerate() {
            let entry = entry?;
            if let Some(path) = file_paths[i].as_deref() {
                self.entry(("files", i), path, (Some(&entry), Some(&entry)), &mut seen);
            }
            // Reported after every path and mode (and the entries over directories).
            let mark = self.problems.len();
            self.file_sources(&entry, i);
            sources.extend(self.problems.drain(mark..));
        }
        for (i, entry) in links.iter().enumerate() {
            if let Some(path) = str_at(entry, "path") {
                self.entry(("links", i), path, (None, Some(entry)), &mut seen);
            }
            // From 3.3 Ignition's validator refuses a link without a target. Before, it takes
            // one (Go reads it as empty), but Ignition reads every config as its newest spec,
            // whose rule refuses it before any file is written.
            if str_at(entry, "target").unwrap_or_default().is_empty() {
                let at = format!("$.storage.links[{i}].target");
                if self.minor >= 3 {
                    self.error(
                        Check::Ignition,
                        "link-target",
                        at,
                        "link target is required",
                    );
                } else {
                    self.error(
                        Check::Boot,
                        "link-target",
                        at,
                        format!("the link has no target: ignition-validate takes that in spec 3.{}, but Ignition on the node reads the config as its newest spec, which requires one, so it refuses the config (\"link target is required\") before writing any file and the boot stops", self.minor),
                    );
                }
            }
        }
        // Every entry with a path, in that order: (kind, index, path).
        let named = || {
            file_paths
                .iter()
                .enumerate()
                .filter_map(|(i, p)| Some(("files", i, p.as_deref()?)))
                .chain(named_in("directories", directories))
                .chain(named_in("links", links))
                // Only clean paths: an unclean one is already an error, and `/a/` is not a
                // child of `/a`.
                .filter(|(_, _, path)| path_problem(path).is_none())
        };
        // Every directory some entry needs, with the first entry that needs it: one pass over
        // the ancestors of each path instead of comparing every pair of entries.
        let mut needed_dirs: HashMap<&str, (&str, &str, usize)> = HashMap::new();
        for (kind, i, path) in named() {
            for (end, _) in path.match_indices('/').filter(|(end, _)| *end > 0) {
                needed_dirs.entry(&path[..end]).or_insert((path, kind, i));
            }
        }
        for (kind, i, path) in named().filter(|(kind, ..)| *kind != "directories") {
            if path == "/" {
                continue;
            }
            if let Some((child, child_kind, j)) = needed_dirs.get(path) {
                self.error(
                    Check::Boot,
                    "file-over-directory",
                    format!("$.storage.{kind}[{i}]"),
                    format!(
                        "{path} is a file or link, but {child} ($.storage.{child_kind}[{j}]) needs it to be a directory: the files stage fails"
                    ),
                );
            }
        }
        self.problems.append(&mut sources);
        Ok(())
    }

    /// The path of one entry (`kind` and index), its mode when `mode_of` is given, its owners
    /// when `owned` is, and whether an entry before it (in `seen`) has the same path.
    fn entry<'p>(
        &mut self,
        (kind, i): (&'static str, usize),
        path: &'p str,
        (mode_of, owned): (Option<&Value>, Option<&Value>),
        seen: &mut HashMap<&'p str, (&'static str, usize)>,
    ) {
        let at = format!("$.storage.{kind}[{i}]");
        if let Some(entry) = owned {
            self.owners(entry, &at);
        }
        self.clean_path("path", format!("{at}.path"), path);
        match seen.get(path) {
            Some((first, j)) => self.error(
                Check::Ignition,
                "duplicate",
                at.clone(),
                format!("{path} is defined twice (first at $.storage.{first}[{j}])"),
            ),
            None => {
                seen.insert(path, (kind, i));
            }
        }
        if let Some(entry) = mode_of {
            self.mode(entry, &at);
        }
    }

    /// An error (`rule`, at `at`) when `path` is not absolute and clean.
    pub(super) fn clean_path(&mut self, rule: &'static str, at: String, path: &str) {
        match path_problem(path) {
            Some(why) if path.is_empty() => self.error(Check::Ignition, rule, at, why),
            Some(why) => self.error(Check::Ignition, rule, at, format!("{path}: {why}")),
            None => {}
        }
    }

    /// `overwrite` and the sources of file entry `i`.
    fn file_sources(&mut self, file: &Value, i: usize) {
        let at = format!("$.storage.files[{i}]");
        let has_source = file
            .get("contents")
            .and_then(|c| str_at(c, "source"))
            .is_some();
        if file.get("overwrite") == Some(&Value::Bool(true)) && !has_source {
            self.error(
                Check::Ignition,
                "overwrite",
                format!("{at}.overwrite"),
                "overwrite must be false if contents.source is unspecified",
            );
        }
        let path = str_at(file, "path");
        if let Some(resource) = file.get("contents") {
            self.resource(resource, &format!("{at}.contents"), path);
        }
        for (j, resource) in list(file, "/append").iter().enumerate() {
            self.resource(resource, &format!("{at}.append[{j}]"), path);
        }
    }

    fn mode(&mut self, entry: &Value, at: &str) {
        let Some(mode) = entry.get("mode").and_then(Value::as_i64) else {
            return;
        };
        if !(0..=0o7777).contains(&mode) {
            self.error(
                Check::Ignition,
                "mode",
                format!("{at}.mode"),
                if mode < 0 {
                    format!("illegal file mode {mode}: a mode is 0 to 07777 (4095)")
                } else {
                    format!("illegal file mode {mode} (0{mode:o}): a mode is 0 to 07777 (4095)")
                },
            );
        }
        if let Some(meant) = octal_meant(mode) {
            self.problems.push(Problem::new(
                Severity::Warning,
                Check::Ignition,
                "mode-decimal",
                format!("{at}.mode"),
                format!("mode {mode} is 0{mode:o} in octal: did you mean 0{meant:o}? A mode in JSON is a decimal number: write {meant} for 0{meant:o}"),
            ));
        }
        // Checked apart from the range, as Ignition does: a mode out of range with any of these
        // bits (a negative one has them all) gets this warning too.
        if mode & 0o7000 != 0 && self.minor < 4 {
            self.problems.push(Problem::new(
                Severity::Warning,
                Check::Ignition,
                "mode",
                format!("{at}.mode"),
                format!("mode {}: setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0", if mode < 0 { mode.to_string() } else { format!("0{mode:o}") }),
            ));
        }
    }
}

/// The modes files are usually given, as octal numbers.
const USUAL_MODES: &[i64] = &[
    0o400, 0o440, 0o444, 0o500, 0o550, 0o555, 0o600, 0o640, 0o644, 0o660, 0o664, 0o666, 0o700,
    0o750, 0o755, 0o770, 0o775, 0o777,
];

/// The mode meant when `mode` is a usual octal mode's digits typed as a decimal number (`644`
/// for 0644), and not itself a usual mode.
fn octal_meant(mode: i64) -> Option<i64> {
    let digits = mode.to_string();
    let meant = i64::from_str_radix(&digits, 8).ok()?;
    (mode >= 100 && USUAL_MODES.contains(&meant) && !USUAL_MODES.contains(&mode)).then_some(meant)
}

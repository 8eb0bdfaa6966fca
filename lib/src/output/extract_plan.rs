//! `extract`'s check of a whole config before it writes anything: every node path it names, in
//! one namespace, as Ignition sees them. Ignition's validator refuses a path that two entries
//! (files, directories, links) define, two units or drop-ins of one name, and an entry below a
//! link; its files stage fails on an entry below a file. Units' files may replace a file entry
//! (the files stage writes units last, as extract does), but nothing may be below one. What is
//! already in the target directory is checked too: a symlink on the way, or a file where a
//! directory must be, refuses the config before the first write.

use super::extract_walk::{Found, Walk};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// Mode bits extract never sets: setuid, setgid, sticky. Ignition applies them; extracted
/// files are for reading, and a setuid copy of a config's binary is not wanted there.
pub(super) const SPECIAL_BITS: u32 = 0o7000;

/// What a config makes at a node path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A `storage.files` entry.
    File,
    /// A `storage.directories` entry.
    Directory,
    /// A `storage.links` entry (not created by extract, but a path on the node all the same).
    Link,
    /// The file of a unit or drop-in under `UNIT_DIR`.
    Unit,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::File => "a file",
            Kind::Directory => "a directory",
            Kind::Link => "a link",
            Kind::Unit => "a unit or drop-in",
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Kind::File => "two files",
            Kind::Directory => "two directories",
            Kind::Link => "two links",
            Kind::Unit => "two units or drop-ins",
        }
    }
}

/// Every node path of a config with what makes it, and the modes extract cannot keep.
#[derive(Debug, Default)]
pub(super) struct Plan {
    entries: HashMap<String, Kind>,
    /// In config order, for checks that report the first problem.
    order: Vec<String>,
    /// One sentence per entry whose mode extract does not keep as asked.
    pub(super) modes_reduced: Vec<String>,
}

fn refuse(path: &str, reason: String) -> Error {
    Error::UnsafePath {
        path: path.to_string(),
        reason,
    }
}

impl Plan {
    /// Adds one entry; refuses a path an entry before it defines (a unit's file may replace a
    /// file entry, as on the node) and a mode out of range.
    pub(super) fn add(&mut self, path: &str, kind: Kind, mode: Option<u64>) -> Result<()> {
        if let Some(first) = self.entries.get(path) {
            if !(kind == Kind::Unit && *first == Kind::File) {
                let which = if *first == kind {
                    kind.plural().to_string()
                } else {
                    format!("{} and {}", first.noun(), kind.noun())
                };
                return Err(refuse(
                    path,
                    format!("defined twice ({which}): Ignition refuses the config"),
                ));
            }
        }
        if let Some(mode) = mode {
            self.check_mode(path, kind, mode)?;
        }
        if self.entries.insert(path.to_string(), kind).is_none() {
            self.order.push(path.to_string());
        }
        Ok(())
    }

    fn check_mode(&mut self, path: &str, kind: Kind, mode: u64) -> Result<()> {
        if mode > 0o7777 {
            return Err(refuse(
                path,
                format!("mode {mode} (0{mode:o}) is not 0 to 07777"),
            ));
        }
        let mode = mode as u32;
        if mode & SPECIAL_BITS != 0 {
            let kept = match kind {
                Kind::Directory => directory_mode(mode),
                _ => mode & 0o777,
            };
            self.modes_reduced.push(format!(
                "{path}: mode 0{mode:o} written as 0{kept:o} (setuid, setgid and sticky bits are not extracted)"
            ));
        }
        Ok(())
    }

    /// Refuses an entry below a file, link or unit of the config, then one below a symlink or
    /// non-directory already in `root`, or whose own place there is a symlink or directory.
    pub(super) fn check(&self, root: &Path) -> Result<()> {
        // An entry is below a file, link or unit when its path starts with that one's and a
        // `/`: a range of the sorted paths, so each entry is looked at once whatever its depth.
        let sorted: std::collections::BTreeSet<&str> =
            self.order.iter().map(String::as_str).collect();
        let not_directories = self
            .order
            .iter()
            .filter_map(|p| Some((p, self.entries.get(p)?)))
            .filter(|(_, k)| **k != Kind::Directory);
        for (parent, kind) in not_directories {
            let prefix = format!("{parent}/");
            if let Some(path) = sorted
                .range(prefix.as_str()..)
                .next()
                .filter(|p| p.starts_with(&prefix))
            {
                return Err(refuse(
                    path,
                    format!(
                        "{parent} is {} in the same config, so it cannot be a directory",
                        kind.noun()
                    ),
                ));
            }
        }
        if !root.is_dir() {
            return Ok(());
        }
        let mut walk = Walk::new(root)?;
        for path in &self.order {
            match self.entries.get(path) {
                Some(Kind::Link) | None => {}
                Some(kind) => check_on_disk(&mut walk, path, *kind)?,
            }
        }
        Ok(())
    }
}

/// The mode a directory is created with: its permission bits, and always the owner's, so that
/// extract can write into it.
pub(super) fn directory_mode(mode: u32) -> u32 {
    mode & 0o777 | 0o700
}

/// What the walk's root already holds on the way to `node_path` (an absolute, clean path).
fn check_on_disk(walk: &mut Walk, node_path: &str, kind: Kind) -> Result<()> {
    let parts: Vec<&str> = node_path.trim_start_matches('/').split('/').collect();
    let Some((name, parents)) = parts.split_last() else {
        return Ok(());
    };
    if !walk.enter(node_path, parents, false)? {
        // Nothing there yet, nor below it.
        return Ok(());
    }
    let here = walk.current_path().join(name);
    let found = Walk::found(walk.dir(), name)
        .map_err(|e| crate::error::Error::io("cannot read", &here, e.into()))?;
    let problem = match found {
        Found::Link => Some(format!("{} is a symlink", here.display())),
        Found::Directory if kind != Kind::Directory => {
            Some(format!("{} is a directory", here.display()))
        }
        Found::File | Found::Other if kind == Kind::Directory => {
            Some(format!("{} exists and is not a directory", here.display()))
        }
        _ => None,
    };
    problem.map_or(Ok(()), |reason| Err(refuse(node_path, reason)))
}

//! `bootgen extract`: every file of a config, decoded, with its mode, and every unit and drop-in
//! under `etc/systemd/system/`, written below one directory as they would land on the node.
//!
//! It never writes outside that directory: a path that is not absolute or not clean (`..`,
//! `.`, `//`), a unit name with a `/`, or a symlink anywhere on the way (one already in the
//! directory) is refused with an error naming it. The whole config is checked before anything
//! is written (`extract_plan.rs`): a path two entries define, an entry below a file or link, a
//! mode out of range refuse it, and then nothing at all is written.

use super::extract_plan::{directory_mode, Kind, Plan};
use super::extract_walk::{Found, Walk};
use crate::error::{Error, OptionField, Result};
use crate::ignition::{IgnitionDoc, SplitDoc};
use rustix::fs::{AtFlags, Mode, OFlags};
use serde_json::Value;
use std::borrow::Cow;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

/// Where the config's units go below the directory.
pub const UNIT_DIR: &str = "/etc/systemd/system";

/// What an extraction wrote and left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractReport {
    /// Node paths written (files, units, drop-ins), in config order.
    pub written: Vec<String>,
    /// Directories created from `storage.directories`.
    pub directories: Vec<String>,
    /// Entries not written, with the reason.
    pub skipped: Vec<String>,
    /// Entries written without the setuid, setgid or sticky bits their mode asks for, each
    /// with its path and both modes.
    pub modes_reduced: Vec<String>,
    /// Node paths of files the directory held with other contents, replaced (only when asked).
    pub replaced: Vec<String>,
}

fn unsafe_path(path: &str, reason: impl Into<String>) -> Error {
    Error::UnsafePath {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// The clean relative parts of an absolute node path, or why it is refused.
fn parts(node_path: &str) -> Result<Vec<&str>> {
    let rest = node_path
        .strip_prefix('/')
        .ok_or_else(|| unsafe_path(node_path, "not an absolute path"))?;
    if rest.contains('\0') {
        return Err(unsafe_path(
            node_path,
            "contains a NUL byte, which no file name can hold",
        ));
    }
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.contains(&"..") {
        return Err(unsafe_path(node_path, "contains `..`"));
    }
    if parts.iter().any(|p| p.is_empty() || *p == ".") {
        return Err(unsafe_path(
            node_path,
            "not a clean path (`.`, `//` or a trailing `/`)",
        ));
    }
    Ok(parts)
}

fn unit_component(kind: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(unsafe_path(
            name,
            format!("not a valid {kind} name (it must be one path component)"),
        ));
    }
    Ok(())
}

/// The most bytes one extraction writes for its files' contents, decompressed. A bootstrap
/// config's files come to a few MiB; gzip expands up to about 1000 times, so a small config
/// could otherwise fill a disk.
pub const MAX_EXTRACTED: u64 = 512 << 20;

/// One source of a file's bytes: a data URL and its compression.
type Source = (String, Option<String>);

/// What to write for a file entry: its sources (contents then appended fragments, decoded only
/// while written) and mode, or why it is not written.
type Written = std::result::Result<(Vec<Source>, u32), String>;

/// A file entry checked: its node path and what to write.
fn file_item(entry: &Value) -> Result<(String, Written)> {
    let path = entry
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default();
    parts(path)?;
    let source = |resource: &Value| {
        let url = crate::ignition::decode::source_of(resource)?;
        let compression = resource.get("compression").and_then(Value::as_str);
        Some((url.to_string(), compression.map(str::to_string)))
    };
    let contents = entry.get("contents").map(source);
    let appended = entry.get("append").and_then(Value::as_array);
    let sources: Vec<Source> = (contents.clone().flatten().into_iter())
        .chain(appended.into_iter().flatten().filter_map(source))
        .collect();
    let remote: Vec<&str> = sources
        .iter()
        .map(|(url, _)| url.as_str())
        .filter(|url| !url.starts_with("data:"))
        .collect();
    // No inline contents (none given, or fetched from elsewhere) and something to fetch.
    let no_contents = match &contents {
        None => true,
        Some(contents) => contents
            .as_ref()
            .is_some_and(|(url, _)| !url.starts_with("data:")),
    };
    if no_contents && !remote.is_empty() {
        // A URL may carry credentials or a signature: shown hidden, as diff and inspect do.
        let shown: Vec<String> = remote
            .iter()
            .map(|url| crate::report::hide_secrets(url))
            .collect();
        let reason = format!(
            "{path}: remote contents ({}) are not fetched",
            shown.join(", ")
        );
        return Ok((path.to_string(), Err(reason)));
    }
    let mode = entry
        .get("mode")
        .and_then(Value::as_u64)
        .map_or(0o644, |m| m as u32);
    let inline = sources
        .into_iter()
        .filter(|(url, _)| url.starts_with("data:"));
    Ok((path.to_string(), Ok((inline.collect(), mode))))
}

/// Compares what is written to it with the rest of an open file, a chunk at a time, keeping
/// none of it; it takes every byte either way, so a source is decoded (and checked) whole.
struct SameAsFile {
    file: fs::File,
    buffer: Vec<u8>,
    same: bool,
}

impl SameAsFile {
    fn new(file: fs::File) -> SameAsFile {
        SameAsFile {
            file,
            buffer: Vec::new(),
            same: true,
        }
    }

    /// True when every byte matched and the file holds nothing more.
    fn finish(mut self) -> bool {
        use std::io::Read as _;
        self.same && matches!(self.file.read(&mut [0u8; 1]), Ok(0))
    }
}

impl std::io::Write for SameAsFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use std::io::Read as _;
        const CHUNK: usize = 16 * 1024;
        let mut rest = buf;
        while self.same && !rest.is_empty() {
            let n = rest.len().min(CHUNK);
            self.buffer.resize(n, 0);
            self.same = self.file.read_exact(&mut self.buffer).is_ok() && self.buffer == rest[..n];
            rest = &rest[n..];
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The regular file the walk's root already holds at `node_path` (opened through no link),
/// if any; a link, directory or special file there is the plan's to refuse.
fn existing_file(walk: &mut Walk, node_path: &str) -> Result<Option<fs::File>> {
    let all = parts(node_path)?;
    let Some((name, parents)) = all.split_last() else {
        return Ok(None);
    };
    if !walk.enter(node_path, parents, false)? {
        return Ok(None);
    }
    let target = walk.current_path().join(name);
    if !matches!(
        Walk::found(walk.dir(), name).map_err(|e| Error::io("cannot read", &target, e.into()))?,
        Found::File
    ) {
        return Ok(None);
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(walk.dir(), *name, flags, Mode::empty())
        .map_err(|e| Error::io("cannot read", &target, e.into()))?;
    Ok(Some(fs::File::from(fd)))
}

/// Counts what passes through to the writer it wraps.
struct Counted<'a> {
    inner: &'a mut dyn Write,
    count: u64,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Decodes the sources of the `i`th file entry into `out` as a stream, within what is left of
/// `budget` (the bytes this extraction may still write), and takes what it wrote from it.
fn stream_sources(
    i: usize,
    node_path: &str,
    sources: &[Source],
    out: &mut dyn Write,
    budget: &mut u64,
) -> Result<()> {
    for (url, compression) in sources {
        let mut counted = Counted {
            inner: &mut *out,
            count: 0,
        };
        let decoded = crate::ignition::dataurl::decode_into(
            url,
            compression.as_deref(),
            &mut counted,
            *budget,
        );
        let written = counted.count;
        let message = match decoded {
            // Cut short by the budget (a decoder error then only says the writing stopped).
            _ if written > *budget => format!(
                "the config's files expand to more than {} MiB in all: refused as a decompression bomb",
                MAX_EXTRACTED >> 20
            ),
            Ok(_) => {
                *budget -= written;
                continue;
            }
            Err(e) => e.to_string(),
        };
        return Err(Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: format!("$.storage.files[{i}] ({node_path}): {message}"),
        });
    }
    Ok(())
}

/// Everything but the file list, each checked: directories (node path and mode), units with
/// their node files, and what is skipped (masks, links).
struct Rest {
    /// Node path and mode as the config gives it (checked by the plan before the cast).
    directories: Vec<(String, u64)>,
    links: Vec<String>,
    unit_files: Vec<(String, Vec<u8>)>,
    /// The node paths of masked units: no file entry is written there.
    masked: Vec<String>,
    skipped: Vec<String>,
}

fn rest_of(doc: &IgnitionDoc) -> Result<Rest> {
    let mut rest = Rest {
        directories: Vec::new(),
        links: Vec::new(),
        unit_files: Vec::new(),
        masked: Vec::new(),
        skipped: Vec::new(),
    };
    for dir in doc
        .value
        .pointer("/storage/directories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let node_path = dir.get("path").and_then(Value::as_str).unwrap_or_default();
        if node_path == "/" {
            rest.skipped
                .push("/: the root itself (the directory extracted into; left as it is)".into());
            continue;
        }
        parts(node_path)?;
        let mode = dir.get("mode").and_then(Value::as_u64).unwrap_or(0o755);
        rest.directories.push((node_path.to_string(), mode));
    }
    for unit in crate::ignition::decode_units(doc) {
        unit_component("unit", &unit.name)?;
        let unit_path = format!("{UNIT_DIR}/{}", unit.name);
        // As Ignition writes units: a masked one is a link to /dev/null whatever else writes
        // its path, one without text (or with an empty one) is not written, nor is a drop-in
        // without contents.
        if unit.mask == Some(true) {
            rest.skipped.push(format!(
                "{}: masked (on the node a link to /dev/null; not created)",
                unit.name
            ));
            rest.masked.push(unit_path);
        } else if let Some(text) = unit.contents.as_ref().filter(|t| !t.is_empty()) {
            rest.unit_files.push((unit_path, text.clone().into_bytes()));
        }
        for dropin in &unit.dropins {
            unit_component("drop-in", &dropin.name)?;
            let Some(text) = &dropin.contents else {
                continue;
            };
            rest.unit_files.push((
                format!("{UNIT_DIR}/{}.d/{}", unit.name, dropin.name),
                text.clone().into_bytes(),
            ));
        }
    }
    for link in doc
        .value
        .pointer("/storage/links")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = link.get("path").and_then(Value::as_str).unwrap_or_default();
        // Before spec 3.3 Ignition's validator takes a link without a target.
        let what = match link.get("target").and_then(Value::as_str) {
            Some(target) if !target.is_empty() => format!("link to {target}"),
            _ => "link without a target".to_string(),
        };
        parts(path)?;
        rest.links.push(path.to_string());
        rest.skipped
            .push(format!("{path}: {what} (links are not created)"));
    }
    Ok(rest)
}

/// Writes the file `node_path` below the walk's root through `write`, with `mode`: its
/// directories made or entered through no link, a link or directory at its name refused, a
/// file there replaced. The new one is written whole under a temporary name, created
/// exclusively (never through a link), then renamed over the name: a killed extract leaves
/// the old file or none, never a part of a key.
fn write_item(
    walk: &mut Walk,
    node_path: &str,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
    mode: u32,
) -> Result<()> {
    let all = parts(node_path)?;
    let (name, parents) = all
        .split_last()
        .ok_or_else(|| unsafe_path(node_path, "no file name"))?;
    walk.enter(node_path, parents, true)?;
    let dir = walk.dir();
    let target = walk.current_path().join(name);
    match Walk::found(dir, name).map_err(|e| Error::io("cannot read", &target, e.into()))? {
        Found::Link => {
            return Err(unsafe_path(
                node_path,
                format!("{} is a symlink", target.display()),
            ))
        }
        Found::Directory => {
            return Err(unsafe_path(
                node_path,
                format!("{} is a directory", target.display()),
            ))
        }
        Found::File | Found::Other | Found::Nothing => {}
    }
    // Exclusive and not following a link that appears in between.
    let temp = super::temp_name_for(name);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, temp.as_str(), flags, Mode::from_raw_mode(0o600))
        .map_err(|e| Error::io("cannot write", &target, e.into()))?;
    let mut handle = fs::File::from(fd);
    let written = write(&mut handle).and_then(|()| {
        handle
            .set_permissions(fs::Permissions::from_mode(mode))
            .map_err(|e| Error::io("cannot set permissions on", &target, e))
    });
    drop(handle);
    let placed = written.and_then(|()| {
        rustix::fs::renameat(dir, temp.as_str(), dir, *name)
            .map_err(|e| Error::io("cannot replace", &target, e.into()))
    });
    if placed.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp.as_str(), AtFlags::empty());
    }
    placed
}

/// Writes every file, unit and drop-in of `doc` below `dir` (created if needed). setuid, setgid
/// and sticky bits are dropped (and listed in `modes_reduced`): extracted files are for
/// reading, not running as someone else. A file `dir` already holds with other contents is
/// refused, naming it, unless `replace` (then it is listed in `replaced`); one that holds the
/// same bytes is written again.
pub fn extract(doc: &IgnitionDoc, dir: &Path, replace: bool) -> Result<ExtractReport> {
    let files = || {
        crate::ignition::read::file_entries(doc)
            .into_iter()
            .map(|entry| Ok(Cow::Borrowed(entry)))
    };
    extract_entries(doc, files, dir, replace)
}

/// [`extract`] for a config split with nothing kept ([`SplitDoc::parse_checked`] with
/// `|_| false`): each file entry is parsed and decoded when it is written, and dropped, so a
/// large config is never in memory decoded, nor as a JSON tree.
pub fn extract_split(split: &SplitDoc<'_>, dir: &Path, replace: bool) -> Result<ExtractReport> {
    let files = || split.input_files().map(|entry| entry.map(Cow::Owned));
    extract_entries(&split.doc, files, dir, replace)
}

/// Two passes over the file entries: the first checks every path and decodes every source
/// (keeping nothing), then the whole config's paths together and against what `dir` holds, so
/// that a config refused for any entry writes nothing at all; the second decodes each again
/// and writes it.
fn extract_entries<'v, I>(
    doc: &IgnitionDoc,
    files: impl Fn() -> I,
    dir: &Path,
    replace: bool,
) -> Result<ExtractReport>
where
    I: Iterator<Item = Result<Cow<'v, Value>>>,
{
    let rest = rest_of(doc)?;
    let mut report = ExtractReport::default();
    let mut plan = Plan::default();
    let mut budget = MAX_EXTRACTED;
    // What the directory already holds at a path the config writes is compared as it is
    // decoded: a file with other contents is replaced only when asked.
    let mut existing = if dir.is_dir() {
        Some(Walk::new(dir)?)
    } else {
        None
    };
    let item = |entry: &Value| -> Result<(String, Written)> {
        let (path, written) = file_item(entry)?;
        if written.is_ok() && rest.masked.contains(&path) {
            let reason = format!("{path}: a masked unit's path (on the node a link to /dev/null)");
            return Ok((path, Err(reason)));
        }
        Ok((path, written))
    };
    for (i, entry) in files().enumerate() {
        match item(entry?.as_ref())? {
            (path, Ok((sources, mode))) => {
                plan.add(&path, Kind::File, Some(mode.into()))?;
                let there = match existing.as_mut() {
                    Some(walk) => existing_file(walk, &path)?,
                    None => None,
                };
                match there {
                    Some(file) => {
                        let mut compared = SameAsFile::new(file);
                        stream_sources(i, &path, &sources, &mut compared, &mut budget)?;
                        if !compared.finish() {
                            report.replaced.push(path);
                        }
                    }
                    None => stream_sources(i, &path, &sources, &mut std::io::sink(), &mut budget)?,
                }
            }
            // Not written, but on the node it is a file all the same.
            (path, Err(reason)) => {
                plan.add(&path, Kind::File, None)?;
                report.skipped.push(reason);
            }
        }
    }
    for (node_path, mode) in &rest.directories {
        plan.add(node_path, Kind::Directory, Some(*mode))?;
    }
    for node_path in &rest.links {
        plan.add(node_path, Kind::Link, None)?;
    }
    for (node_path, _) in &rest.unit_files {
        plan.add(node_path, Kind::Unit, None)?;
    }
    plan.check(dir)?;
    if let Some(walk) = existing.as_mut() {
        for (node_path, bytes) in &rest.unit_files {
            if let Some(file) = existing_file(walk, node_path)? {
                let mut compared = SameAsFile::new(file);
                let _ = compared.write_all(bytes);
                if !compared.finish() {
                    report.replaced.push(node_path.clone());
                }
            }
        }
    }
    if !replace {
        if let Some(first) = report.replaced.first() {
            return Err(unsafe_path(
                first,
                format!(
                    "{} already holds it with other contents ({} such file(s) in all); set {} to replace them",
                    dir.display(),
                    report.replaced.len(),
                    OptionField::Force
                ),
            ));
        }
    }
    report.skipped.extend(rest.skipped);
    report.modes_reduced = plan.modes_reduced;
    fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
    let mut walk = Walk::new(dir)?;
    for (node_path, mode) in &rest.directories {
        let all = parts(node_path)?;
        walk.enter(node_path, &all, true)?;
        // In range: the plan refused any other.
        let mode = directory_mode(u32::try_from(*mode).unwrap_or_default());
        rustix::fs::fchmod(walk.dir(), Mode::from_raw_mode(mode))
            .map_err(|e| Error::io("cannot set permissions on", walk.current_path(), e.into()))?;
        report.directories.push(node_path.clone());
    }
    let mut budget = MAX_EXTRACTED;
    for (i, entry) in files().enumerate() {
        if let (node_path, Ok((sources, mode))) = item(entry?.as_ref())? {
            let write =
                |out: &mut dyn Write| stream_sources(i, &node_path, &sources, out, &mut budget);
            write_item(&mut walk, &node_path, write, mode & 0o777)?;
            report.written.push(node_path);
        }
    }
    for (node_path, bytes) in rest.unit_files {
        let write = |out: &mut dyn Write| {
            let target = dir.join(node_path.trim_start_matches('/'));
            out.write_all(&bytes)
                .map_err(|e| Error::io("cannot write", &target, e))
        };
        write_item(&mut walk, &node_path, write, 0o644)?;
        report.written.push(node_path);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(files: Value, units: Value) -> IgnitionDoc {
        IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0"}, "storage": {"files": files}, "systemd": {"units": units}}),
        }
    }

    /// A write that stops half way (a kill, a full disk) leaves the file as it was: the bytes
    /// go to a temporary name first, which a failed write removes.
    #[test]
    fn a_write_stopped_half_way_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("etc")).unwrap();
        fs::write(dir.path().join("etc/key"), "old and whole").unwrap();
        let mut walk = Walk::new(dir.path()).unwrap();
        let stopped = write_item(
            &mut walk,
            "/etc/key",
            |out| {
                out.write_all(b"-----BEGIN").unwrap();
                Err(Error::io(
                    "cannot write",
                    Path::new("etc/key"),
                    std::io::Error::other("disk full"),
                ))
            },
            0o600,
        );
        assert!(stopped.is_err());
        assert_eq!(
            fs::read_to_string(dir.path().join("etc/key")).unwrap(),
            "old and whole"
        );
        let names: Vec<_> = fs::read_dir(dir.path().join("etc"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["key"]);
        // A whole write replaces it.
        let mut walk = Walk::new(dir.path()).unwrap();
        write_item(
            &mut walk,
            "/etc/key",
            |out| {
                out.write_all(b"new").unwrap();
                Ok(())
            },
            0o600,
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("etc/key")).unwrap(),
            "new"
        );
    }

    /// Each link is named in a note with its target, or as having none (which spec 3.0 to 3.2
    /// let through), never as a link "to" nothing.
    #[test]
    fn links_are_noted_with_their_target_or_as_having_none() {
        let dir = tempfile::tempdir().unwrap();
        let d = IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0"}, "storage": {"links": [
                {"path": "/l"}, {"path": "/m", "target": ""}, {"path": "/n", "target": "/etc/a"}
            ]}}),
        };
        let report = extract(&d, dir.path(), false).unwrap();
        assert_eq!(
            report.skipped,
            [
                "/l: link without a target (links are not created)",
                "/m: link without a target (links are not created)",
                "/n: link to /etc/a (links are not created)"
            ]
        );
    }

    #[test]
    fn writes_files_units_and_dropins_with_modes() {
        let dir = tempfile::tempdir().unwrap();
        let d = doc(
            json!([{"path": "/etc/a/key", "mode": 384, "contents": {"source": "data:,secret"}},
                   {"path": "/etc/motd", "contents": {"source": "data:,a"}, "append": [{"source": "data:,b"}]}]),
            json!([{"name": "x.service", "contents": "[Unit]\n", "dropins": [{"name": "10-a.conf", "contents": "[Unit]\n"}]}]),
        );
        let report = extract(&d, dir.path(), false).unwrap();
        assert_eq!(report.written.len(), 4);
        let key = dir.path().join("etc/a/key");
        assert_eq!(fs::read(&key).unwrap(), b"secret");
        assert_eq!(
            fs::metadata(&key).unwrap().permissions().mode() & 0o7777,
            0o600
        );
        assert_eq!(fs::read(dir.path().join("etc/motd")).unwrap(), b"ab");
        assert!(dir
            .path()
            .join("etc/systemd/system/x.service.d/10-a.conf")
            .is_file());
    }

    /// Split, one entry at a time, the same files with the same modes and the same report as
    /// from the whole tree; on every valid fixture config.
    #[test]
    fn extracting_a_split_config_writes_what_the_tree_writes() {
        fn tree(root: &Path) -> Vec<(String, u32, Option<Vec<u8>>)> {
            let mut found: Vec<_> = walkdir::WalkDir::new(root)
                .min_depth(1)
                .into_iter()
                .map(|e| e.unwrap())
                .map(|e| {
                    let meta = e.metadata().unwrap();
                    let relative = e.path().strip_prefix(root).unwrap().display().to_string();
                    let bytes = meta.is_file().then(|| fs::read(e.path()).unwrap());
                    (relative, meta.permissions().mode(), bytes)
                })
                .collect();
            found.sort();
            found
        }
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ign/valid");
        let mut compared = 0;
        for entry in fs::read_dir(fixtures).unwrap() {
            let path = entry.unwrap().path();
            let bytes = fs::read(&path).unwrap();
            let name = path.display().to_string();
            // A config the strict parse refuses (an unknown key) is refused split too.
            let Ok(whole) = IgnitionDoc::parse(&bytes, &name) else {
                assert!(SplitDoc::parse_checked(&bytes, &name, |_| false).is_err());
                continue;
            };
            let split = SplitDoc::parse_checked(&bytes, &name, |_| false).unwrap();
            let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let from_tree = extract(&whole, a.path(), false).unwrap();
            let from_split = extract_split(&split, b.path(), false).unwrap();
            assert_eq!(from_tree, from_split, "{name}");
            assert_eq!(tree(a.path()), tree(b.path()), "{name}");
            compared += usize::from(!from_tree.written.is_empty());
        }
        assert!(compared >= 5, "{compared}");
        // Refused for one entry: nothing at all is written, split or not.
        let bad = doc(
            json!([{"path": "/etc/a", "contents": {"source": "data:,a"}},
                   {"path": "/etc/b", "contents": {"source": "data:;base64,%%%"}}]),
            json!([]),
        );
        let bytes = bad.to_bytes();
        let split = SplitDoc::parse(&bytes, "bad.ign", |_| false).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        assert!(extract_split(&split, &out, false).is_err());
        assert!(!out.exists());
    }

    /// Paths deep and shallow, in an order that goes down, back up and down another branch:
    /// each lands where its path says (the walk keeps only the deepest directory open).
    #[test]
    fn deep_paths_and_branches_land_where_their_paths_say() {
        let deep = format!("/{}", vec!["d"; 300].join("/"));
        let paths = [
            format!("{deep}/one"),
            "/x/y/a".to_string(),
            "/z/b".to_string(),
            "/x/y/c".to_string(),
            format!("{deep}/two"),
            "/top".to_string(),
        ];
        let files: Vec<Value> = paths
            .iter()
            .map(|p| json!({"path": p, "contents": {"source": format!("data:,{}", p.len())}}))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let report = extract(&doc(Value::Array(files), json!([])), dir.path(), false).unwrap();
        assert_eq!(report.written.len(), paths.len());
        for path in &paths {
            let written = std::fs::read_to_string(dir.path().join(&path[1..])).unwrap();
            assert_eq!(written, path.len().to_string(), "{path}");
        }
    }

    /// A file the directory holds with other contents is refused, naming it, and nothing is
    /// written, unless replacing is asked for; one with the same contents is no conflict.
    #[test]
    fn a_file_with_other_contents_is_replaced_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let config = doc(
            json!([{"path": "/etc/motd", "contents": {"source": "data:,from%20config"}},
                   {"path": "/etc/new", "contents": {"source": "data:,new"}}]),
            json!([{"name": "a.service", "contents": "[Unit]\n"}]),
        );
        std::fs::create_dir_all(dir.path().join("etc")).unwrap();
        std::fs::write(dir.path().join("etc/motd"), "my hand-edited file").unwrap();
        let err = extract(&config, dir.path(), false).unwrap_err().to_string();
        assert!(
            err.contains("/etc/motd") && err.contains("`force`"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("etc/motd")).unwrap(),
            "my hand-edited file"
        );
        assert!(!dir.path().join("etc/new").exists());
        let report = extract(&config, dir.path(), true).unwrap();
        assert_eq!(report.replaced, ["/etc/motd"]);
        // Extracted again: the same bytes are there, nothing to refuse.
        let again = extract(&config, dir.path(), false).unwrap();
        assert!(again.replaced.is_empty());
        // A unit edited by hand counts too.
        let unit = dir.path().join("etc/systemd/system/a.service");
        std::fs::write(&unit, "[Unit]\nDescription=mine\n").unwrap();
        let err = extract(&config, dir.path(), false).unwrap_err().to_string();
        assert!(err.contains("a.service"), "{err}");
    }

    #[test]
    fn refuses_traversal_relative_paths_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let one = |path: &str| {
            doc(
                json!([{"path": path, "contents": {"source": "data:,x"}}]),
                json!([]),
            )
        };
        for bad in ["/../escape", "/a/../../escape", "relative", "/a//b"] {
            let err = extract(&one(bad), dir.path(), false)
                .unwrap_err()
                .to_string();
            assert!(err.contains(bad), "{err}");
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("etc")).unwrap();
        let err = extract(&one("/etc/passwd"), dir.path(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("symlink"), "{err}");
        assert!(!outside.path().join("passwd").exists());
        let bad_unit = doc(json!([]), json!([{"name": "../x.service", "contents": ""}]));
        assert!(extract(&bad_unit, dir.path(), false).is_err());
    }
}

//! Walking a log bundle, a tar archive (plain, gzip or xz, told by its first bytes) read as a
//! stream (nothing is unpacked; nothing is written) or an unpacked directory, and offering each
//! file to the [`Analysis`] once, within [`Limits`], checked as each file is read.

use std::cell::Cell;
use std::fs;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use flate2::read::GzDecoder;

use crate::analysis::{classify, Analysis, FileKind};
use crate::archive::{self, Counting, Guarded};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::records::time_of_epoch;
use crate::verdict::Walked;

/// A bundle path made relative to the bundle's top, or why it is refused. The top directory
/// (`log-bundle-ID/`, or bootgen's older `artifacts-ID/`) is dropped; `log-bundle-bootstrap/`
/// (a single node's pre-reboot bundle inside the later one) is kept.
pub(crate) fn bundle_path(raw: &str) -> std::result::Result<Option<String>, String> {
    if raw.starts_with('/') {
        return Err("an absolute path".into());
    }
    let mut parts = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("a path that leaves the bundle (..)".into()),
            part => parts.push(part),
        }
    }
    if let Some(first) = parts.first() {
        let top = (first.starts_with("log-bundle-")
            && Some(*first) != crate::layout::PRE_REBOOT.strip_suffix('/'))
            || first.starts_with("artifacts-");
        if top {
            parts.remove(0);
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join("/")))
}

/// A byte count shared with the reader that keeps it.
type Count = Rc<Cell<u64>>;

/// What the walk has used of its limits.
struct Budget<'a> {
    limits: &'a Limits,
    /// Uncompressed bytes read: the tar stream, plus compressed journals inside it.
    used: u64,
    entries: u64,
    /// An archive's live counts (its tar stream's bytes, and its own), read while a file is:
    /// one entry alone can be a bomb.
    live: Option<(Count, Count)>,
}

impl Budget<'_> {
    fn file_limit(&self) -> u64 {
        self.limits
            .max_file_bytes
            .min(self.limits.max_total_bytes.saturating_sub(self.used))
    }

    /// Why reading must stop now that `inflated` bytes came out of a compressed file of `size`
    /// bytes being read (0 for a file that is not compressed), if it must.
    fn stop_inside(&self, size: u64, inflated: u64) -> Option<String> {
        let (used, compressed) = match &self.live {
            Some((uncompressed, compressed)) => (uncompressed.get(), compressed.get()),
            None => (self.used, u64::MAX),
        };
        let limits = self.limits;
        let used = used + inflated;
        let too_much = bytes_over_limits(limits, used, compressed);
        let ratio_floor = limits.ratio_applies_after;
        too_much.or_else(|| {
            (inflated > ratio_floor && inflated / size.max(1) > limits.max_ratio).then(|| {
                format!(
                    "stopped: {} MiB came out of a file of {} KiB, more than {}:1 (an archive bomb?)",
                    inflated >> 20,
                    size >> 10,
                    limits.max_ratio
                )
            })
        })
    }
}

/// Offers one file to the analysis. `mtime` dates a `.done` marker. Returns the bytes read
/// beyond the reader's own (decompressed journals), or the error that stopped the reading.
fn offer(
    analysis: &mut Analysis,
    path: &str,
    reader: &mut dyn Read,
    mtime: Option<i64>,
    budget: &Budget<'_>,
) -> io::Result<u64> {
    analysis.facts.file_time(&path.to_ascii_lowercase(), mtime);
    let outer = |_: u64| budget.stop_inside(0, 0);
    let reader = &mut Guarded {
        inner: reader,
        read: 0,
        check: &outer,
    };
    match classify(path) {
        FileKind::Records(service) => {
            let mut bytes = Vec::new();
            reader
                .take(budget.limits.max_records_bytes + 1)
                .read_to_end(&mut bytes)?;
            if bytes.len() as u64 > budget.limits.max_records_bytes {
                analysis.note(format!(
                    "{path}: larger than {} MiB; its records are left out",
                    budget.limits.max_records_bytes / (1024 * 1024)
                ));
            } else {
                analysis.add_records(path, &service, &bytes);
            }
            Ok(0)
        }
        FileKind::MarkerListing => {
            analysis.add_marker_listing(path, &mut BufReader::new(reader), budget.file_limit());
            Ok(0)
        }
        FileKind::Marker(name) => {
            analysis.add_marker(name, mtime.and_then(time_of_epoch), path);
            Ok(0)
        }
        FileKind::Text | FileKind::FailedUnits => {
            analysis.scan_text(path, &mut BufReader::new(reader), budget.file_limit())?;
            Ok(0)
        }
        FileKind::GzipText => {
            let size = Rc::new(Cell::new(0u64));
            let counted = Counting {
                inner: reader,
                count: Rc::clone(&size),
            };
            let inner = |inflated: u64| budget.stop_inside(size.get(), inflated);
            let mut decoder = BufReader::new(Guarded {
                inner: GzDecoder::new(counted),
                read: 0,
                check: &inner,
            });
            match analysis.scan_text(path, &mut decoder, budget.file_limit()) {
                Ok(read) => Ok(read),
                Err(err)
                    if err.kind() == io::ErrorKind::InvalidInput
                        || err.kind() == io::ErrorKind::InvalidData =>
                {
                    analysis.note(format!("{path}: not valid gzip ({err}); read up to there"));
                    Ok(0)
                }
                Err(err) => Err(err),
            }
        }
        FileKind::Skip => Ok(0),
    }
}

/// Offers one file that is not in an archive (the node's state) to the analysis.
pub(crate) fn offer_file(
    analysis: &mut Analysis,
    raw: &str,
    reader: &mut dyn Read,
    mtime: Option<i64>,
    limits: &Limits,
) {
    let path = match bundle_path(raw) {
        Ok(Some(path)) => path,
        Ok(None) => return,
        Err(reason) => {
            analysis.note(format!("skipped {raw:?}: {reason}"));
            return;
        }
    };
    let budget = Budget {
        limits,
        used: 0,
        entries: 0,
        live: None,
    };
    if let Err(err) = offer(analysis, &path, reader, mtime, &budget) {
        analysis.note(format!("{path}: cannot be read ({err})"));
    }
}

/// Reads a bundle archive from `reader` in one pass: a tar archive, plain or compressed with
/// gzip or xz, as its first bytes say. `name` names it in messages. Fails only when nothing of
/// it can be read; damage further on ends the pass with a note (and is in what it returns).
pub(crate) fn read_archive(
    mut reader: impl Read,
    name: &str,
    limits: &Limits,
    analysis: &mut Analysis,
) -> Result<Walked> {
    let unreadable = |message: String| Error::UnreadableBundle {
        file: name.to_string(),
        message: format!("not a readable log bundle: {message}"),
    };
    let compressed = Rc::new(Cell::new(0u64));
    let uncompressed = Rc::new(Cell::new(0u64));
    let head = archive::head(&mut reader).map_err(|e| unreadable(e.to_string()))?;
    let counted = Counting {
        inner: reader,
        count: Rc::clone(&compressed),
    };
    let stream = archive::open(head, counted).map_err(unreadable)?;
    let mut archive = tar::Archive::new(Counting {
        inner: stream,
        count: Rc::clone(&uncompressed),
    });
    let entries = archive.entries().map_err(|e| unreadable(e.to_string()))?;
    let mut walked = Walked::default();
    let mut budget = Budget {
        limits,
        used: 0,
        entries: 0,
        live: Some((Rc::clone(&uncompressed), Rc::clone(&compressed))),
    };
    let mut extra = 0u64;
    for entry in entries {
        let mut entry = match entry {
            Ok(entry) => entry,
            Err(err) if budget.entries == 0 => return Err(unreadable(err.to_string())),
            Err(err) => {
                let why = format!(
                    "cut short or corrupt after {} entries ({err})",
                    budget.entries
                );
                stop_archive(&mut walked, analysis, name, why);
                break;
            }
        };
        budget.entries += 1;
        budget.used = uncompressed.get() + extra;
        if let Some(reason) = over_limits(&budget, compressed.get()) {
            stop_archive(&mut walked, analysis, name, reason);
            break;
        }
        let kind = entry.header().entry_type();
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if kind.is_symlink() || kind.is_hard_link() {
            // Never followed (it may point anywhere), but said: a record as a link is damage.
            if let Ok(Some(path)) = bundle_path(&raw) {
                walked.saw(&path, false);
            }
            analysis.note(format!("skipped {raw}: a link"));
            continue;
        }
        if !kind.is_file() {
            if !kind.is_dir() && bundle_path(&raw).is_ok_and(|p| p.is_some()) {
                analysis.note(format!(
                    "skipped {raw}: not a regular file (a FIFO, device or other special entry)"
                ));
            }
            continue;
        }
        let path = match bundle_path(&raw) {
            Ok(Some(path)) => path,
            Ok(None) => continue,
            Err(reason) => {
                analysis.note(format!("skipped {raw:?}: {reason}"));
                continue;
            }
        };
        let mtime = entry
            .header()
            .mtime()
            .ok()
            .and_then(|t| i64::try_from(t).ok());
        budget.used = uncompressed.get() + extra;
        match offer(analysis, &path, &mut entry, mtime, &budget) {
            Ok(read) => {
                extra += read;
                walked.saw(&path, true);
            }
            Err(err) => {
                walked.saw(&path, false);
                analysis.note(format!(
                    "{name}: cannot read {path} ({err}); the report covers what came before"
                ));
                walked.stopped = Some(format!("{path} cannot be read ({err})"));
                break;
            }
        }
        // Checked again before the archive skips the rest of this entry, which it must
        // decompress to do so: one endless entry must not be read to its end.
        budget.used = uncompressed.get() + extra;
        if let Some(reason) = over_limits(&budget, compressed.get()) {
            stop_archive(&mut walked, analysis, name, reason);
            break;
        }
    }
    Ok(walked)
}

/// Why the walk must stop, if it must: too many bytes or entries, or a compression ratio no log
/// bundle has (an archive bomb).
fn over_limits(budget: &Budget<'_>, compressed: u64) -> Option<String> {
    let limits = budget.limits;
    if budget.entries > limits.max_entries {
        return Some(format!(
            "stopped after {} entries (the limit)",
            limits.max_entries
        ));
    }
    bytes_over_limits(limits, budget.used, compressed)
}

/// Why `used` uncompressed bytes out of `compressed` are too many, if they are.
fn bytes_over_limits(limits: &Limits, used: u64, compressed: u64) -> Option<String> {
    if used >= limits.max_total_bytes {
        return Some(format!(
            "stopped after {} MiB of uncompressed data (the limit)",
            used / (1024 * 1024)
        ));
    }
    let ratio_floor = limits.ratio_applies_after;
    if used > ratio_floor && used / compressed.max(1) > limits.max_ratio {
        return Some(format!(
            "stopped: {} MiB came out of {} KiB, more than {}:1 (an archive bomb?)",
            used / (1024 * 1024),
            compressed / 1024,
            limits.max_ratio
        ));
    }
    None
}

/// Ends an archive's walk early: the report says why, and that it covers what came before.
fn stop_archive(walked: &mut Walked, analysis: &mut Analysis, name: &str, why: String) {
    analysis.note(format!("{name}: {why}; the report covers what came before"));
    walked.stopped = Some(why);
}

/// Reads an unpacked bundle directory. Links are not followed; nothing outside `dir` is read.
pub(crate) fn read_dir(dir: &Path, limits: &Limits, analysis: &mut Analysis) -> Result<Walked> {
    let meta = fs::metadata(dir).map_err(|err| Error::io("cannot read", dir, err))?;
    if !meta.is_dir() {
        return Err(Error::UnreadableBundle {
            file: dir.display().to_string(),
            message: "not a readable log bundle: not a directory".into(),
        });
    }
    let mut walked = Walked::default();
    let mut budget = Budget {
        limits,
        used: 0,
        entries: 0,
        live: None,
    };
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
    {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                analysis.note(format!("{}: {err}", dir.display()));
                continue;
            }
        };
        budget.entries += 1;
        if let Some(reason) = over_limits(&budget, u64::MAX) {
            analysis.note(format!("{}: {reason}", dir.display()));
            walked.stopped = Some(reason);
            break;
        }
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let raw = relative.to_string_lossy().into_owned();
        if entry.path_is_symlink() {
            if let Ok(Some(path)) = bundle_path(&raw) {
                walked.saw(&path, false);
            }
            analysis.note(format!("skipped {raw}: a symbolic link"));
            continue;
        }
        if !entry.file_type().is_file() {
            // A FIFO would block the read, a device never end: said, not read.
            if !entry.file_type().is_dir() && bundle_path(&raw).is_ok_and(|p| p.is_some()) {
                analysis.note(format!(
                    "skipped {raw}: not a regular file (a FIFO, socket or device)"
                ));
            }
            continue;
        }
        let Ok(Some(path)) = bundle_path(&raw) else {
            continue;
        };
        let mtime = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok());
        let mut file = match fs::File::open(entry.path()) {
            Ok(file) => file,
            Err(err) => {
                analysis.note(format!("{raw}: cannot be read ({err})"));
                walked
                    .stopped
                    .get_or_insert(format!("{raw} cannot be read ({err})"));
                continue;
            }
        };
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        match offer(analysis, &path, &mut file, mtime, &budget) {
            Ok(read) => {
                budget.used += size.min(limits.max_file_bytes) + read;
                walked.saw(&path, true);
            }
            Err(err) => {
                walked.saw(&path, false);
                analysis.note(format!("{raw}: cannot be read ({err})"));
                walked
                    .stopped
                    .get_or_insert(format!("{raw} cannot be read ({err})"));
            }
        }
    }
    Ok(walked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lose_the_top_directory_and_never_escape() {
        assert_eq!(
            bundle_path("log-bundle-1/bootstrap/services/a.json").unwrap(),
            Some("bootstrap/services/a.json".into())
        );
        assert_eq!(
            bundle_path("./artifacts-1/bootstrap/x.log").unwrap(),
            Some("bootstrap/x.log".into())
        );
        assert_eq!(
            bundle_path("log-bundle-1/log-bundle-bootstrap/bootstrap/services/a.json").unwrap(),
            Some("log-bundle-bootstrap/bootstrap/services/a.json".into())
        );
        assert_eq!(bundle_path("log-bundle-1/").unwrap(), None);
        assert!(bundle_path("log-bundle-1/../../etc/passwd").is_err());
        assert!(bundle_path("/etc/passwd").is_err());
    }
}

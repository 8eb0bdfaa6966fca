//! Files, units and drop-ins matched by path or name and compared field by field, with a
//! unified diff of their decoded text.

use super::{ChangeKind, DiffItem, Files, Terms};
use crate::error::Result;
use crate::ignition::decode::ResourceTerms;
use crate::ignition::kind::{classify, FileKind};
use crate::ignition::redact::Redact;
use crate::ignition::{DecodedFile, DecodedUnit};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The largest text (each side) given a line diff: the diff's time grows with the product of
/// the lines and the differences, so two large unrelated texts (a config of a few KiB can
/// expand to them) would take hours.
const MAX_LINE_DIFF_LINES: usize = 20_000;
/// The same, in bytes.
const MAX_LINE_DIFF_BYTES: usize = 4 << 20;

/// The lines of an added file's text that the diff shows; the rest are counted.
const ADDED_LINES_SHOWN: usize = 20;

/// Collects the differences.
pub(super) struct Differ<'a> {
    pub(super) old: &'a str,
    pub(super) new: &'a str,
    pub(super) items: Vec<DiffItem>,
}

/// How the diff names an entry Ignition keys by `name`, entry `index` of list `list`
/// (`$.passwd.users`): by the name, or, when it has none (Go reads it as empty), by its place.
pub(super) fn entry_name(name: &str, list: &str, index: usize) -> String {
    if name.is_empty() {
        format!("(no name) at {list}[{index}]")
    } else {
        name.to_string()
    }
}

pub(super) fn opt<T: fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "unset".to_string(), |v| v.to_string())
}

fn mode_text(mode: Option<u32>) -> String {
    mode.map_or_else(|| "unset".to_string(), |m| format!("{m:04o}"))
}

fn change<T: PartialEq + fmt::Display>(
    details: &mut Vec<String>,
    what: &str,
    a: Option<T>,
    b: Option<T>,
) {
    if a != b {
        details.push(format!("{what} {} -> {}", opt(a), opt(b)));
    }
}

/// The mode the files stage gives: a file written from `contents` gets 0644 when it sets none.
fn effective_mode(f: &DecodedFile, terms: &Terms) -> Option<u32> {
    f.mode
        .or_else(|| terms.contains_key("contents").then_some(0o644))
}

/// A file's owner or group as the node has it: id 0 is Ignition's default (root), as unset.
fn owner(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| *v != "0")
}

fn file_kind(f: &DecodedFile) -> FileKind {
    let first = f.contents.as_ref().or(f.append.first());
    if f.contents.is_none() && !f.remote_sources.is_empty() {
        FileKind::Remote
    } else {
        classify(&f.path, Some(first.map(Vec::as_slice).unwrap_or_default()))
    }
}

fn describe_file(f: &DecodedFile) -> String {
    let size =
        f.contents.as_ref().map_or(0, Vec::len) + f.append.iter().map(Vec::len).sum::<usize>();
    format!("mode {}, {size} bytes, {}", mode_text(f.mode), file_kind(f))
}
impl Differ<'_> {
    pub(super) fn push(
        &mut self,
        change: ChangeKind,
        what: &'static str,
        name: &str,
        details: Vec<String>,
        text_diff: Option<String>,
    ) {
        self.items.push(DiffItem {
            change,
            what,
            name: name.to_string(),
            details,
            text_diff,
        });
    }

    /// A unified diff of two texts with their secrets hidden (`ignition::redact`) and PEM
    /// blocks summarized, or a line saying why there is none.
    pub(super) fn text(
        &self,
        label: &str,
        kind: FileKind,
        a: &[u8],
        b: &[u8],
        details: &mut Vec<String>,
    ) -> Option<String> {
        if a == b {
            return None;
        }
        // A pull secret that is no JSON cannot be shown entry by entry: its digests only.
        let unreadable = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).is_err();
        if kind == FileKind::PullSecret && (unreadable(a) || unreadable(b)) {
            details.push(format!(
                "{label} changed (pull secret {} -> {})",
                Redact::WithDigest.shown("redacted", a),
                Redact::WithDigest.shown("redacted", b)
            ));
            return None;
        }
        let (Ok(a_text), Ok(b_text)) = (std::str::from_utf8(a), std::str::from_utf8(b)) else {
            details.push(format!(
                "{label} changed (binary, {} -> {} bytes)",
                a.len(),
                b.len()
            ));
            return None;
        };
        let lines = |text: &str| text.bytes().filter(|b| *b == b'\n').count();
        let too_large =
            |text: &str| text.len() > MAX_LINE_DIFF_BYTES || lines(text) > MAX_LINE_DIFF_LINES;
        if too_large(a_text) || too_large(b_text) {
            details.push(format!(
                "{label} changed ({} -> {} lines: too large for a line diff)",
                lines(a_text),
                lines(b_text)
            ));
            return None;
        }
        let (a_view, b_view) = (
            Redact::WithDigest.text(a_text),
            Redact::WithDigest.text(b_text),
        );
        if a_view == b_view {
            details.push(format!(
                "{label} changed (inside encoded data or hidden secrets only)"
            ));
            return None;
        }
        details.push(format!("{label} changed"));
        let diff = similar::TextDiff::from_lines(&a_view, &b_view)
            .unified_diff()
            .context_radius(3)
            .header(
                &format!("{} {label}", self.old),
                &format!("{} {label}", self.new),
            )
            .to_string();
        Some(diff)
    }

    /// An added file's text as the diff's added lines, its secrets hidden as in [`Self::text`]
    /// (the whole text read, so that a secret known by what comes after it stays hidden), the
    /// first [`ADDED_LINES_SHOWN`] lines shown and the others counted; or a line saying why
    /// there is none.
    fn added_text(
        &self,
        label: &str,
        kind: FileKind,
        bytes: &[u8],
        details: &mut Vec<String>,
    ) -> Option<String> {
        if bytes.is_empty() {
            return None;
        }
        if kind == FileKind::PullSecret
            && serde_json::from_slice::<serde_json::Value>(bytes).is_err()
        {
            details.push(format!(
                "{label}: pull secret {}",
                Redact::WithDigest.shown("redacted", bytes)
            ));
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let lines = text.bytes().filter(|b| *b == b'\n').count();
        if text.len() > MAX_LINE_DIFF_BYTES || lines > MAX_LINE_DIFF_LINES {
            details.push(format!("{label}: {lines} lines, too large to show"));
            return None;
        }
        let view = Redact::WithDigest.text(text);
        let mut shown = String::new();
        let mut total = 0;
        for line in view.lines() {
            if total < ADDED_LINES_SHOWN {
                shown.push_str(&format!("+{line}\n"));
            }
            total += 1;
        }
        if total > ADDED_LINES_SHOWN {
            let more = total - ADDED_LINES_SHOWN;
            shown.push_str(&format!(
                "... and {}\n",
                crate::report::counted(more, "more line")
            ));
        }
        Some(shown)
    }

    /// Files matched by path, each side's entry decoded only when its path is reached.
    pub(super) fn files(&mut self, a: &Files<'_>, b: &Files<'_>) -> Result<()> {
        let paths: BTreeSet<&str> = a.paths().chain(b.paths()).collect();
        for path in paths {
            let (a_entry, b_entry) = (a.get(path)?, b.get(path)?);
            match (a_entry.as_ref(), b_entry.as_ref()) {
                (None, Some((f, _))) => {
                    let mut details = vec![describe_file(f)];
                    let contents = f.contents.iter().chain(&f.append).flatten();
                    let bytes: Vec<u8> = contents.copied().collect();
                    let text = self.added_text(path, file_kind(f), &bytes, &mut details);
                    self.push(ChangeKind::Added, "file", path, details, text);
                }
                (Some((f, _)), None) => self.push(
                    ChangeKind::Removed,
                    "file",
                    path,
                    vec![describe_file(f)],
                    None,
                ),
                (Some((x, x_terms)), Some((y, y_terms))) => {
                    let mut details = Vec::new();
                    let mode = |f: &DecodedFile, terms: &Terms| {
                        effective_mode(f, terms).map(|m| format!("{m:04o}"))
                    };
                    change(&mut details, "mode", mode(x, x_terms), mode(y, y_terms));
                    change(
                        &mut details,
                        "overwrite",
                        Some(x.overwrite.unwrap_or(false)),
                        Some(y.overwrite.unwrap_or(false)),
                    );
                    change(&mut details, "owner", owner(&x.user), owner(&y.user));
                    change(&mut details, "group", owner(&x.group), owner(&y.group));
                    terms_changes(x_terms, y_terms, &mut details);
                    if x.remote_sources != y.remote_sources {
                        let shown = |sources: &[String]| -> Vec<String> {
                            sources
                                .iter()
                                .map(|s| Redact::WithDigest.inline(s))
                                .collect()
                        };
                        details.push(format!(
                            "remote source {:?} -> {:?}",
                            shown(&x.remote_sources),
                            shown(&y.remote_sources)
                        ));
                    }
                    let kind = file_kind(x).max(file_kind(y));
                    let mut diffs = Vec::new();
                    if x.contents.is_some() != y.contents.is_some() {
                        details.push(format!(
                            "contents {} -> {}",
                            presence(&x.contents),
                            presence(&y.contents)
                        ));
                    }
                    let empty = Vec::new();
                    let (xc, yc) = (
                        x.contents.as_ref().unwrap_or(&empty),
                        y.contents.as_ref().unwrap_or(&empty),
                    );
                    diffs.extend(self.text(path, kind, xc, yc, &mut details));
                    let (xa, ya) = (x.append.concat(), y.append.concat());
                    if x.append.len() != y.append.len() {
                        details.push(format!(
                            "append fragments {} -> {}",
                            x.append.len(),
                            y.append.len()
                        ));
                    }
                    diffs.extend(self.text(
                        &format!("{path} (appended)"),
                        kind,
                        &xa,
                        &ya,
                        &mut details,
                    ));
                    if !details.is_empty() {
                        let text = (!diffs.is_empty()).then(|| diffs.concat());
                        self.push(ChangeKind::Changed, "file", path, details, text);
                    }
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    pub(super) fn units(&mut self, a: &[DecodedUnit], b: &[DecodedUnit]) {
        let a: BTreeMap<&str, &DecodedUnit> = a.iter().map(|u| (u.name.as_str(), u)).collect();
        let b: BTreeMap<&str, &DecodedUnit> = b.iter().map(|u| (u.name.as_str(), u)).collect();
        let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        for name in names {
            let state = |u: &DecodedUnit| {
                format!(
                    "enabled {}, mask {}, {} drop-in(s)",
                    opt(u.enabled),
                    opt(u.mask),
                    u.dropins.len()
                )
            };
            match (a.get(name), b.get(name)) {
                (None, Some(u)) => self.push(ChangeKind::Added, "unit", name, vec![state(u)], None),
                (Some(u), None) => {
                    self.push(ChangeKind::Removed, "unit", name, vec![state(u)], None)
                }
                (Some(x), Some(y)) => {
                    let mut details = Vec::new();
                    change(&mut details, "enabled", x.enabled, y.enabled);
                    change(
                        &mut details,
                        "mask",
                        Some(x.mask.unwrap_or(false)),
                        Some(y.mask.unwrap_or(false)),
                    );
                    if x.contents.is_some() != y.contents.is_some() {
                        details.push(format!(
                            "contents {} -> {}",
                            presence(&x.contents),
                            presence(&y.contents)
                        ));
                    }
                    let (xc, yc) = (
                        x.contents.as_deref().unwrap_or_default(),
                        y.contents.as_deref().unwrap_or_default(),
                    );
                    let text = self.text(
                        name,
                        FileKind::UnitFile,
                        xc.as_bytes(),
                        yc.as_bytes(),
                        &mut details,
                    );
                    if !details.is_empty() {
                        self.push(ChangeKind::Changed, "unit", name, details, text);
                    }
                    self.dropins(x, y);
                }
                (None, None) => {}
            }
        }
    }

    fn dropins(&mut self, x: &DecodedUnit, y: &DecodedUnit) {
        let a: BTreeMap<&str, &str> = x
            .dropins
            .iter()
            .map(|d| (d.name.as_str(), d.contents.as_deref().unwrap_or_default()))
            .collect();
        let b: BTreeMap<&str, &str> = y
            .dropins
            .iter()
            .map(|d| (d.name.as_str(), d.contents.as_deref().unwrap_or_default()))
            .collect();
        let names: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
        for name in names {
            let label = format!("{}/{name}", x.name);
            match (a.get(name), b.get(name)) {
                (None, Some(_)) => self.push(ChangeKind::Added, "drop-in", &label, vec![], None),
                (Some(_), None) => self.push(ChangeKind::Removed, "drop-in", &label, vec![], None),
                (Some(p), Some(q)) if p != q => {
                    let mut details = Vec::new();
                    let text = self.text(
                        &label,
                        FileKind::DropIn,
                        p.as_bytes(),
                        q.as_bytes(),
                        &mut details,
                    );
                    self.push(ChangeKind::Changed, "drop-in", &label, details, text);
                }
                _ => {}
            }
        }
    }
}

/// What differs in how the node fetches and checks each resource: its hash, its HTTP headers
/// (values as digests: they may be credentials), a remote source's compression.
fn terms_changes(a: &Terms, b: &Terms, details: &mut Vec<String>) {
    let none = ResourceTerms::default();
    let places: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for at in places {
        let (x, y) = (a.get(at).unwrap_or(&none), b.get(at).unwrap_or(&none));
        change(
            details,
            &format!("{at} hash"),
            x.hash.as_deref(),
            y.hash.as_deref(),
        );
        change(
            details,
            &format!("{at} compression"),
            x.compression.as_deref(),
            y.compression.as_deref(),
        );
        if x.headers != y.headers {
            let shown = |headers: &[(String, String)]| -> String {
                let each: Vec<String> = headers
                    .iter()
                    .map(|(name, value)| {
                        format!(
                            "{name}: {}",
                            Redact::WithDigest.shown("redacted", value.as_bytes())
                        )
                    })
                    .collect();
                format!("[{}]", each.join(", "))
            };
            details.push(format!(
                "{at} HTTP headers {} -> {}",
                shown(&x.headers),
                shown(&y.headers)
            ));
        }
    }
}

fn presence<T>(value: &Option<T>) -> &'static str {
    if value.is_some() {
        "set"
    } else {
        "unset"
    }
}

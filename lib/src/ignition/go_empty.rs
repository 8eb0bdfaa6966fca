//! What Ignition's Go types read as empty where `ignition-config`'s types want a value: a Go
//! `string` field absent or `null` is `""`, a `null` item of a `[]string` is `""`, a `null`
//! entry of a list of structs is an entry with nothing set. [`with_empty_fields`] writes those
//! empty values into a config, so the schema check takes what `ignition-validate` takes and
//! leaves the refusing to the rules, which then say what it says, where it says it.
//!
//! Not here: what Go refuses before any rule (a `null` `ignition.version`), and fields
//! `ignition-config` already reads as optional.

use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;

/// How Go reads what is missing at a place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Empty {
    /// A Go `string`: absent or `null`, it is `""`.
    String,
    /// The items of a Go `[]string`: a `null` one is `""`.
    Items,
    /// The entries of a Go slice of structs: a `null` one is an entry with nothing set.
    Entries,
}

/// Every spec version.
const ALL: RangeInclusive<u32> = 0..=u32::MAX;

/// Where Go's types read an empty value that `ignition-config`'s refuse, and `ignition-validate`
/// takes it or refuses it by a rule: the specs (3.`minor`) where `ignition-config` wants a
/// value there, the place (`[]` is each entry of a list) and what is read. Each was checked
/// against `ignition-validate` (specs 3.0 to 3.4) with `null` and absent.
///
/// Not here, so the schema check refuses them, at the place `ignition-validate` names (a
/// `null`'s first byte): a path, a unit's or drop-in's name, an HTTP header's name, a RAID
/// device, before 3.3 a RAID level or device list, a 3.2 custom Clevis pin or config, a 3.0
/// CA's source, and a `null` entry of any list not below. Go reads them as empty too, but
/// `ignition-validate` refuses the empty one, and the other commands, which check the schema
/// only and name or write entries by them, must not take them. (A disk's or filesystem's
/// device, refused empty too, is here: nothing else reads it, and the rules say
/// `ignition-validate`'s words.)
const PLACES: &[(RangeInclusive<u32>, &str, Empty)] = &[
    (ALL, "storage.disks[].device", Empty::String),
    (ALL, "storage.filesystems[].device", Empty::String),
    (ALL, "storage.filesystems[].options", Empty::Items),
    (
        1..=u32::MAX,
        "storage.filesystems[].mountOptions",
        Empty::Items,
    ),
    (ALL, "storage.raid[].name", Empty::String),
    (ALL, "storage.raid[].options", Empty::Items),
    (2..=u32::MAX, "storage.luks[].name", Empty::String),
    (2..=u32::MAX, "storage.luks[].options", Empty::Items),
    (4..=u32::MAX, "storage.luks[].openOptions", Empty::Items),
    (0..=2, "storage.links[].target", Empty::String),
    (ALL, "storage.files[].append", Empty::Entries),
    (ALL, "passwd.users", Empty::Entries),
    (ALL, "passwd.users[].name", Empty::String),
    (ALL, "passwd.users[].groups", Empty::Items),
    (ALL, "passwd.users[].sshAuthorizedKeys", Empty::Items),
    (ALL, "passwd.groups", Empty::Entries),
    (ALL, "passwd.groups[].name", Empty::String),
    (3..=u32::MAX, "kernelArguments.shouldExist", Empty::Items),
    (3..=u32::MAX, "kernelArguments.shouldNotExist", Empty::Items),
    (4..=u32::MAX, "ignition.proxy.noProxy", Empty::Items),
    // From 3.1 a merged config needs a source.
    (0..=0, "ignition.config.merge", Empty::Entries),
];

/// The 3.`minor` of a spec version (`3.4.0-experimental` is 3.4); `None` for any other.
fn minor(version: &str) -> Option<u32> {
    let rest = version.strip_prefix("3.")?;
    rest.split('.').next()?.parse().ok()
}

/// An object's members, each as written.
type Object<'b> = HashMap<&'b str, &'b RawValue>;

/// The members of object `raw`; none when it is not an object.
fn members_of(raw: &RawValue) -> Option<Object<'_>> {
    serde_json::from_str(raw.get()).ok()
}

/// The entries of list `raw`, each as written; none when it is not a list.
fn entries(raw: &RawValue) -> Vec<&RawValue> {
    serde_json::from_str(raw.get()).unwrap_or_default()
}

/// Where text went into a config: each place (an offset into the config) and its length.
pub(crate) type Insertions = Vec<(usize, usize)>;

/// Members put into a config: each place (an offset into it) and the text.
type Members = Vec<(usize, String)>;

/// `null`s read as empty: each place (an offset into the config) and what replaces it there.
type Replaced = Vec<(usize, &'static [u8; 4])>;

/// What one pass of [`with_empty_fields`] writes into a config: members put in, and `null`s
/// read as empty (each replaced in place, padded with blanks, so nothing moves).
struct Filling<'b> {
    bytes: &'b [u8],
    insertions: Members,
    replaced: Replaced,
}

impl Filling<'_> {
    /// The offset in the config of `raw`, which borrows from it.
    fn offset(&self, raw: &RawValue) -> usize {
        raw.get().as_ptr() as usize - self.bytes.as_ptr() as usize
    }

    /// What Go reads as empty below the object whose `{` is at offset `at`, of `members`, at
    /// each of `places` (a path, dot-separated with `[]` for each entry of a list, and its
    /// kind), each object read once for all.
    fn fill(&mut self, at: usize, members: &Object<'_>, places: &[(&str, Empty)]) {
        // The places further down, by the member they go through (and whether into its entries).
        let mut below: BTreeMap<(&str, bool), Vec<(&str, Empty)>> = BTreeMap::new();
        for &(path, empty) in places {
            match path.split_once('.') {
                Some((step, rest)) => {
                    let (key, each) = match step.strip_suffix("[]") {
                        Some(key) => (key, true),
                        None => (step, false),
                    };
                    below.entry((key, each)).or_default().push((rest, empty));
                }
                None => {
                    let value = members.get(path).copied();
                    self.last(at, path, value, empty, members.is_empty());
                }
            }
        }
        for ((key, each), places) in below {
            let Some(value) = members.get(key).copied() else {
                continue;
            };
            let objects = if each { entries(value) } else { vec![value] };
            for object in objects {
                if let Some(members) = members_of(object) {
                    self.fill(self.offset(object), &members, &places);
                }
            }
        }
    }

    /// What Go reads as `empty` for member `key` of the object whose `{` is at offset `at`,
    /// which is `value`.
    fn last(&mut self, at: usize, key: &str, value: Option<&RawValue>, empty: Empty, alone: bool) {
        let (literal, padded): (&str, &'static [u8; 4]) = match empty {
            Empty::String => ("\"\"", b"\"\"  "),
            Empty::Items | Empty::Entries => {
                let padded = if empty == Empty::Items {
                    b"\"\"  "
                } else {
                    b"{}  "
                };
                for item in value.map(entries).unwrap_or_default() {
                    if item.get() == "null" {
                        self.replaced.push((self.offset(item), padded));
                    }
                }
                return;
            }
        };
        match value {
            Some(v) if v.get() == "null" => self.replaced.push((self.offset(v), padded)),
            Some(_) => {}
            None => {
                let comma = if alone { "" } else { "," };
                // Just inside the object's `{`.
                self.insertions
                    .push((at + 1, format!("\"{key}\":{literal}{comma}")));
            }
        }
    }
}

/// What Go reads as empty in config `bytes`, whose top-level members are `root`, at the
/// places of [`PLACES`] for spec 3.`minor` whose kind `pass` takes: where members go in, and
/// where `null`s are replaced.
fn read_empty(
    bytes: &[u8],
    root: &Object<'_>,
    minor: u32,
    pass: fn(Empty) -> bool,
) -> (Members, Replaced) {
    let mut filling = Filling {
        bytes,
        insertions: Vec::new(),
        replaced: Vec::new(),
    };
    let places: Vec<(&str, Empty)> = PLACES
        .iter()
        .filter(|(specs, _, empty)| specs.contains(&minor) && pass(*empty))
        .map(|(_, path, empty)| (*path, *empty))
        .collect();
    let brace = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    filling.fill(brace, root, &places);
    (filling.insertions, filling.replaced)
}

/// The spec 3.`minor` of a config whose top-level members are `root`, when it says.
fn spec_minor(root: &Object<'_>) -> Option<u32> {
    let ignition = members_of(root.get("ignition")?)?;
    let version: String = serde_json::from_str(ignition.get("version")?.get()).ok()?;
    minor(&version)
}

/// Whether `bytes` hold a JSON `null` as a value (after `:`, `[` or `,`). A `null` inside a
/// string (a script's `/dev/null`) may count too, which only costs a read; one that is a value
/// always counts.
fn has_null_value(bytes: &[u8]) -> bool {
    // The last byte that is not blank.
    let mut last = 0u8;
    for (at, &byte) in bytes.iter().enumerate() {
        if byte == b'n' && matches!(last, b':' | b'[' | b',') && bytes[at..].starts_with(b"null") {
            return true;
        }
        if !byte.is_ascii_whitespace() {
            last = byte;
        }
    }
    false
}

/// `bytes` with what Go reads as empty written in (see [`PLACES`]), and where text went in
/// (offset into `bytes`, length); `None` when nothing is missing or the config cannot be read
/// that far (the check of the config as it is then says what is wrong). Each object is read
/// once (twice when a `null` entry is read first), so a large config costs what reading it
/// does.
pub(crate) fn with_empty_fields(bytes: &[u8]) -> Option<(Vec<u8>, Insertions)> {
    let root: Object<'_> = serde_json::from_slice(bytes).ok()?;
    let minor = spec_minor(&root)?;
    // Null entries first, in place: their fields are then filled in as any entry's. (The file
    // entries of a config without a `null` are not read.)
    let null_entries = match has_null_value(bytes) {
        true => read_empty(bytes, &root, minor, |e| e == Empty::Entries).1,
        false => Vec::new(),
    };
    let others = |e| e != Empty::Entries;
    let (mut nulled, (mut insertions, replaced)) = if null_entries.is_empty() {
        let found = read_empty(bytes, &root, minor, others);
        if found.0.is_empty() && found.1.is_empty() {
            return None;
        }
        (bytes.to_vec(), found)
    } else {
        let mut nulled = bytes.to_vec();
        for (at, padded) in &null_entries {
            nulled[*at..*at + 4].copy_from_slice(*padded);
        }
        let root: Object<'_> = serde_json::from_slice(&nulled).ok()?;
        let found = read_empty(&nulled, &root, minor, others);
        // It borrows `nulled`, which moves on.
        drop(root);
        (nulled, found)
    };
    for (at, padded) in replaced {
        nulled[at..at + 4].copy_from_slice(padded);
    }
    insertions.sort();
    let mut text = Vec::with_capacity(bytes.len() + insertions.len() * 12);
    let mut copied = 0;
    for (at, inserted) in &insertions {
        text.extend_from_slice(&nulled[copied..*at]);
        text.extend_from_slice(inserted.as_bytes());
        copied = *at;
    }
    text.extend_from_slice(&nulled[copied..]);
    Some((
        text,
        insertions
            .into_iter()
            .map(|(at, inserted)| (at, inserted.len()))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(text: &str) -> String {
        String::from_utf8(with_empty_fields(text.as_bytes()).unwrap().0).unwrap()
    }

    #[test]
    fn each_place_is_filled_in_its_specs_only() {
        let links = r#"{"ignition":{"version":"3.2.0"},"storage":{"links":[{"path":"/l"}],"raid":[{"options":[null]}]}}"#;
        assert_eq!(
            filled(links),
            r#"{"ignition":{"version":"3.2.0"},"storage":{"links":[{"target":"","path":"/l"}],"raid":[{"name":"","options":[""  ]}]}}"#
        );
        let links = links.replace("3.2.0", "3.3.0");
        assert_eq!(
            filled(&links),
            r#"{"ignition":{"version":"3.3.0"},"storage":{"links":[{"path":"/l"}],"raid":[{"name":"","options":[""  ]}]}}"#
        );
        // The experimental name is its spec's.
        let proxy = r#"{"ignition":{"version":"3.4.0-experimental","proxy":{"noProxy":[null]}}}"#;
        assert!(filled(proxy).contains(r#""noProxy":[""  ]"#));
        assert!(
            with_empty_fields(proxy.replace("3.4.0-experimental", "3.3.0").as_bytes()).is_none()
        );
    }

    #[test]
    fn null_entries_are_entries_with_nothing_set() {
        let users = r#"{"ignition":{"version":"3.0.0"},"passwd":{"users":[null,{"name":"a"}]}}"#;
        assert_eq!(
            filled(users),
            r#"{"ignition":{"version":"3.0.0"},"passwd":{"users":[{"name":""}  ,{"name":"a"}]}}"#
        );
    }

    /// A `null` value is found however it is spaced; one inside a string need not be.
    #[test]
    fn a_null_value_is_told_from_a_null_in_a_string() {
        for text in [r#"{"a": null}"#, "[\n  null]", r#"[1 ,null]"#] {
            assert!(has_null_value(text.as_bytes()), "{text}");
        }
        for text in [
            r#"{"a": "/dev/null"}"#,
            r#"{"nullable": 1}"#,
            r#"{"a":"x null"}"#,
        ] {
            assert!(!has_null_value(text.as_bytes()), "{text}");
        }
    }
}

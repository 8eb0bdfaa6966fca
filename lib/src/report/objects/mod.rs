//! The objects view of a config: what operators and the node actually read, with everything that
//! legitimately differs between two runs taken out. Each file keeps its path and mode; a
//! structured file (YAML, JSON, TOML, a kubeconfig) also keeps its parsed objects, with keys,
//! certificates, passwords, pull secrets and per-run IDs (cluster ID, infra ID) replaced by
//! placeholders and Go's empty values (null, false, 0, "", {}, []) dropped, since a Go reader
//! cannot tell them from an absent field and Go's serializers differ in leaving them out; a
//! TOML file (registries.conf), written line by line from a template, keeps them
//! (`blocked = false` is a line its writer chose to write). A unit keeps its enablement and its dependency
//! directives, and so does a unit (or drop-in) written as a file under `/etc/systemd/system`.
//! Two views compare equal exactly when the nodes they describe should behave the same;
//! `bootgen diff --objects` and the installer-as-oracle tests compare them.
//!
//! Certificates and keys, wherever they are (PEM files, kubeconfigs, Secrets, ConfigMaps, the
//! config's own CAs), are described by what a client checks (`pem.rs`): subject, issuer, SANs,
//! usages, basic constraints, lifetime, key type and size.

mod compare;
mod normalize;
mod pem;
mod users;

pub use compare::{diff_objects, ObjectChange, ObjectDiff};
pub use pem::{BasicConstraintsFacts, CertificateFacts, PemFacts};
pub use users::UserObject;

use crate::error::Result;
use crate::ignition::unit_text::parse_unit;
use crate::ignition::IgnitionDoc;
use normalize::Normalizer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// One file of the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileObject {
    /// The mode, in octal (`0644`); absent when the entry sets none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// True when the entry appends to the file instead of writing it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub append: bool,
    /// The parsed, normalized objects of a structured file (a list for a multi-document YAML
    /// file); absent for scripts, certificates and other text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// For a script: the container image pull specs it names (the release image, for one),
    /// which is where a mirror rewrite must reach.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub images: BTreeSet<String>,
    /// For a unit or drop-in written as a file under `/etc/systemd/system`: its dependency
    /// directives, as a unit's (systemd reads the file as it would the unit).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub directives: BTreeMap<String, Vec<String>>,
    /// The certificates and keys the file holds, by where: `file` for its own text, else the
    /// field (`users[admin].user.client-certificate-data`, `[Secret/ns/name].data.tls.crt`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pem: BTreeMap<String, Vec<PemFacts>>,
    /// Where the node fetches the contents and each appended fragment from, when not from the
    /// config itself: what decides the file, as its objects do for an inline one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fetched: Vec<Fetched>,
}

/// A resource the node fetches from elsewhere: its URL (credentials and signatures hidden), the
/// hash it must match, and the names of the HTTP headers sent with it (their values may be
/// credentials). An inline `data:` URL is shown by its length and a digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fetched {
    /// The URL.
    pub source: String,
    /// `verification.hash` (`sha512-...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// `httpHeaders[].name`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// `compression` of a remote source (`gzip`): the node decompresses what it fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
}

impl Fetched {
    /// The resource of an Ignition resource object (`source`, `verification`, `httpHeaders`);
    /// `None` for one without a source. With `inline`, a `data:` URL is described too (a merged
    /// config); otherwise it is the config's own content, which the view shows parsed.
    fn of(resource: &Value, inline: bool) -> Option<Fetched> {
        let source = crate::ignition::decode::source_of(resource)?;
        let is_data = source.starts_with("data:");
        if is_data && !inline {
            return None;
        }
        let shown = if is_data {
            // Long enough that two inline configs differ in the view when they differ at all.
            let digest = crate::ignition::hash::short_sha256(source.as_bytes());
            format!("data: ({} bytes, sha256:{digest})", source.len())
        } else {
            crate::ignition::redact::Redact::Marker.inline(source)
        };
        let terms = crate::ignition::decode::resource_terms(resource);
        Some(Fetched {
            source: shown,
            hash: terms.hash,
            headers: terms.headers.into_iter().map(|(name, _)| name).collect(),
            compression: terms.compression,
        })
    }
}

/// One unit or drop-in of the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UnitObject {
    /// `enabled` as the config sets it (absent: left to presets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// True when masked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mask: bool,
    /// The dependency and ordering directives (`Requires`, `Wants`, `After`, `Before`,
    /// `Condition*`, `WantedBy`, ...), each as `Section.Key` with its sorted values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub directives: BTreeMap<String, Vec<String>>,
    /// Drop-ins by name, with their directives.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dropins: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// The objects view of a whole config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ObjectView {
    /// Files by path.
    pub files: BTreeMap<String, FileObject>,
    /// Units by name.
    pub units: BTreeMap<String, UnitObject>,
    /// Users by name: the number of SSH keys each may log in with, and its other fields.
    pub users: BTreeMap<String, UserObject>,
    /// The config's own certificate authorities (`ignition.security.tls.certificateAuthorities`,
    /// by index) given inline.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub authorities: BTreeMap<String, Vec<PemFacts>>,
    /// What the config has the node fetch besides files: the configs it merges or is replaced
    /// by (`config.merge[0]`, `config.replace`, inline ones too) and the certificate
    /// authorities given by URL (`tls.certificateAuthorities[0]`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fetched: BTreeMap<String, Fetched>,
}

impl ObjectView {
    /// Whether the view holds any certificate or key facts: a view made before the view had
    /// them (an older recording) holds none.
    pub fn has_pem_facts(&self) -> bool {
        !self.authorities.is_empty() || self.files.values().any(|f| !f.pem.is_empty())
    }

    /// Whether the view says what the node fetches from elsewhere: a view made before the view
    /// had it (an older recording) never does.
    pub fn has_fetched(&self) -> bool {
        !self.fetched.is_empty() || self.files.values().any(|f| !f.fetched.is_empty())
    }

    /// The view without what the node fetches from elsewhere, to compare with a view made
    /// before the view had it.
    pub fn without_fetched(mut self) -> ObjectView {
        self.fetched.clear();
        for file in self.files.values_mut() {
            file.fetched.clear();
        }
        self
    }

    /// Whether the view holds an empty value (`false`, `""`) of a TOML file: a view made before
    /// the view kept them (an older recording) holds none.
    pub fn has_toml_empty_values(&self) -> bool {
        self.files.iter().any(|(path, file)| {
            normalize::keeps_empty_values(path)
                && file.object.as_ref().is_some_and(|object| {
                    let mut dropped = object.clone();
                    normalize::drop_go_empty(&mut dropped);
                    dropped != *object
                })
        })
    }

    /// The view with the empty values of TOML files dropped, as every other file's are, to
    /// compare with a view made before the view kept them.
    pub fn without_toml_empty_values(mut self) -> ObjectView {
        for (path, file) in &mut self.files {
            if normalize::keeps_empty_values(path) {
                if let Some(object) = &mut file.object {
                    normalize::drop_go_empty(object);
                }
            }
        }
        self
    }

    /// The view without certificate and key facts, to compare with a view made before the view
    /// had them.
    pub fn without_pem_facts(mut self) -> ObjectView {
        self.authorities.clear();
        for file in self.files.values_mut() {
            file.pem.clear();
        }
        self
    }
}

/// Unit directives that shape the boot: which units start, in what order, and when.
const GRAPH_KEYS: &[&str] = &[
    "Requires",
    "Requisite",
    "Wants",
    "BindsTo",
    "PartOf",
    "Conflicts",
    "After",
    "Before",
    "WantedBy",
    "RequiredBy",
    "Also",
];

fn graph_directives(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // Ignition refuses a unit it cannot parse; a view of such a config keeps no directives.
    for entry in parse_unit(text).unwrap_or_default() {
        let key = entry.key.as_str();
        if !(GRAPH_KEYS.contains(&key) || key.starts_with("Condition") || key.starts_with("Assert"))
        {
            continue;
        }
        let values = out.entry(format!("{}.{}", entry.section, key)).or_default();
        if key.starts_with("Condition") || key.starts_with("Assert") {
            values.push(entry.value.trim().to_string());
        } else {
            values.extend(entry.value.split_whitespace().map(str::to_string));
        }
    }
    for values in out.values_mut() {
        values.sort();
        values.dedup();
    }
    out
}

/// The suffixes of the unit types a node's `/etc/systemd/system` holds.
const UNIT_SUFFIXES: &[&str] = &[
    ".service",
    ".socket",
    ".target",
    ".mount",
    ".automount",
    ".timer",
    ".path",
    ".slice",
    ".swap",
    ".device",
    ".scope",
];

/// Whether the file at `path` is a unit, or a unit's drop-in, that systemd reads from the
/// administrator's unit directories.
fn is_unit_file(path: &str) -> bool {
    let Some(rest) = ["/etc/systemd/system/", "/etc/systemd/user/"]
        .iter()
        .find_map(|dir| path.strip_prefix(dir))
    else {
        return false;
    };
    match rest.split_once('/') {
        None => UNIT_SUFFIXES.iter().any(|suffix| rest.ends_with(suffix)),
        Some((dir, name)) => dir.ends_with(".d") && name.ends_with(".conf") && !name.contains('/'),
    }
}

/// Whether `token` is a container image pull spec: a registry host (a dot or a port before
/// the first `/`), a path, and a tag or digest.
fn is_pull_spec(token: &str) -> bool {
    let Some((host, rest)) = token.split_once('/') else {
        return false;
    };
    let host_like = (host.contains('.') || host.contains(':'))
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
    let last = rest.rsplit('/').next().unwrap_or_default();
    let referenced = rest.contains("@sha256:") || last.contains(':');
    host_like && !rest.is_empty() && referenced && !token.contains('$')
}

/// The image pull specs a shell script names outside its comments: the images the node pulls
/// through it, and where a mirror rewrite must reach.
fn script_images(bytes: &[u8]) -> BTreeSet<String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return BTreeSet::new();
    };
    if !text.starts_with("#!") {
        return BTreeSet::new();
    }
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(|line| line.split(|c: char| c.is_whitespace() || "\"'=(){};,".contains(c)))
        .filter(|token| is_pull_spec(token))
        .map(str::to_string)
        .collect()
}

/// The most bytes the files of one config may decode to for its objects view: the view holds
/// them all at once, and a config of a few MiB can expand to gigabytes.
const MAX_VIEW_DECODED: u64 = 32 << 20;

/// Builds the objects view of `doc`.
pub fn object_view(doc: &IgnitionDoc) -> Result<ObjectView> {
    object_view_with(doc, &[])
}

/// The objects view of `doc` with `beside` (name and bytes: an output directory's
/// `metadata.json` and `auth/kubeconfig`) as files of their own, under those names, normalized
/// as the config's files are (its per-run IDs as placeholders, secrets hidden). A name
/// without an extension is read as YAML, as a kubeconfig is.
pub fn object_view_with(doc: &IgnitionDoc, beside: &[(&str, &[u8])]) -> Result<ObjectView> {
    let mut total = 0u64;
    let files = crate::ignition::decoded_files(doc).map(|file| {
        let file = file?;
        let size = file.contents.as_ref().map_or(0, Vec::len)
            + file.append.iter().map(Vec::len).sum::<usize>();
        total += size as u64;
        if total > MAX_VIEW_DECODED {
            return Err(crate::error::Error::Ignition {
                file: crate::error::UNNAMED_CONFIG.into(),
                message: format!(
                    "{}: the config's files come to more than {} MiB with this one: refused (no cluster's do; a config can expand to that)",
                    file.path,
                    MAX_VIEW_DECODED >> 20
                ),
            });
        }
        Ok(file)
    });
    let decoded = crate::ignition::DecodedConfig {
        version: doc.version().to_string(),
        files: files.collect::<Result<_>>()?,
        units: crate::ignition::decode_units(doc),
        users: crate::ignition::decode_users(doc),
    };
    let normalizer = Normalizer::for_config(&decoded);
    let mut view = ObjectView::default();
    let raw_files = doc
        .value
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // Ignition refuses a config defining a path twice: neither entry is what a node would
    // have, so the view has none to show (as `diff` refuses it).
    let mut first_at: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, file) in decoded.files.iter().enumerate() {
        if let Some(first) = first_at.insert(&file.path, i) {
            return Err(crate::error::Error::Ignition {
                file: crate::error::UNNAMED_CONFIG.into(),
                message: format!("$.storage.files[{i}]: {} is also $.storage.files[{first}]: a path defined twice is refused by Ignition (bootgen validate names it)", file.path),
            });
        }
    }
    for (file, raw) in decoded.files.iter().zip(raw_files) {
        let fetched: Vec<Fetched> = raw
            .get("contents")
            .into_iter()
            .chain(
                raw.get("append")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten(),
            )
            .filter_map(|resource| Fetched::of(resource, false))
            .collect();
        let append = file.contents.is_none() && !file.append.is_empty();
        let bytes = match &file.contents {
            Some(bytes) => bytes.clone(),
            None => file.append.concat(),
        };
        let (object, mut pem) = normalizer.object_of(&file.path, &bytes);
        let images = if object.is_none() {
            pem = normalizer.pem_of(normalize::WHOLE_FILE, &String::from_utf8_lossy(&bytes));
            script_images(&bytes)
        } else {
            BTreeSet::new()
        };
        let directives = if is_unit_file(&file.path) {
            std::str::from_utf8(&bytes)
                .map(graph_directives)
                .unwrap_or_default()
        } else {
            BTreeMap::new()
        };
        view.files.insert(
            file.path.clone(),
            FileObject {
                mode: file.mode.map(|m| format!("{m:04o}")),
                append,
                object,
                images,
                directives,
                pem,
                fetched,
            },
        );
    }
    for (name, bytes) in beside {
        let parse_as = if name.contains('.') {
            (*name).to_string()
        } else {
            format!("{name}.yaml")
        };
        let (object, pem) = normalizer.object_of(&parse_as, bytes);
        view.files.insert(
            (*name).to_string(),
            FileObject {
                mode: None,
                append: false,
                object,
                images: BTreeSet::new(),
                directives: BTreeMap::new(),
                pem,
                fetched: Vec::new(),
            },
        );
    }
    let config = doc.value.pointer("/ignition/config");
    let merged = config
        .and_then(|c| c.get("merge"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, m)| (format!("config.merge[{i}]"), m));
    let replaced = config
        .and_then(|c| c.get("replace"))
        .map(|r| ("config.replace".to_string(), r));
    for (at, resource) in merged.chain(replaced) {
        if let Some(fetched) = Fetched::of(resource, true) {
            view.fetched.insert(at, fetched);
        }
    }
    for unit in &decoded.units {
        let entry = view.units.entry(unit.name.clone()).or_default();
        entry.enabled = unit.enabled.or(entry.enabled);
        entry.mask |= unit.mask.unwrap_or(false);
        if let Some(text) = &unit.contents {
            entry.directives = graph_directives(text);
        }
        for dropin in &unit.dropins {
            let text = dropin.contents.as_deref().unwrap_or_default();
            entry
                .dropins
                .insert(dropin.name.clone(), graph_directives(text));
        }
    }
    let users = doc.value.pointer("/passwd/users").and_then(Value::as_array);
    for raw in users.into_iter().flatten() {
        let name = raw.get("name").and_then(Value::as_str).unwrap_or_default();
        view.users.insert(name.to_string(), UserObject::of(raw));
    }
    let authorities = doc
        .value
        .pointer("/ignition/security/tls/certificateAuthorities")
        .and_then(Value::as_array);
    for (i, ca) in authorities.into_iter().flatten().enumerate() {
        let Some(source) = ca.get("source").and_then(Value::as_str) else {
            continue;
        };
        if let Some(fetched) = Fetched::of(ca, false) {
            view.fetched
                .insert(format!("tls.certificateAuthorities[{i}]"), fetched);
            continue;
        }
        let compression = ca.get("compression").and_then(Value::as_str);
        // A CA fetched from elsewhere is not in the config to describe.
        let Ok(bytes) = crate::ignition::dataurl::decode(source, compression) else {
            continue;
        };
        total += bytes.len() as u64;
        if total > MAX_VIEW_DECODED {
            break;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (_, facts) in normalizer.pem_of("", &text) {
            view.authorities.insert(format!("[{i}]"), facts);
        }
    }
    Ok(view)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_pem;

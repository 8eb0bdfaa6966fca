//! Turning a structured file into comparable objects: parse it, replace what differs from run
//! to run by a placeholder, drop Go's empty values (but a TOML file's: see [`Syntax::Toml`]).

use super::pem::{pem_facts, PemFacts, MAX_VIEW_PEM_BLOCKS};
use crate::ignition::redact::{is_secret_key, Redact};
use crate::ignition::DecodedConfig;
use base64::Engine;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// The most values the view parses out of one config's structured files (counted from above:
/// see [`values_at_most`]). A parsed value costs tens of bytes, so a YAML list of one-letter
/// items would cost some 60 times its text; real configs have far fewer.
const MAX_VIEW_VALUES: u64 = 1_000_000;

/// The per-config knowledge a file needs: the run's IDs, found in the config's own manifests.
pub(super) struct Normalizer {
    /// (value, placeholder), longest first so a longer ID is replaced before a shorter one.
    ids: Vec<(String, &'static str)>,
    /// Of [`MAX_VIEW_VALUES`], what the files not yet parsed may still use.
    values_left: Cell<u64>,
    /// Of [`MAX_VIEW_PEM_BLOCKS`], what the files not yet read may still use.
    pem_left: Cell<usize>,
    /// Where in the file being normalized the walk is: one segment per key (`data`) or list
    /// item (`[name]`, `[2]`).
    at: RefCell<Vec<String>>,
    /// The PEM blocks found in the file being normalized, by where.
    found: RefCell<BTreeMap<String, Vec<PemFacts>>>,
    /// Whether the file being normalized keeps its empty values (a TOML file).
    keeps_empty: Cell<bool>,
}

/// The certificates and keys of one file, by where: [`WHOLE_FILE`] for the file's own text,
/// else the field that holds them (`users[admin].user.client-certificate-data`).
pub(super) type PemByPlace = BTreeMap<String, Vec<PemFacts>>;

/// Where the PEM blocks of a file's own text are listed.
pub(super) const WHOLE_FILE: &str = "file";

/// At least as many as the values parsing `text` can give (JSON, YAML without aliases, TOML):
/// each value past the first needs a separator (`,` `:` `-` `=` `?`), an opening bracket or a
/// line of its own.
fn values_at_most(text: &str) -> u64 {
    1 + text.bytes().filter(|b| b",:-=?[{\n".contains(b)).count() as u64
}

impl Normalizer {
    /// Finds the cluster ID (the ClusterVersion's `spec.clusterID`) and the infra ID (the
    /// Infrastructure's `status.infrastructureName`) among the config's files.
    pub(super) fn for_config(config: &DecodedConfig) -> Normalizer {
        let mut ids = Vec::new();
        for file in &config.files {
            let name = file.path.rsplit('/').next().unwrap_or_default();
            let (pointer, placeholder) = match name {
                "cvo-overrides.yaml" => ("/spec/clusterID", "<clusterID>"),
                "cluster-infrastructure-02-config.yml" => {
                    ("/status/infrastructureName", "<infraID>")
                }
                _ => continue,
            };
            let Some(bytes) = &file.contents else {
                continue;
            };
            for doc in parse_documents(&file.path, bytes).unwrap_or_default() {
                if let Some(id) = doc.pointer(pointer).and_then(Value::as_str) {
                    if id.len() >= 4 {
                        ids.push((id.to_string(), placeholder));
                    }
                }
            }
        }
        ids.sort_by_key(|(id, _)| std::cmp::Reverse(id.len()));
        Normalizer {
            ids,
            values_left: Cell::new(MAX_VIEW_VALUES),
            pem_left: Cell::new(MAX_VIEW_PEM_BLOCKS),
            at: RefCell::new(Vec::new()),
            found: RefCell::new(BTreeMap::new()),
            keeps_empty: Cell::new(false),
        }
    }

    /// The certificates and keys in `text`, listed at `place`.
    pub(super) fn pem_of(&self, place: &str, text: &str) -> PemByPlace {
        let mut left = self.pem_left.get();
        let facts = pem_facts(text, &mut left);
        self.pem_left.set(left);
        let mut out = BTreeMap::new();
        if !facts.is_empty() {
            out.insert(place.to_string(), facts);
        }
        out
    }

    /// Lists the PEM blocks of `text` (or of `text` base64-decoded) at the walk's place.
    fn note_pem(&self, text: &str) {
        let decoded;
        let pem = if text.trim_start().starts_with("-----BEGIN ") {
            text
        } else if let Some(d) = decoded_base64(text) {
            decoded = d;
            &decoded
        } else {
            return;
        };
        let mut place = String::new();
        for segment in self.at.borrow().iter() {
            if !place.is_empty() && !segment.starts_with('[') {
                place.push('.');
            }
            place.push_str(segment);
        }
        let place = if place.is_empty() {
            WHOLE_FILE.to_string()
        } else {
            place
        };
        for (_, facts) in self.pem_of(&place, pem) {
            self.found
                .borrow_mut()
                .entry(place.clone())
                .or_default()
                .extend(facts);
        }
    }

    /// Walks `value` with `segment` added to the place.
    fn normalize_at(&self, segment: String, value: &mut Value, key: Option<&str>, secret: bool) {
        self.at.borrow_mut().push(segment);
        self.normalize(value, key, secret);
        self.at.borrow_mut().pop();
    }

    /// The normalized objects of a file at `path`, or None when it is not structured; with the
    /// certificates and keys found in them.
    pub(super) fn object_of(&self, path: &str, bytes: &[u8]) -> (Option<Value>, PemByPlace) {
        self.at.borrow_mut().clear();
        let object = self.parsed_object(path, bytes);
        (object, std::mem::take(&mut *self.found.borrow_mut()))
    }

    fn parsed_object(&self, path: &str, bytes: &[u8]) -> Option<Value> {
        syntax_of(path)?;
        let values = std::str::from_utf8(bytes).map_or(0, values_at_most);
        let Some(left) = self.values_left.get().checked_sub(values) else {
            // Still compared, by digest.
            use sha2::Digest as _;
            return Some(Value::String(format!(
                "<not parsed: {} bytes, beyond the {MAX_VIEW_VALUES} values the view parses of a config; sha256 {:x}>",
                bytes.len(),
                sha2::Sha256::digest(bytes)
            )));
        };
        self.values_left.set(left);
        let mut docs = parse_documents(path, bytes)?;
        self.keeps_empty
            .set(syntax_of(path).is_some_and(Syntax::keeps_empty_values));
        let several = docs.len() > 1;
        for (i, doc) in docs.iter_mut().enumerate() {
            if several {
                self.normalize_at(item_segment(i, doc), doc, None, false);
            } else {
                self.normalize(doc, None, false);
            }
        }
        docs.retain(|d| !is_go_empty(d));
        Some(match docs.len() {
            // Parsed, and says nothing (comments only).
            0 => Value::Object(serde_json::Map::new()),
            1 => docs.pop().unwrap_or(Value::Null),
            _ => Value::Array(docs),
        })
    }

    /// Normalizes `value` in place. `key` is the key it sits under; `in_secret_data` is true
    /// inside a Secret's `data`/`stringData`, where every value is a secret.
    fn normalize(&self, value: &mut Value, key: Option<&str>, in_secret_data: bool) {
        match value {
            Value::Object(map) => {
                let is_secret = map.get("kind").and_then(Value::as_str) == Some("Secret");
                for (k, v) in map.iter_mut() {
                    let secret_data = is_secret && (k == "data" || k == "stringData");
                    self.normalize_at(k.clone(), v, Some(k), in_secret_data || secret_data);
                }
                if !self.keeps_empty.get() {
                    map.retain(|_, v| !is_go_empty(v));
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    self.normalize_at(item_segment(i, item), item, key, in_secret_data);
                }
                // A container's flags (`--name=value` each) mean the same in any order.
                let flags = items
                    .iter()
                    .all(|i| i.as_str().is_some_and(|t| t.starts_with("--")));
                if matches!(key, Some("args" | "command")) && flags {
                    items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                }
            }
            Value::String(text) => {
                let key = key.unwrap_or_default();
                // A key's type and size are no secret, whatever field holds it.
                self.note_pem(text);
                *value = if in_secret_data && !matches!(key, "data" | "stringData") {
                    self.secret_or_document(text)
                } else if is_secret_key(key) {
                    Value::String("<secret>".into())
                } else if key.ends_with("/description") || key == "description" {
                    // Prose for people (`kubernetes.io/description`, a schema's field
                    // descriptions); no component acts on it.
                    Value::String("<description>".into())
                } else {
                    self.string(text)
                };
            }
            _ => {}
        }
    }

    /// A Secret's value: certificates and keys by kind, anything else a plain secret.
    fn secret_or_document(&self, text: &str) -> Value {
        match pem_placeholder(text).or_else(|| pem_placeholder(&decoded_base64(text)?)) {
            Some(p) => Value::String(p.into()),
            None => Value::String("<secret>".into()),
        }
    }

    /// A plain string: PEM, base64 PEM, SSH keys, bcrypt hashes and embedded documents
    /// normalized; the run's IDs replaced.
    fn string(&self, text: &str) -> Value {
        if let Some(p) = pem_placeholder(text) {
            return Value::String(p.into());
        }
        if let Some(p) = decoded_base64(text).as_deref().and_then(pem_placeholder) {
            return Value::String(p.into());
        }
        if ["ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-"]
            .iter()
            .any(|p| text.trim_start().starts_with(p))
        {
            return Value::String("<ssh public key>".into());
        }
        if text.starts_with("$2a$") || text.starts_with("$2b$") || text.starts_with("$2y$") {
            return Value::String("<secret>".into());
        }
        // A point in time (a certificate's validity in an annotation): when the run happened.
        if time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok()
        {
            return Value::String("<time>".into());
        }
        // A ConfigMap value holding a whole document (the stored install-config, a JSON
        // config): compare what it says, not how it is spelled.
        if text.contains('\n') || text.trim_start().starts_with('{') {
            if let Some(mut doc) = embedded_document(text) {
                self.normalize(&mut doc, None, false);
                return doc;
            }
        }
        // Credentials in a URL (a proxy's) or a token: the same marker for any run.
        let mut out = Redact::Marker.inline(text);
        for (id, placeholder) in &self.ids {
            if out.contains(id.as_str()) {
                out = out.replace(id.as_str(), placeholder);
            }
        }
        Value::String(out)
    }
}

/// A list item's place: `[kind/namespace/name]` of a Kubernetes object, `[name]` of a named
/// entry (a kubeconfig's clusters and users), else its position.
fn item_segment(index: usize, item: &Value) -> String {
    let text = |p: &str| item.pointer(p).and_then(Value::as_str);
    if let Some(name) = text("/metadata/name") {
        let kind = text("/kind").unwrap_or_default();
        let namespace = text("/metadata/namespace").unwrap_or_default();
        return format!("[{kind}/{namespace}/{name}]");
    }
    match text("/name") {
        Some(name) => format!("[{name}]"),
        None => format!("[{index}]"),
    }
}

/// `<certificate>`, `<private key>` or `<public key>` for PEM text.
fn pem_placeholder(text: &str) -> Option<&'static str> {
    let text = text.trim_start();
    if !text.starts_with("-----BEGIN ") {
        return None;
    }
    Some(if text.contains("PRIVATE KEY-----") {
        "<private key>"
    } else if text.contains("PUBLIC KEY-----") {
        "<public key>"
    } else {
        "<certificate>"
    })
}

fn decoded_base64(text: &str) -> Option<String> {
    if text.len() < 40 || text.contains(char::is_whitespace) {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// A string that is itself a YAML mapping or JSON object.
fn embedded_document(text: &str) -> Option<Value> {
    let value: Value = crate::config::depth::from_str(text).ok()?;
    value.is_object().then_some(value)
}

/// Go's zero values: a Go program reading the object cannot tell them from an absent field.
pub(super) fn is_go_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// How a file at `path` is parsed, if it is structured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Yaml,
    Json,
    /// registries.conf and `*.toml`: written from text templates line by line (the installer's
    /// registries.conf), not serialized from Go structs whose empty fields a serializer may or
    /// may not leave out, so a line with an empty value (`blocked = false`) is one the writer
    /// chose to write and the view keeps it.
    Toml,
}

impl Syntax {
    fn keeps_empty_values(self) -> bool {
        self == Syntax::Toml
    }
}

/// Whether the file at `path` keeps its empty values in the view (see [`Syntax::Toml`]).
pub(super) fn keeps_empty_values(path: &str) -> bool {
    syntax_of(path).is_some_and(Syntax::keeps_empty_values)
}

/// `value` with Go's empty values dropped at every depth, as the view has them in any file
/// that does not keep them.
pub(super) fn drop_go_empty(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.values_mut().for_each(drop_go_empty);
            map.retain(|_, v| !is_go_empty(v));
        }
        Value::Array(items) => items.iter_mut().for_each(drop_go_empty),
        _ => {}
    }
}

fn syntax_of(path: &str) -> Option<Syntax> {
    let name = path.rsplit('/').next().unwrap_or_default();
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    match ext {
        Some("yaml" | "yml") => Some(Syntax::Yaml),
        Some("json") => Some(Syntax::Json),
        Some("toml") => Some(Syntax::Toml),
        _ if name == "registries.conf" => Some(Syntax::Toml),
        _ if name.contains("kubeconfig") => Some(Syntax::Yaml),
        _ => None,
    }
}

/// The documents of a structured file, or None when it is not one (or does not parse: its
/// mode is still compared).
fn parse_documents(path: &str, bytes: &[u8]) -> Option<Vec<Value>> {
    let text = std::str::from_utf8(bytes).ok()?;
    match syntax_of(path)? {
        Syntax::Json => serde_json::from_str(text).ok().map(|v| vec![v]),
        Syntax::Toml => {
            let table: toml::Table = toml::from_str(text).ok()?;
            serde_json::to_value(table).ok().map(|v| vec![v])
        }
        Syntax::Yaml => {
            if crate::config::depth::too_deep(text).is_some() {
                return None;
            }
            let mut docs = Vec::new();
            for doc in serde_yaml_ng::Deserializer::from_str(text) {
                let value: Value = serde::Deserialize::deserialize(doc).ok()?;
                docs.push(value);
            }
            Some(docs)
        }
    }
}

//! Ignition's semantic rules for a config that matched the schema: paths absolute and clean,
//! no entry defined twice, unit and drop-in names with valid suffixes and parseable text, file
//! modes in range, sources Ignition can fetch and decode, `overwrite` only with a source. Plus
//! what its validator lets through but its `files` stage fails on: a file that is also another
//! entry's parent directory, and gzip contents that do not decompress.

use super::problem::{Check, Problem, Severity};
use super::source::check_source;
use crate::ignition::kind::has_unit_suffix;
use crate::ignition::unit_text::parse_unit;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Read as _;

struct Rules {
    minor: u32,
    problems: Vec<Problem>,
}

fn list<'a>(value: &'a Value, pointer: &str) -> &'a [Value] {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// `path` is absolute and equal to its cleaned form (no `//`, `.`, `..` or trailing `/`).
fn path_problem(path: &str) -> Option<&'static str> {
    if !path.starts_with('/') {
        return Some("path not absolute");
    }
    let clean = path == "/"
        || path[1..]
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    (!clean).then_some("path is not fully simplified")
}

impl Rules {
    fn error(&mut self, check: Check, rule: &'static str, at: String, message: impl Into<String>) {
        self.problems
            .push(Problem::new(Severity::Error, check, rule, at, message));
    }

    fn storage(&mut self, config: &Value) {
        // Files, directories and links share one namespace.
        let mut seen: BTreeMap<&str, String> = BTreeMap::new();
        let mut entries: Vec<(&str, String, bool)> = Vec::new();
        for (kind, is_leaf) in [("files", true), ("directories", false), ("links", true)] {
            for (i, entry) in list(config, &format!("/storage/{kind}")).iter().enumerate() {
                let at = format!("$.storage.{kind}[{i}]");
                let Some(path) = str_at(entry, "path") else {
                    continue;
                };
                if let Some(why) = path_problem(path) {
                    self.error(
                        Check::Ignition,
                        "path",
                        format!("{at}.path"),
                        format!("{path}: {why}"),
                    );
                }
                match seen.get(path) {
                    Some(first) => self.error(
                        Check::Ignition,
                        "duplicate",
                        at.clone(),
                        format!("{path} is defined twice (first at {first})"),
                    ),
                    None => {
                        seen.insert(path, at.clone());
                    }
                }
                if kind != "links" {
                    self.mode(entry, &at);
                }
                entries.push((path, at, is_leaf));
            }
        }
        // Only clean paths: an unclean one is already an error, and `/a/` is not a child of `/a`.
        // Every directory some entry needs, with the first entry that needs it: one pass over
        // the ancestors of each path instead of comparing every pair of entries.
        let mut needed_dirs: HashMap<&str, (&str, &str)> = HashMap::new();
        for (path, at, _) in entries.iter().filter(|(p, _, _)| path_problem(p).is_none()) {
            for (end, _) in path.match_indices('/').filter(|(end, _)| *end > 0) {
                needed_dirs.entry(&path[..end]).or_insert((path, at));
            }
        }
        for (path, at, is_leaf) in &entries {
            if !is_leaf || *path == "/" || path_problem(path).is_some() {
                continue;
            }
            if let Some((child, child_at)) = needed_dirs.get(path) {
                self.error(
                    Check::Boot,
                    "file-over-directory",
                    at.clone(),
                    format!(
                        "{path} is a file or link, but {child} ({child_at}) needs it to be a directory: the files stage fails"
                    ),
                );
            }
        }
        for (i, file) in list(config, "/storage/files").iter().enumerate() {
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
            if let Some(resource) = file.get("contents") {
                self.resource(resource, &format!("{at}.contents"));
            }
            for (j, resource) in list(file, "/append").iter().enumerate() {
                self.resource(resource, &format!("{at}.append[{j}]"));
            }
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
        } else if mode & 0o7000 != 0 && self.minor < 4 {
            self.problems.push(Problem::new(
                Severity::Warning,
                Check::Ignition,
                "mode",
                format!("{at}.mode"),
                format!("mode 0{mode:o}: setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0"),
            ));
        }
    }

    fn resource(&mut self, resource: &Value, at: &str) {
        let compression = str_at(resource, "compression").unwrap_or_default();
        if !compression.is_empty() && compression != "gzip" {
            self.error(
                Check::Ignition,
                "compression",
                format!("{at}.compression"),
                format!("invalid compression method `{compression}` (only gzip)"),
            );
        }
        if let Some(hash) = resource
            .pointer("/verification/hash")
            .and_then(Value::as_str)
        {
            if let Some(why) = self.hash_problem(hash) {
                self.error(
                    Check::Ignition,
                    "hash",
                    format!("{at}.verification.hash"),
                    why,
                );
            }
        }
        let Some(source) = str_at(resource, "source") else {
            return;
        };
        match check_source(source, self.minor) {
            Err(why) => self.error(Check::Ignition, "source", format!("{at}.source"), why),
            Ok(Some(bytes)) if compression == "gzip" => {
                let mut out = Vec::new();
                if let Err(e) = flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut out)
                {
                    self.error(Check::Boot, "gzip", format!("{at}.source"), format!("compression is gzip but the data does not decompress ({e}): the files stage fails"));
                }
            }
            Ok(_) => {}
        }
    }

    fn hash_problem(&self, hash: &str) -> Option<String> {
        let Some((function, sum)) = hash.split_once('-') else {
            return Some(format!(
                "malformed hash specifier `{hash}` (expected sha512-HEX)"
            ));
        };
        let size = match function {
            "sha512" => 128,
            "sha256" if self.minor >= 1 => 64,
            _ => return Some(format!("unrecognized hash function `{function}`")),
        };
        (sum.len() != size)
            .then(|| format!("incorrect size for hash sum: {function} needs {size} hex digits"))
    }

    fn references(&mut self, config: &Value) {
        for key in ["merge", "replace"] {
            match config.pointer(&format!("/ignition/config/{key}")) {
                Some(Value::Array(list)) => {
                    for (i, r) in list.iter().enumerate() {
                        self.resource(r, &format!("$.ignition.config.{key}[{i}]"));
                    }
                }
                Some(r @ Value::Object(_)) => self.resource(r, &format!("$.ignition.config.{key}")),
                _ => {}
            }
        }
        for (i, r) in list(config, "/ignition/security/tls/certificateAuthorities")
            .iter()
            .enumerate()
        {
            self.resource(
                r,
                &format!("$.ignition.security.tls.certificateAuthorities[{i}]"),
            );
        }
    }

    fn units(&mut self, config: &Value) {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, unit) in list(config, "/systemd/units").iter().enumerate() {
            let at = format!("$.systemd.units[{i}]");
            let name = str_at(unit, "name").unwrap_or_default();
            if !has_unit_suffix(name) {
                self.error(Check::Ignition, "unit-name", format!("{at}.name"), format!("`{name}`: invalid systemd unit extension (.service, .socket, .target, .mount, .timer, .path, ...)"));
            }
            if let Some(first) = seen.insert(name, i) {
                self.error(
                    Check::Ignition,
                    "duplicate",
                    at.clone(),
                    format!("unit {name} is defined twice (first at $.systemd.units[{first}])"),
                );
            }
            if let Some(text) = str_at(unit, "contents") {
                let parsed = parse_unit(text);
                let no_install = parsed
                    .as_ref()
                    .is_ok_and(|entries| !entries.iter().any(|e| e.section == "Install"));
                if unit.get("enabled") == Some(&Value::Bool(true))
                    && no_install
                    && !text.trim().is_empty()
                {
                    self.problems.push(Problem::new(
                        Severity::Warning,
                        Check::Ignition,
                        "no-install-section",
                        format!("{at}.contents"),
                        format!("{name} is enabled but has no [Install] section, so enabling it does nothing"),
                    ));
                }
                if let Err(why) = parsed {
                    self.error(
                        Check::Ignition,
                        "unit-syntax",
                        format!("{at}.contents"),
                        format!("invalid unit content: {why}"),
                    );
                }
            }
            let mut dropins: BTreeMap<&str, usize> = BTreeMap::new();
            for (j, dropin) in list(unit, "/dropins").iter().enumerate() {
                let dat = format!("{at}.dropins[{j}]");
                let dname = str_at(dropin, "name").unwrap_or_default();
                if !dname.ends_with(".conf") {
                    self.error(
                        Check::Ignition,
                        "dropin-name",
                        format!("{dat}.name"),
                        format!("`{dname}`: invalid systemd drop-in extension (must end in .conf)"),
                    );
                }
                if dropins.insert(dname, j).is_some() {
                    self.error(
                        Check::Ignition,
                        "duplicate",
                        dat.clone(),
                        format!("drop-in {dname} of {name} is defined twice"),
                    );
                }
                if let Some(text) = str_at(dropin, "contents") {
                    if let Err(why) = parse_unit(text) {
                        self.error(
                            Check::Ignition,
                            "unit-syntax",
                            format!("{dat}.contents"),
                            format!("invalid unit content: {why}"),
                        );
                    }
                }
            }
        }
    }

    fn accounts(&mut self, config: &Value) {
        for kind in ["users", "groups"] {
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            for (i, entry) in list(config, &format!("/passwd/{kind}")).iter().enumerate() {
                let name = str_at(entry, "name").unwrap_or_default();
                if let Some(first) = seen.insert(name, i) {
                    self.error(
                        Check::Ignition,
                        "duplicate",
                        format!("$.passwd.{kind}[{i}]"),
                        format!("{name} is defined twice (first at $.passwd.{kind}[{first}])"),
                    );
                }
            }
        }
    }
}

/// Ignition's rules (and the files stage's) for a config of spec 3.`minor` that matched the
/// schema.
pub fn check(config: &Value, minor: u32) -> Vec<Problem> {
    let mut rules = Rules {
        minor,
        problems: Vec::new(),
    };
    rules.references(config);
    rules.accounts(config);
    rules.storage(config);
    rules.units(config);
    rules.problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules_of(config: Value) -> Vec<&'static str> {
        check(&config, 2).iter().map(|p| p.rule).collect()
    }

    #[test]
    fn paths() {
        assert_eq!(path_problem("/a/b"), None);
        assert_eq!(path_problem("/"), None);
        assert!(path_problem("a").is_some());
        for bad in ["/a/", "/a//b", "/a/./b", "/a/../b", "/.."] {
            assert!(path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn finds_each_rule() {
        let file = |path: &str| json!({"path": path});
        assert_eq!(
            rules_of(json!({"storage": {"files": [file("/a"), file("/a")]}})),
            ["duplicate"]
        );
        assert_eq!(
            rules_of(
                json!({"storage": {"files": [file("/a")], "directories": [{"path": "/a/b"}]}})
            ),
            ["file-over-directory"]
        );
        assert_eq!(
            rules_of(json!({"storage": {"files": [{"path": "/a", "mode": 8192}]}})),
            ["mode"]
        );
        assert_eq!(
            rules_of(json!({"storage": {"files": [{"path": "/a", "overwrite": true}]}})),
            ["overwrite"]
        );
        assert_eq!(
            rules_of(
                json!({"storage": {"files": [{"path": "/a", "contents": {"source": "data:,x", "compression": "gzip"}}]}})
            ),
            ["gzip"]
        );
        assert_eq!(
            rules_of(json!({"systemd": {"units": [{"name": "foo"}]}})),
            ["unit-name"]
        );
        assert_eq!(
            rules_of(
                json!({"systemd": {"units": [{"name": "a.service", "dropins": [{"name": "x"}]}]}})
            ),
            ["dropin-name"]
        );
        assert_eq!(
            rules_of(json!({"systemd": {"units": [{"name": "a.service", "contents": "[Unit\n"}]}})),
            ["unit-syntax"]
        );
        assert_eq!(
            rules_of(json!({"passwd": {"users": [{"name": "core"}, {"name": "core"}]}})),
            ["duplicate"]
        );
        assert_eq!(
            rules_of(
                json!({"storage": {"files": [{"path": "/a", "contents": {"source": "data:,x", "verification": {"hash": "sha512-00"}}}]}})
            ),
            ["hash"]
        );
        assert!(rules_of(json!({"storage": {"files": [file("/a/b"), file("/a/c")]}})).is_empty());
    }
}

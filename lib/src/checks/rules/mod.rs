//! Ignition's semantic rules for a config that matched the schema: paths absolute and clean,
//! no entry defined twice, unit and drop-in names with valid suffixes and parseable text, file
//! modes in range, sources Ignition can parse, fetch and decode, `overwrite` only with a source,
//! owners by ID or name, and the devices below the files (`devices.rs`). Plus
//! what its validator lets through but its `files` stage fails on: a file that is also another
//! entry's parent directory, and gzip contents that do not decompress.

mod devices;
mod proxy;
mod storage;
mod unique;
mod volumes;

use super::problem::{Check, Problem, Severity};
use super::source::check_source;
use crate::error::Result;
use crate::ignition::files::FileList;
use crate::ignition::hash::Hashing;
use crate::ignition::kind::has_unit_suffix;
use crate::ignition::unit_text::parse_unit;
use serde_json::Value;
use std::collections::BTreeMap;
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

impl Rules {
    fn error(&mut self, check: Check, rule: &'static str, at: String, message: impl Into<String>) {
        self.problems
            .push(Problem::new(Severity::Error, check, rule, at, message));
    }

    /// `file` is the node path of the file entry the resource belongs to, if any (none for a
    /// merged or replacing config and a CA).
    fn resource(&mut self, resource: &Value, at: &str, file: Option<&str>) {
        self.http_headers(resource, at);
        // In spec 3.0 only a file's resources have `compression`: on a config or CA reference
        // it is an unknown key, ignored, so its value is nobody's to judge.
        let compression = if file.is_none() && self.minor == 0 {
            ""
        } else {
            str_at(resource, "compression").unwrap_or_default()
        };
        if !compression.is_empty() && compression != "gzip" {
            self.error(
                Check::Ignition,
                "compression",
                format!("{at}.compression"),
                format!("invalid compression method `{compression}` (only gzip)"),
            );
        }
        let mut expected = None;
        if let Some(hash) = resource
            .pointer("/verification/hash")
            .and_then(Value::as_str)
        {
            match self.hash_problem(hash) {
                Some(why) => self.error(
                    Check::Ignition,
                    "hash",
                    format!("{at}.verification.hash"),
                    why,
                ),
                None => expected = Some(hash),
            }
        }
        let Some(source) = crate::ignition::decode::source_of(resource) else {
            return;
        };
        match check_source(source, self.minor) {
            Err(why) => self.error(Check::Ignition, "source", format!("{at}.source"), why),
            Ok(Some(bytes)) => {
                let mut digest = expected.map(Hashing::of);
                let gzip = compression == "gzip";
                if gzip && !self.gunzip(&bytes, digest.as_mut(), at, file) {
                    return;
                }
                if let (Some(mut digest), Some(expected)) = (digest, expected) {
                    if !gzip {
                        digest.update(&bytes);
                    }
                    let computed = digest.hash();
                    if !computed.eq_ignore_ascii_case(expected) {
                        self.error(Check::Boot, "hash", format!("{at}.verification.hash"), format!("the data URL's contents hash to {computed}: the files stage fails (hash verification failed)"));
                    }
                }
            }
            Ok(None) => {}
        }
    }

    /// Decompresses a gzip data URL's `bytes` (into `digest`, when given); false when they do
    /// not decompress or expand too far (each an error).
    fn gunzip(
        &mut self,
        bytes: &[u8],
        digest: Option<&mut Hashing>,
        at: &str,
        file: Option<&str>,
    ) -> bool {
        // Counted, not kept, and only up to what any other command would read.
        let limit = crate::ignition::dataurl::MAX_DECOMPRESSED;
        let mut decoder = flate2::read::GzDecoder::new(bytes).take(limit + 1);
        let copied = match digest {
            Some(digest) => std::io::copy(&mut decoder, digest),
            None => std::io::copy(&mut decoder, &mut std::io::sink()),
        };
        match copied {
            Err(e) => self.error(Check::Boot, "gzip", format!("{at}.source"), format!("compression is gzip but the data does not decompress ({e}): the files stage fails")),
            Ok(n) if n > limit => self.error(Check::Lint, "gzip-bomb", format!("{at}.source"), format!("{}gzip contents expand to more than {} MiB from {} compressed bytes: refused as a decompression bomb (bootgen reads no further)", file.map(|f| format!("{f}: ")).unwrap_or_default(), limit >> 20, bytes.len())),
            Ok(_) => return true,
        }
        false
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

    /// From spec 3.1 a merged config and a CA need a source (a replacing config may have none:
    /// nothing replaces the config); in 3.0 a merged one may lack it, and a CA's is the
    /// schema's, which Ignition parses as a URL even when empty (one without a scheme).
    fn source_required(&mut self, resource: &Value, at: String, ca: bool) {
        let source = str_at(resource, "source");
        if self.minor >= 1 {
            if source.unwrap_or_default().is_empty() {
                self.error(Check::Ignition, "source", at, "source is required");
            }
        } else if ca && source == Some("") {
            if let Err(why) = check_source("", self.minor) {
                self.error(Check::Ignition, "source", format!("{at}.source"), why);
            }
        }
    }

    fn references(&mut self, config: &Value) {
        for key in ["merge", "replace"] {
            match config.pointer(&format!("/ignition/config/{key}")) {
                Some(Value::Array(list)) => {
                    for (i, r) in list.iter().enumerate() {
                        let at = format!("$.ignition.config.{key}[{i}]");
                        self.source_required(r, at.clone(), false);
                        self.resource(r, &at, None);
                    }
                }
                Some(r @ Value::Object(_)) => {
                    self.resource(r, &format!("$.ignition.config.{key}"), None)
                }
                _ => {}
            }
        }
        for (i, r) in list(config, "/ignition/security/tls/certificateAuthorities")
            .iter()
            .enumerate()
        {
            self.source_required(
                r,
                format!("$.ignition.security.tls.certificateAuthorities[{i}]"),
                true,
            );
            self.resource(
                r,
                &format!("$.ignition.security.tls.certificateAuthorities[{i}]"),
                None,
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
}

/// Ignition's rules (and the files stage's) for a config of spec 3.`minor` that matched the
/// schema, whose file entries are `files` (the rest is read from `config`). An error only when
/// a file entry cannot be read.
pub fn check(config: &Value, files: FileList<'_>, minor: u32) -> Result<Vec<Problem>> {
    let mut rules = Rules {
        minor,
        problems: Vec::new(),
    };
    rules.references(config);
    rules.storage(config, files)?;
    rules.devices(config);
    rules.volumes(config);
    rules.unique_entries(config);
    rules.proxy(config);
    // Before spec 3.3 `kernelArguments` is an unknown key, which Ignition ignores whole.
    if minor >= 3 {
        rules.kernel_arguments(config);
    }
    rules.units(config);
    Ok(rules.problems)
}

#[cfg(test)]
mod tests {
    use super::storage::path_problem;
    use super::*;
    use serde_json::json;

    fn rules_of(config: Value) -> Vec<&'static str> {
        let problems = check(&config, FileList::of(&config), 2).unwrap();
        problems.iter().map(|p| p.rule).collect()
    }

    #[test]
    fn paths() {
        assert_eq!(path_problem("/a/b"), None);
        assert_eq!(path_problem("/"), None);
        assert!(path_problem("a").is_some());
        assert_eq!(path_problem(""), Some("path not specified"));
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

    /// A key spec 3.0 does not have is an unknown key there (the schema check warns of it), and
    /// no later spec's rule judges its value; from 3.1, where the key exists, the rule does.
    #[test]
    fn keys_a_version_does_not_have_are_judged_by_no_rule() {
        let headers = json!({"storage": {"files": [{"path": "/a", "contents": {"source": "https://h/a", "httpHeaders": [{"name": ""}, {"name": "X"}, {"name": "X"}]}}]}});
        let mount_options =
            json!({"storage": {"filesystems": [{"device": "/dev/sda", "mountOptions": ["ro"]}]}});
        let reference_compression = json!({"ignition": {
            "config": {"merge": [{"source": "data:,%7B%7D", "compression": "xz"}]},
            "security": {"tls": {"certificateAuthorities": [{"source": "data:,x", "compression": "gzip"}]}}
        }});
        for (config, later) in [
            (&headers, vec!["http-header", "duplicate"]),
            (&mount_options, vec!["format"]),
            (&reference_compression, vec!["compression", "gzip"]),
        ] {
            let problems = |minor| {
                check(config, FileList::of(config), minor)
                    .unwrap()
                    .iter()
                    .map(|p| p.rule)
                    .collect::<Vec<_>>()
            };
            assert!(problems(0).is_empty(), "{config}: {:?}", problems(0));
            assert_eq!(problems(1), later, "{config}");
        }
    }

    /// ignition-validate's "source is required", from spec 3.1: a merged config and a CA
    /// without one (or with an empty one); a replacing config may have none.
    #[test]
    fn merged_configs_and_cas_need_a_source_from_3_1() {
        let config = json!({"ignition": {
            "config": {"merge": [{}, {"source": ""}], "replace": {}},
            "security": {"tls": {"certificateAuthorities": [{}]}}
        }});
        let rules = |minor| {
            check(&config, FileList::of(&config), minor)
                .unwrap()
                .iter()
                .map(|p| (p.rule, p.location.path.clone().unwrap_or_default()))
                .collect::<Vec<_>>()
        };
        assert!(
            rules(0).iter().all(|(rule, _)| *rule != "source"),
            "{:?}",
            rules(0)
        );
        assert_eq!(
            rules(1)
                .into_iter()
                .filter(|(rule, _)| *rule == "source")
                .map(|(_, at)| at)
                .collect::<Vec<_>>(),
            [
                "$.ignition.config.merge[0]",
                "$.ignition.config.merge[1]",
                "$.ignition.security.tls.certificateAuthorities[0]"
            ]
        );
    }

    /// An empty path, device or CA source reads as `ignition-validate` words it: "path not
    /// specified", not an empty value "not absolute"; an absent device as an empty one (Go reads
    /// it so, and the schema check lets it through); in spec 3.0 (where the schema requires a
    /// CA's source) an empty one is a URL without a scheme, while an empty merged config's
    /// source is no error there.
    #[test]
    fn empty_paths_devices_and_sources_read_as_ignition_validate_says() {
        let problems = |config: Value, minor| {
            check(&config, FileList::of(&config), minor)
                .unwrap()
                .into_iter()
                .map(|p| (p.rule, p.location.path.unwrap_or_default(), p.message))
                .collect::<Vec<_>>()
        };
        let not_specified = |rule, at: &str| (rule, at.to_string(), "path not specified".into());
        assert_eq!(
            problems(json!({"storage": {"files": [{"path": ""}]}}), 2),
            [not_specified("path", "$.storage.files[0].path")]
        );
        for filesystem in [json!({"device": ""}), json!({})] {
            assert_eq!(
                problems(json!({"storage": {"filesystems": [filesystem]}}), 2),
                [not_specified("device", "$.storage.filesystems[0].device")]
            );
        }
        assert_eq!(
            problems(json!({"storage": {"disks": [{}]}}), 2),
            [(
                "device",
                "$.storage.disks[0].device".to_string(),
                "disk device is required".into()
            )]
        );
        let ca = json!({"ignition": {"security": {"tls": {"certificateAuthorities": [{"source": ""}]}}}});
        let said = problems(ca.clone(), 0);
        assert_eq!(said.len(), 1, "{said:?}");
        let (rule, at, message) = &said[0];
        assert_eq!(
            (*rule, at.as_str()),
            (
                "source",
                "$.ignition.security.tls.certificateAuthorities[0].source"
            )
        );
        assert!(message.starts_with("invalid url scheme"), "{message}");
        assert_eq!(problems(ca, 1)[0].2, "source is required");
        assert!(problems(
            json!({"ignition": {"config": {"merge": [{"source": ""}]}}}),
            0
        )
        .is_empty());
    }

    /// What Ignition's validator takes but a node fails on: a link without a target before 3.3
    /// is an error of the boot (the real Ignition refuses it, as a test runs it), from 3.3 the
    /// validator's own; an array without a name is warned about (the disks stage refuses the
    /// empty name; no test here can run that stage). Two arrays without a name share the empty
    /// one, which the validator refuses.
    #[test]
    fn an_empty_link_target_fails_the_boot_and_an_empty_raid_name_is_warned_about() {
        let problems = |config: Value, minor| {
            check(&config, FileList::of(&config), minor)
                .unwrap()
                .into_iter()
                .map(|p| (p.rule, p.severity, p.check))
                .collect::<Vec<_>>()
        };
        let link = json!({"storage": {"links": [{"path": "/l"}, {"path": "/m", "target": ""}]}});
        let boot = ("link-target", Severity::Error, Check::Boot);
        assert_eq!(problems(link.clone(), 2), [boot, boot]);
        let refused = ("link-target", Severity::Error, Check::Ignition);
        assert_eq!(problems(link, 3), [refused, refused]);
        let array = json!({"level": "raid1", "devices": ["/dev/a"]});
        let raid = json!({"storage": {"raid": [array.clone()]}});
        assert_eq!(
            problems(raid, 0),
            [("raid-name", Severity::Warning, Check::Boot)]
        );
        let two = json!({"storage": {"raid": [array.clone(), array]}});
        assert_eq!(
            problems(two, 4).last(),
            Some(&("duplicate", Severity::Error, Check::Ignition))
        );
    }

    /// Paths and modes of every entry first (directories, files, links), then entries over
    /// directories, then sources: the order does not depend on how the file entries are read.
    #[test]
    fn storage_problems_come_in_the_order_of_the_checks() {
        let config = json!({"storage": {
            "files": [
                {"path": "/a", "overwrite": true},
                {"path": "a", "mode": 8192},
                {"path": "/a/b"}
            ],
            "directories": [{"path": "/a", "mode": -1}],
            "links": [{"path": "/l/", "target": "/x"}]
        }});
        assert_eq!(
            rules_of(config),
            [
                "mode",
                "mode",
                "duplicate",
                "path",
                "mode",
                "path",
                "file-over-directory",
                "overwrite"
            ]
        );
    }
}

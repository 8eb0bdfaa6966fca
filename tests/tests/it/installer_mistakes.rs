//! bootgen's install-config checks against the real installer's: every mistake of
//! `tests/expectations/installer/mistakes/mistakes.yaml` (a small change of `base.yaml`) was
//! given to the `openshift-install` of each recorded release (`recorded/<minor>.toml`, written
//! by `record-mistakes.py`), which accepted it or refused it naming a field. bootgen, for the
//! same release, must decide the same and name the same field; where it refuses what the
//! installer accepts, the mistake must be listed, with its reason, in `stricter.toml` (and in
//! the README's table). A listed check that is no longer stricter anywhere fails too.
//!
//! Every supported release is recorded, OpenShift's from 4.9 and OKD's from 4.12
//! (`recorded/okd-<minor>.toml`, the same source built with `-tags scos`, decided by bootgen
//! with an OKD payload); a mistake not recorded for one of them fails the test, unless
//! `unrecorded.toml` lists it for that release (a mistake added after the release's installer
//! was last rebuilt), which the test then names on every run.

use bootgen::config::parse;
use bootgen::model::{Model, ModelOptions};
use bootgen::Error;
use bootgen_conformance::{repo, HarnessError, Result};
use serde::Deserialize;
use serde_yaml_ng::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

fn mistakes_dir() -> PathBuf {
    repo().join("tests/expectations/installer/mistakes")
}

#[derive(Deserialize)]
struct Mistake {
    about: String,
    patch: Value,
}

#[derive(Deserialize)]
struct Recording {
    version: String,
    mistake: BTreeMap<String, Decision>,
}

#[derive(Deserialize, Debug)]
struct Decision {
    decision: String,
    #[serde(default)]
    fields: Vec<String>,
    #[serde(default)]
    says: String,
}

/// `unrecorded.toml`: mistakes no installer of `releases` has decided yet.
#[derive(Deserialize)]
struct Unrecorded {
    unrecorded: Vec<UnrecordedGroup>,
}

#[derive(Deserialize)]
struct UnrecordedGroup {
    releases: Vec<String>,
    mistakes: Vec<String>,
}

impl Unrecorded {
    fn lists(&self, recording: &str, mistake: &str) -> bool {
        self.unrecorded.iter().any(|g| {
            g.releases.iter().any(|r| r == recording) && g.mistakes.iter().any(|m| m == mistake)
        })
    }
}

#[derive(Deserialize)]
struct Stricter {
    check: Vec<StricterCheck>,
}

/// A mistake bootgen refuses although the installer of `releases` (empty: every recorded
/// one) accepts it.
#[derive(Deserialize)]
struct StricterCheck {
    mistake: String,
    #[serde(default)]
    releases: Vec<String>,
    /// The field bootgen names.
    field: String,
    reason: String,
}

/// RFC 7396: maps merge key by key, anything else replaces, null removes.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Mapping(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_mapping() {
        *target = Value::Mapping(Default::default());
    }
    let Value::Mapping(map) = target else {
        return;
    };
    for (key, value) in patch {
        if value.is_null() {
            map.remove(key);
        } else {
            merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

fn load_mistakes() -> Result<(Value, BTreeMap<String, Mistake>)> {
    let base: Value =
        serde_yaml_ng::from_str(&fs::read_to_string(mistakes_dir().join("base.yaml"))?)
            .map_err(|e| HarnessError(format!("base.yaml: {e}")))?;
    let mistakes: BTreeMap<String, Mistake> =
        serde_yaml_ng::from_str(&fs::read_to_string(mistakes_dir().join("mistakes.yaml"))?)
            .map_err(|e| HarnessError(format!("mistakes.yaml: {e}")))?;
    Ok((base, mistakes))
}

/// The install-config text of a mistake.
fn config_text(base: &Value, mistake: &Mistake) -> Result<String> {
    let mut config = base.clone();
    merge_patch(&mut config, &mistake.patch);
    serde_yaml_ng::to_string(&config).map_err(|e| HarnessError(e.to_string()))
}

fn recordings() -> Result<Vec<(String, Recording)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(mistakes_dir().join("recorded"))? {
        let path = entry?.path();
        let Some(minor) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".toml"))
        else {
            continue;
        };
        let recording: Recording = toml::from_str(&fs::read_to_string(&path)?)
            .map_err(|e| HarnessError(format!("{}: {e}", path.display())))?;
        out.push((minor.to_string(), recording));
    }
    // OpenShift's releases, then OKD's, each in release order (4.9 before 4.10).
    let order = |name: &str| {
        let minor = name.trim_start_matches("okd-");
        let number = |part: Option<&str>| part.and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
        let mut parts = minor.split('.');
        (
            name.starts_with("okd-"),
            number(parts.next()),
            number(parts.next()),
        )
    };
    out.sort_by_key(|(name, _)| order(name));
    Ok(out)
}

/// What bootgen decides for an install-config: `None` to accept, else the error.
fn bootgen_decides(text: &str, version: &str) -> Option<Error> {
    decides_for(text, version, false)
}

/// What bootgen decides for an install-config of OpenShift, or of OKD (with the OKD payload
/// of `version` the installer was run with).
fn decides_for(text: &str, version: &str, okd: bool) -> Option<Error> {
    let loaded = match parse(text, "install-config.yaml") {
        Ok(loaded) => loaded,
        Err(e) => return Some(e),
    };
    let mut options = ModelOptions::default();
    if okd {
        options.release_image = Some(format!("quay.io/okd/scos-release:{version}-okd-scos.0"));
    } else {
        options.release_version = Some(version.to_string());
    }
    Model::new(&loaded, &options).err()
}

/// The field an error names, as the installer prints paths (`compute[0].name`).
fn field_of(error: &Error) -> Option<String> {
    match error {
        Error::InvalidField { field, .. } => Some(field.clone()),
        _ => None,
    }
}

/// The installer names `field` (or the part of the document that holds it, or, for an
/// unknown key, the key alone). Some releases print a list's field without the item's index
/// (`vcenters.password`), and until 5.0 the vCenter's `user` by its Go name, `username`: both
/// name the same field as bootgen's `vcenters[0].user`.
fn names_same_field(bootgen: &str, installer: &[String]) -> bool {
    let plain = |path: &str| {
        let mut out = String::new();
        let mut in_index = false;
        for c in path.chars() {
            match c {
                '[' => in_index = true,
                ']' => in_index = false,
                _ if !in_index => out.push(c),
                _ => {}
            }
        }
        // Installers from 4.13 name the single-vCenter form's `vCenter` by the field they
        // upconvert it to; bootgen names the field as written.
        out.replace("vcenters.username", "vcenters.user").replace(
            "platform.vsphere.vCenter",
            "platform.vsphere.vcenters.server",
        )
    };
    names_field(bootgen, installer) || {
        let installer: Vec<String> = installer.iter().map(|f| plain(f)).collect();
        names_field(&plain(bootgen), &installer)
    }
}

fn names_field(bootgen: &str, installer: &[String]) -> bool {
    installer.is_empty()
        || installer.iter().any(|f| {
            bootgen == f
                || bootgen.ends_with(&format!(".{f}"))
                || bootgen.starts_with(&format!("{f}."))
                || bootgen.starts_with(&format!("{f}["))
                // bootgen names the part that holds the installer's field.
                || (!bootgen.is_empty()
                    && (f.starts_with(&format!("{bootgen}."))
                        || f.starts_with(&format!("{bootgen}["))))
        })
}

#[test]
fn bootgen_refuses_what_each_installer_refuses() -> Result<()> {
    let (base, mistakes) = load_mistakes()?;
    let stricter: Stricter =
        toml::from_str(&fs::read_to_string(mistakes_dir().join("stricter.toml"))?)
            .map_err(|e| HarnessError(format!("stricter.toml: {e}")))?;
    let unrecorded: Unrecorded =
        toml::from_str(&fs::read_to_string(mistakes_dir().join("unrecorded.toml"))?)
            .map_err(|e| HarnessError(format!("unrecorded.toml: {e}")))?;
    let mut not_compared = 0;
    let mut used = vec![false; stricter.check.len()];
    let recordings = recordings()?;
    let minors: Vec<&str> = recordings.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        minors,
        [
            "4.9", "4.10", "4.11", "4.12", "4.13", "4.14", "4.15", "4.16", "4.17", "4.18", "4.19",
            "4.20", "4.21", "4.22", "5.0", "okd-4.12", "okd-4.13", "okd-4.14", "okd-4.15",
            "okd-4.16", "okd-4.17", "okd-4.18", "okd-4.19", "okd-4.20", "okd-4.21", "okd-4.22",
            "okd-5.0"
        ]
    );
    let mut wrong = Vec::new();
    for (recorded, recording) in &recordings {
        // An OKD recording (okd-<minor>) is decided with OKD's payload; stricter.toml's
        // releases name the minor.
        let okd = recorded.starts_with("okd-");
        let minor = &recorded.trim_start_matches("okd-").to_string();
        for (name, mistake) in &mistakes {
            let listed_unrecorded = unrecorded.lists(recorded, name);
            let Some(installer) = recording.mistake.get(name) else {
                if listed_unrecorded {
                    not_compared += 1;
                } else {
                    wrong.push(format!(
                        "{recorded} {name}: not recorded (run record-mistakes.py)"
                    ));
                }
                continue;
            };
            if listed_unrecorded {
                wrong.push(format!(
                    "{recorded} {name}: recorded, but unrecorded.toml lists it (remove it there)"
                ));
            }
            let text = config_text(&base, mistake)?;
            let decided = decides_for(&text, &recording.version, okd);
            let listed = stricter.check.iter().position(|c| {
                c.mistake == *name && (c.releases.is_empty() || c.releases.contains(minor))
            });
            match (installer.decision.as_str(), decided) {
                ("accept", None) => {}
                ("refuse", Some(error)) => {
                    let field = field_of(&error).unwrap_or_default();
                    let same = names_same_field(&field, &installer.fields)
                        // A document the YAML reader refuses names no field.
                        || (installer.fields.is_empty() && matches!(error, Error::Parse { .. }));
                    if !same {
                        wrong.push(format!(
                            "{recorded} {name} ({}): bootgen names `{field}`, the installer {:?}: {error}",
                            mistake.about, installer.fields
                        ));
                    }
                }
                ("accept", Some(error)) => match listed {
                    Some(i) if field_of(&error).as_deref() == Some(&stricter.check[i].field) => {
                        used[i] = true
                    }
                    _ => wrong.push(format!(
                        "{recorded} {name} ({}): the installer accepts it, bootgen refuses (not in stricter.toml with this field): {error}",
                        mistake.about
                    )),
                },
                (_, None) => wrong.push(format!(
                    "{recorded} {name} ({}): the installer refuses it ({:?}: {}), bootgen accepts it",
                    mistake.about, installer.fields, installer.says
                )),
                (other, _) => wrong.push(format!("{recorded} {name}: decision `{other}`")),
            }
        }
        for name in recording.mistake.keys() {
            if !mistakes.contains_key(name) {
                wrong.push(format!(
                    "{recorded} {name}: recorded but not in mistakes.yaml"
                ));
            }
        }
    }
    if not_compared > 0 {
        eprintln!(
            "{not_compared} decisions of mistakes not yet compared with an installer: unrecorded.toml lists them"
        );
    }
    for group in &unrecorded.unrecorded {
        for name in &group.mistakes {
            if !mistakes.contains_key(name) {
                wrong.push(format!(
                    "unrecorded.toml lists {name}, which mistakes.yaml lacks"
                ));
            }
        }
        for release in &group.releases {
            if !minors.contains(&release.as_str()) {
                wrong.push(format!(
                    "unrecorded.toml lists {release}, which is not recorded"
                ));
            }
        }
    }
    for (check, used) in stricter.check.iter().zip(&used) {
        if !used {
            wrong.push(format!(
                "stricter.toml lists {} ({:?}), but bootgen is not stricter there any more",
                check.mistake, check.releases
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    Ok(())
}

/// Every stricter check is in the README's table, with the mistake's name.
#[test]
fn readme_lists_every_stricter_check() -> Result<()> {
    let stricter: Stricter =
        toml::from_str(&fs::read_to_string(mistakes_dir().join("stricter.toml"))?)
            .map_err(|e| HarnessError(format!("stricter.toml: {e}")))?;
    let readme = fs::read_to_string(repo().join("README.md"))?;
    for check in &stricter.check {
        assert!(
            readme.contains(&format!("`{}`", check.mistake)),
            "README.md's Validation table does not list `{}` ({})",
            check.mistake,
            check.reason
        );
        assert!(!check.reason.is_empty());
    }
    Ok(())
}

/// Whether the document has the field (`compute[0].name`, `networking.clusterNetwork[1].cidr`).
fn present(document: &Value, field: &str) -> bool {
    let mut here = document;
    for part in field.split('.') {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        let Some(next) = here.get(key) else {
            return false;
        };
        here = next;
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            let Some(next) = index
                .trim_end_matches(']')
                .parse::<usize>()
                .ok()
                .and_then(|i| here.get(i))
            else {
                return false;
            };
            here = next;
        }
    }
    true
}

/// Each refusal names the file, the field and, when the document has the field, its line;
/// never the pull secret.
#[test]
fn refusals_name_file_field_and_line() -> Result<()> {
    let (base, mistakes) = load_mistakes()?;
    let mut refused = 0;
    for (name, mistake) in &mistakes {
        let text = config_text(&base, mistake)?;
        let document: Value =
            serde_yaml_ng::from_str(&text).map_err(|e| HarnessError(e.to_string()))?;
        for version in ["4.12.0", "4.16.0", "4.22.0", "5.0.0"] {
            let Some(error) = bootgen_decides(&text, version) else {
                continue;
            };
            refused += 1;
            let message = error.to_string();
            assert!(!message.contains("Zm9vOmJhcg=="), "{name}: {message}");
            match error {
                Error::InvalidField {
                    file, field, line, ..
                } => {
                    assert_eq!(file, "install-config.yaml", "{name}");
                    assert!(!field.is_empty(), "{name}");
                    if present(&document, &field) {
                        assert!(line.is_some(), "{name} {version}: `{field}` has no line");
                    }
                    assert!(
                        message.starts_with("install-config.yaml: field `"),
                        "{name} {version}: {message}"
                    );
                }
                Error::Parse { file, line, .. } => {
                    assert_eq!(file, "install-config.yaml", "{name}");
                    assert!(line.is_some(), "{name} {version}: no line");
                }
                other => panic!("{name} {version}: not a field error: {other}"),
            }
        }
    }
    assert!(refused > 100, "only {refused} refusals");
    Ok(())
}

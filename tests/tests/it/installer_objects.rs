//! bootgen against the real installer: for every release and case recorded under
//! `tests/expectations/installer/` (the objects view of what that release's openshift-install
//! wrote for one of our install-configs), bootgen generates for the same install-config and
//! release, and the two views must be equal but for the differences listed, each with its
//! reason, in `known-differences.toml`. A listed difference that no longer occurs fails too, so
//! the list only shrinks.
//!
//! Certificate and key facts (the view's `pem` and `authorities`) are compared too: a recorded
//! view without them (made before the objects view had them) fails, to be recorded again.

use bootgen::report::{diff_objects, ObjectChange, ObjectView};
use bootgen_conformance::{bootgen, repo, run, HarnessError, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

pub(crate) fn oracle_dir() -> PathBuf {
    repo().join("tests/expectations/installer")
}

/// `<minor>/recorded.toml` (`okd-<minor>/` for OKD): which installer made the recordings, for
/// which version and distribution.
#[derive(Deserialize)]
struct Recorded {
    version: String,
    #[serde(default)]
    distribution: Option<String>,
    /// Cases under `cases/` that this installer has not run (added since it was last built):
    /// every other case has its view or its `.refused` here.
    #[serde(default)]
    cases_not_recorded: Vec<String>,
}

/// One recorded folder: its name, the release's minor and version, and whether it is OKD's.
pub(crate) struct Recording {
    pub(crate) folder: String,
    pub(crate) minor: String,
    pub(crate) version: String,
    pub(crate) okd: bool,
    pub(crate) cases_not_recorded: Vec<String>,
}

impl Recording {
    /// The payload the installer was run with, for the case's architecture.
    pub(crate) fn release_image(&self, case_config: &str) -> String {
        if self.okd {
            return format!("quay.io/okd/scos-release:{}-okd-scos.0", self.version);
        }
        let suffix = if case_config.contains("architecture: arm64") {
            "aarch64"
        } else {
            "x86_64"
        };
        format!(
            "quay.io/openshift-release-dev/ocp-release:{}-{suffix}",
            self.version
        )
    }
}

#[derive(Deserialize)]
pub(crate) struct KnownDifferences {
    pub(crate) difference: Vec<Known>,
}

/// A difference bootgen has on purpose or has not closed yet.
#[derive(Deserialize, Debug)]
pub(crate) struct Known {
    /// Minors it applies to; empty: all.
    #[serde(default)]
    releases: Vec<String>,
    /// Cases it applies to; empty: all.
    #[serde(default)]
    cases: Vec<String>,
    /// The one distribution (`ocp`, `okd`) it applies to; unset: both.
    #[serde(default)]
    distribution: Option<String>,
    what: String,
    /// The file's path or unit's name; `*` matches any run of characters.
    name: String,
    /// The field; empty matches the whole entry and every field of it; `*` matches any run
    /// of characters.
    #[serde(default)]
    field: String,
    reason: String,
}

/// A glob with `*` for any run of characters.
fn matches(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(mut text) = text.strip_prefix(head) else {
                return false;
            };
            if rest.is_empty() {
                return true;
            }
            loop {
                if matches(rest, text) {
                    return true;
                }
                let mut chars = text.chars();
                if chars.next().is_none() {
                    return false;
                }
                text = chars.as_str();
            }
        }
    }
}

impl Known {
    pub(crate) fn covers(&self, minor: &str, okd: bool, case: &str, change: &ObjectChange) -> bool {
        let distribution = if okd { "okd" } else { "ocp" };
        (self.releases.is_empty() || self.releases.iter().any(|r| r == minor))
            && self
                .distribution
                .as_deref()
                .is_none_or(|d| d == distribution)
            && (self.cases.is_empty() || self.cases.iter().any(|c| c == case))
            && self.what == change.what
            && matches(&self.name, &change.name)
            && (self.field.is_empty() || matches(&self.field, &change.field))
    }
}

/// The objects view of a config bootgen wrote.
fn view_of(path: &Path) -> Result<ObjectView> {
    let name = path.display().to_string();
    let bytes = fs::read(path)?;
    let doc = bootgen::ignition::IgnitionDoc::parse(&bytes, &name)
        .map_err(|e| HarnessError(e.to_string()))?;
    bootgen::report::object_view(&doc).map_err(|e| HarnessError(e.to_string()))
}

/// The differences between a recorded view and bootgen's. A recorded view without certificate
/// and key facts fails: comparing it would pass over every certificate.
pub(crate) fn compared(
    recording: &Recording,
    what: &str,
    expected: &ObjectView,
    actual: ObjectView,
) -> Result<Vec<ObjectChange>> {
    if !expected.has_pem_facts() {
        return Err(HarnessError(format!(
            "{} {what}: the recorded view has no certificate facts (made before the objects view \
             had them): record it again with record.sh",
            recording.folder
        )));
    }
    // The recordings predate the view's `fetched` (what a pointer config merges): compared
    // without it until they are made again.
    let actual = if expected.has_fetched() {
        actual
    } else {
        actual.without_fetched()
    };
    // Those made before the view kept a TOML file's empty values (registries.conf's
    // `blocked = false`, `insecure = false`) hold none: compared without them until made again.
    let actual = if expected.has_toml_empty_values() {
        actual
    } else {
        actual.without_toml_empty_values()
    };
    Ok(diff_objects(expected, &actual, "installer", "bootgen").changes)
}

/// The key files one case made, which the other cases of its recording reuse (`--tls-dir`):
/// every certificate is still issued afresh for its case, but a recording's RSA keys, the bulk
/// of its time, are made once rather than once a case. bootgen notes a kept key that is not of
/// the type it would make now (`kept the existing ... keys`); such a case is made again afresh,
/// so each case's keys are of the type bootgen chooses for it.
#[derive(Default)]
pub(crate) struct KeyPool(Option<tempfile::TempDir>);

/// The start of bootgen's note about reused keys of another type.
const KEPT_KEYS_OF_ANOTHER_TYPE: &str = "note: kept the existing ";

/// bootgen's views of the case: its bootstrap config, and master.ign where it writes one. With a
/// pool, the case's keys come from it (or go into it).
pub(crate) fn bootgen_view(
    recording: &Recording,
    case: &str,
    out: &Path,
    pool: Option<&mut KeyPool>,
) -> Result<(ObjectView, Option<ObjectView>)> {
    let minor = &recording.folder;
    let case_dir = oracle_dir().join("cases").join(case);
    let config = case_dir.join("install-config.yaml");
    let text = fs::read_to_string(&config)?;
    let generate = |tls_dir: Option<&Path>| {
        let mut cmd = bootgen(env!("CARGO_BIN_EXE_bootgen-under-test"));
        cmd.args(["ignition", "--install-config"])
            .arg(&config)
            // The installer's keys, whose facts are compared.
            .args(["--key-algorithm", "rsa2048", "--release-image"])
            .arg(recording.release_image(&text))
            .arg("--output")
            .arg(out);
        for (flag, sub) in [
            ("--manifests-dir", "manifests"),
            ("--openshift-dir", "openshift"),
        ] {
            if case_dir.join(sub).is_dir() {
                cmd.arg(flag).arg(case_dir.join(sub));
            }
        }
        if let Some(dir) = tls_dir {
            cmd.arg("--tls-dir").arg(dir);
        }
        run(&mut cmd).map_err(|e| HarnessError(format!("{minor} {case}: {e}")))
    };
    match pool {
        Some(KeyPool(Some(keys))) => {
            let output = generate(Some(keys.path()))?;
            if String::from_utf8_lossy(&output.stderr).contains(KEPT_KEYS_OF_ANOTHER_TYPE) {
                fs::remove_dir_all(out)?;
                generate(None)?;
            }
        }
        Some(pool) => {
            generate(None)?;
            let keys = tempfile::tempdir()?;
            for entry in fs::read_dir(out.join("tls"))? {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "key") {
                    fs::copy(
                        &path,
                        keys.path().join(path.file_name().unwrap_or_default()),
                    )?;
                }
            }
            pool.0 = Some(keys);
        }
        None => {
            generate(None)?;
        }
    }
    let name = if out.join("bootstrap.ign").exists() {
        "bootstrap.ign"
    } else {
        "bootstrap-in-place-for-live-iso.ign"
    };
    let master = out.join("master.ign");
    let master = if master.exists() {
        Some(view_of(&master)?)
    } else {
        None
    };
    Ok((view_of(&out.join(name))?, master))
}

pub(crate) fn recordings() -> Result<Vec<Recording>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(oracle_dir())? {
        let path = entry?.path();
        let recorded = path.join("recorded.toml");
        if recorded.is_file() {
            let r: Recorded = toml::from_str(&fs::read_to_string(&recorded)?)
                .map_err(|e| HarnessError(format!("{}: {e}", recorded.display())))?;
            let folder = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let okd = r.distribution.as_deref() == Some("okd");
            let minor = folder.trim_start_matches("okd-").to_string();
            assert_eq!(
                folder.starts_with("okd-"),
                okd,
                "{folder}: an OKD recording lives in okd-<minor>/ and says distribution = \"okd\""
            );
            found.push(Recording {
                folder,
                minor,
                version: r.version,
                okd,
                cases_not_recorded: r.cases_not_recorded,
            });
        }
    }
    found.sort_by(|a, b| a.folder.cmp(&b.folder));
    Ok(found)
}

/// Every recording has every case of `cases/`, as its view or as the installer's refusal, but
/// the cases its `recorded.toml` says it has not run; the test names how many those are.
#[test]
fn every_recording_has_every_case_or_says_it_has_not() -> Result<()> {
    let mut cases: Vec<String> = fs::read_dir(oracle_dir().join("cases"))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    cases.sort();
    let mut wrong = Vec::new();
    let mut not_recorded = 0;
    for recording in recordings()? {
        let folder = oracle_dir().join(&recording.folder);
        for case in &cases {
            let present = folder.join(format!("{case}.json")).is_file()
                || folder.join(format!("{case}.refused")).is_file();
            let said = recording.cases_not_recorded.contains(case);
            match (present, said) {
                (false, false) => wrong.push(format!(
                    "{}: no view or refusal of {case} (record it, or list it in cases_not_recorded)",
                    recording.folder
                )),
                (true, true) => wrong.push(format!(
                    "{}: {case} is recorded, but cases_not_recorded lists it (remove it there)",
                    recording.folder
                )),
                (false, true) => not_recorded += 1,
                (true, false) => {}
            }
        }
        for case in &recording.cases_not_recorded {
            if !cases.contains(case) {
                wrong.push(format!(
                    "{}: cases_not_recorded lists {case}, which cases/ lacks",
                    recording.folder
                ));
            }
        }
    }
    if not_recorded > 0 {
        eprintln!(
            "{not_recorded} case recordings missing: recorded.toml's cases_not_recorded lists them"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    Ok(())
}

/// Every supported release is recorded, for OpenShift and for OKD where the release has it:
/// the recordings are the only statement of the files, modes and units a release's node holds,
/// so a release without one would go unchecked.
#[test]
fn every_supported_release_is_recorded() -> Result<()> {
    let recorded: Vec<String> = recordings()?.into_iter().map(|r| r.folder).collect();
    let mut missing = Vec::new();
    for profile in bootgen::release::PROFILES.iter() {
        let minor = profile.minor.to_string();
        let okd = profile
            .distribution(bootgen::release::Distribution::Okd)
            .is_some();
        for folder in std::iter::once(minor.clone()).chain(okd.then(|| format!("okd-{minor}"))) {
            if !recorded.contains(&folder) {
                missing.push(folder);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "supported releases with no recording under {} (record them with record.sh): {missing:?}",
        oracle_dir().display()
    );
    Ok(())
}

pub(crate) fn known_differences() -> Result<KnownDifferences> {
    toml::from_str(&fs::read_to_string(
        oracle_dir().join("known-differences.toml"),
    )?)
    .map_err(|e| HarnessError(format!("known-differences.toml: {e}")))
}

#[test]
fn bootgen_writes_the_objects_the_installer_writes() -> Result<()> {
    let known = known_differences()?;
    let mut used = vec![false; known.difference.len()];
    let mut unexplained = Vec::new();
    let recorded = recordings()?;
    assert!(
        !recorded.is_empty(),
        "no recorded release under {}",
        oracle_dir().display()
    );
    let mut compared_cases = 0;
    for recording in &recorded {
        let (folder, minor) = (&recording.folder, &recording.minor);
        let mut cases: Vec<PathBuf> = fs::read_dir(oracle_dir().join(folder))?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        cases.sort();
        let mut pool = KeyPool::default();
        for path in cases {
            let Some(case) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
                .filter(|n| !n.contains('.'))
            else {
                continue;
            };
            let expected: ObjectView = serde_json::from_slice(&fs::read(&path)?)
                .map_err(|e| HarnessError(format!("{}: {e}", path.display())))?;
            let out = tempfile::tempdir()?;
            let (actual, master) =
                bootgen_view(recording, case, &out.path().join("out"), Some(&mut pool))?;
            compared_cases += 1;
            let mut changes = compared(recording, case, &expected, actual)?;
            // The pointer config the control plane boots from, where the installer wrote one.
            let recorded_master = oracle_dir()
                .join(folder)
                .join(format!("{case}.master.json"));
            if recorded_master.is_file() {
                let expected: ObjectView = serde_json::from_slice(&fs::read(&recorded_master)?)
                    .map_err(|e| HarnessError(format!("{}: {e}", recorded_master.display())))?;
                let actual = master.ok_or_else(|| {
                    HarnessError(format!("{folder} {case}: bootgen wrote no master.ign"))
                })?;
                for mut change in compared(recording, case, &expected, actual)? {
                    change.name = format!("master.ign {}", change.name);
                    changes.push(change);
                }
            }
            for change in &changes {
                match known
                    .difference
                    .iter()
                    .position(|k| k.covers(minor, recording.okd, case, change))
                {
                    Some(i) => used[i] = true,
                    None => unexplained.push(format!(
                        "{folder} {case}: {} {} {}: installer {} / bootgen {}",
                        change.what,
                        change.name,
                        change.field,
                        change
                            .old
                            .as_ref()
                            .map_or("(absent)".into(), |v| v.to_string()),
                        change
                            .new
                            .as_ref()
                            .map_or("(absent)".into(), |v| v.to_string()),
                    )),
                }
            }
        }
    }
    let stale: Vec<String> = known
        .difference
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(k, _)| format!("{} {} {} ({})", k.what, k.name, k.field, k.reason))
        .collect();
    assert!(compared_cases > 0, "no recorded case was compared");
    assert!(
        unexplained.is_empty(),
        "{} differences from the installer that known-differences.toml does not explain:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        stale.is_empty(),
        "known differences that no longer occur (remove them):\n{}",
        stale.join("\n")
    );
    Ok(())
}

/// Where a release's installer refused a case (`<case>.refused`, with its error), bootgen refuses
/// it too for that release, as bad input (exit 1), naming the install-config field the installer
/// named (or one below it), where it named one.
#[test]
fn bootgen_refuses_what_the_installer_refused() -> Result<()> {
    let mut checked = 0;
    for recording in recordings()? {
        let minor = &recording.folder;
        for entry in fs::read_dir(oracle_dir().join(minor))? {
            let path = entry?.path();
            let Some(case) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".refused"))
            else {
                continue;
            };
            let installer = fs::read_to_string(&path)?;
            // The installer's fields: `...invalid "install-config.yaml" file: <field>: ...`, or a
            // list of errors, `[<field>: ..., <field>: ...]`.
            let fields: Vec<String> = installer
                .split("install-config.yaml\" file: ")
                .nth(1)
                .unwrap_or_default()
                .trim_start_matches('[')
                .split(", ")
                .filter_map(|error| error.split_once(": ").map(|(field, _)| field))
                .filter(|field| field.starts_with(char::is_alphabetic) && !field.contains(' '))
                .map(str::to_string)
                // An installer that refuses unknown fields (4.10, 4.11): `unknown field "<key>"`.
                .chain(
                    installer
                        .split("unknown field \"")
                        .skip(1)
                        .filter_map(|rest| rest.split('"').next())
                        .map(str::to_string),
                )
                .collect();
            let config = oracle_dir()
                .join("cases")
                .join(case)
                .join("install-config.yaml");
            let out = tempfile::tempdir()?;
            let image = recording.release_image(&fs::read_to_string(&config)?);
            let output = bootgen(env!("CARGO_BIN_EXE_bootgen-under-test"))
                .args(["ignition", "--install-config"])
                .arg(&config)
                .args(["--release-image", &image, "--output"])
                .arg(out.path().join("out"))
                .output()?;
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{minor} {case}: the installer refused it ({installer}), bootgen did not:\n{stderr}"
            );
            // An error of a later asset (the machines') names no field. Some installers put a
            // list's index after the field rather than the item (`failureDomains.name[1]`): the
            // same field, compared without indices.
            let plain_stderr = without_indices(&stderr);
            assert!(
                fields.is_empty()
                    || fields.iter().any(|field| {
                        stderr.contains(field.as_str())
                            || plain_stderr.contains(&without_indices(field))
                    }),
                "{minor} {case}: the installer named {fields:?}; bootgen said:\n{stderr}"
            );
            assert!(
                !out.path().join("out").exists(),
                "{minor} {case}: output written"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no refused case recorded");
    Ok(())
}

/// The comparison itself must see a difference: a recorded view with one field changed is
/// reported at that field.
#[test]
fn a_changed_object_is_reported_at_its_field() -> Result<()> {
    let recording = recordings()?
        .into_iter()
        .find(|r| !r.okd)
        .ok_or_else(|| HarnessError("no recorded release".into()))?;
    let path = oracle_dir().join(&recording.folder).join("compact.json");
    let expected: ObjectView = serde_json::from_slice(&fs::read(&path)?)
        .map_err(|e| HarnessError(format!("{}: {e}", path.display())))?;
    let mut changed = expected.clone();
    let infra = "/opt/openshift/manifests/cluster-infrastructure-02-config.yml";
    let object = changed
        .files
        .get_mut(infra)
        .and_then(|f| f.object.as_mut())
        .and_then(|o| o.pointer_mut("/status"))
        .and_then(|s| s.as_object_mut())
        .ok_or_else(|| HarnessError(format!("{infra} has no status in {}", path.display())))?;
    let uri = object
        .remove("apiServerInternalURI")
        .ok_or_else(|| HarnessError("no apiServerInternalURI recorded".into()))?;
    object.insert("apiServerInternalURL".into(), uri);
    let diff = diff_objects(&expected, &changed, "installer", "bootgen");
    let fields: BTreeMap<&str, &str> = diff
        .changes
        .iter()
        .map(|c| (c.field.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(fields.len(), 2, "{diff}");
    assert_eq!(fields["object.status.apiServerInternalURI"], infra);
    assert_eq!(fields["object.status.apiServerInternalURL"], infra);
    Ok(())
}

#[test]
fn known_difference_patterns_are_globs() {
    assert!(matches(
        "/a/*-secret.yaml",
        "/a/master-user-data-secret.yaml"
    ));
    assert!(matches(
        "/usr/local/bin/release-image*",
        "/usr/local/bin/release-image.sh"
    ));
    assert!(matches("images*", "images[0]"));
    assert!(!matches("/a/*-secret.yaml", "/a/master-secret.yml"));
    assert!(matches("exact", "exact") && !matches("exact", "exact2"));
}

/// `text` without the `[<index>]` of every list item it names.
fn without_indices(text: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in text.chars() {
        match c {
            '[' => in_index = true,
            ']' if in_index => in_index = false,
            _ if !in_index => out.push(c),
            _ => {}
        }
    }
    out
}

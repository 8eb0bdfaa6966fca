//! `bootgen patch` on what the real installer wrote: the files of its bootstrap.ign that the
//! patch reads and changes, recorded from each release's `openshift-install` on our own cases
//! (`tests/expectations/installer/patch/<minor>/<case>.ign`, made by `record-patch-inputs.py`:
//! registries.conf, the pull secrets, the mirror manifests and the trust anchors as the installer
//! wrote them, its release-image scripts reduced to the words that name the release image).
//! A mirror given on the command line must reach every place the installer named the release,
//! keep every mirror the installer wrote, and take the mirror manifests that release's installer
//! would have written; blocking a source is refused where the release cannot say it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::{ignition_validate, repo, IgnitionView};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

const SOURCE: &str = "quay.io/openshift-release-dev";
const MIRROR: &str = "mirror.lab.example.org:5000/ocp";
const SCRIPTS: [&str; 2] = [
    "/usr/local/bin/release-image-download.sh",
    "/usr/local/bin/release-image.sh",
];
const REGISTRIES: &str = "/etc/containers/registries.conf";
const IDMS: &str = "/opt/openshift/manifests/image-digest-mirror-set.yaml";

/// Every recorded config: (minor, case, path), in order.
fn recorded() -> Vec<(String, String, PathBuf)> {
    let dir = repo().join("tests/expectations/installer/patch");
    let mut found = Vec::new();
    for minor in fs::read_dir(&dir).unwrap().flatten() {
        if !minor.path().is_dir() {
            continue;
        }
        for case in fs::read_dir(minor.path()).unwrap().flatten() {
            let path = case.path();
            if path.extension().is_some_and(|e| e == "ign") {
                found.push((
                    minor.file_name().to_string_lossy().into_owned(),
                    path.file_stem().unwrap().to_string_lossy().into_owned(),
                    path,
                ));
            }
        }
    }
    found.sort();
    found
}

fn minor_number(minor: &str) -> (u32, u32) {
    let (major, minor) = minor.split_once('.').unwrap();
    (major.parse().unwrap(), minor.parse().unwrap())
}

fn text(view: &IgnitionView, path: &str) -> String {
    view.files
        .get(path)
        .map(|f| String::from_utf8(f.expected(None)).unwrap())
        .unwrap_or_default()
}

fn patch(input: &Path, out: &Path, extra: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .arg("patch")
        .arg(input)
        .args(["--mirror", &format!("{SOURCE}={MIRROR}")])
        .args(["--insecure-registry", "mirror.lab.example.org:5000"])
        .args(extra)
        .arg("--output")
        .arg(out)
        .output()
        .unwrap()
}

/// The registries of a registries.conf: each location with its mirrors' locations.
fn registries(toml_text: &str) -> Vec<(String, Vec<String>)> {
    let value: toml::Value = toml::from_str(toml_text).unwrap();
    value
        .get("registry")
        .and_then(|r| r.as_array())
        .map(|list| {
            list.iter()
                .map(|r| {
                    let location = r["location"].as_str().unwrap().to_string();
                    let mirrors = r
                        .get("mirror")
                        .and_then(|m| m.as_array())
                        .map(|m| {
                            m.iter()
                                .map(|m| m["location"].as_str().unwrap().to_string())
                                .collect()
                        })
                        .unwrap_or_default();
                    (location, mirrors)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The (source, mirrors) pairs of every mirror manifest of a config, and the kinds written.
fn mirror_manifests(view: &IgnitionView) -> (Vec<(String, Vec<String>)>, BTreeSet<String>) {
    let mut pairs = Vec::new();
    let mut kinds = BTreeSet::new();
    for (path, file) in &view.files {
        if !path.starts_with("/opt/openshift/manifests/image-") {
            continue;
        }
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_slice(&file.expected(None)).unwrap();
        kinds.insert(doc["kind"].as_str().unwrap().to_string());
        let spec = &doc["spec"];
        let list = spec
            .get("imageDigestMirrors")
            .or_else(|| spec.get("repositoryDigestMirrors"))
            .and_then(|l| l.as_sequence())
            .cloned()
            .unwrap_or_default();
        for entry in list {
            let mirrors = entry["mirrors"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            pairs.push((entry["source"].as_str().unwrap().to_string(), mirrors));
        }
    }
    (pairs, kinds)
}

#[test]
fn a_mirror_reaches_every_place_the_installer_named_the_release() {
    let cases = recorded();
    let minors: BTreeSet<&str> = cases.iter().map(|(m, ..)| m.as_str()).collect();
    assert!(
        minors.len() >= 3,
        "configs of at least three releases are recorded: {minors:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    for (minor, case, input) in &cases {
        let label = format!("{minor} {case}");
        let before = IgnitionView::load(input).unwrap();
        let out = dir.path().join(format!("{minor}-{case}.ign"));
        let output = patch(input, &out, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{label}: {stderr}");
        let after = IgnitionView::load(&out).unwrap();

        // The release image: every mention moved to where the mirrors send it (the installer's
        // own, more specific mirror of the release repository where it wrote one).
        let release = text(&before, SCRIPTS[0])
            .lines()
            .find_map(|l| l.strip_prefix("RELEASE_IMAGE="))
            .unwrap()
            .to_string();
        let installer_registries = registries(&text(&before, REGISTRIES));
        let (location, mirror) = installer_registries
            .iter()
            .filter(|(location, mirrors)| {
                !mirrors.is_empty()
                    && release.strip_prefix(location.as_str()).is_some_and(|rest| {
                        rest.starts_with('/') || rest.starts_with(':') || rest.starts_with('@')
                    })
            })
            .max_by_key(|(location, _)| location.len())
            .map(|(l, m)| (l.clone(), m[0].clone()))
            .unwrap_or_else(|| (SOURCE.to_string(), MIRROR.to_string()));
        let moved = format!("{mirror}{}", &release[location.len()..]);
        for script in SCRIPTS {
            let (old, new) = (text(&before, script), text(&after, script));
            let mentions = old.matches(release.as_str()).count();
            assert!(mentions > 0, "{label}: {script} names no release");
            assert_eq!(
                new.matches(&moved).count(),
                mentions,
                "{label}: {script}:\n{new}"
            );
            assert!(
                !new.contains(&release),
                "{label}: {script} still names {release}"
            );
        }

        // registries.conf: the installer's mirrors kept, the new one added.
        let patched = registries(&text(&after, REGISTRIES));
        for registry in &installer_registries {
            assert!(patched.contains(registry), "{label}: lost {registry:?}");
        }
        assert!(
            patched.contains(&(SOURCE.to_string(), vec![MIRROR.to_string()])),
            "{label}: {patched:?}"
        );
        // The blocked line as that installer writes it: in every table where it says `blocked`
        // in each (from 4.21), else in none (nothing here is blocked); an installer's file
        // without tables does not say.
        let blocked_lines = |text: &str| {
            let value: toml::Value = toml::from_str(text).unwrap();
            let tables = value
                .get("registry")
                .and_then(|r| r.as_array())
                .cloned()
                .unwrap_or_default();
            let said = tables.iter().filter(|t| t.get("blocked").is_some()).count();
            (said, tables.len())
        };
        let (said, tables) = blocked_lines(&text(&before, REGISTRIES));
        let (said_after, tables_after) = blocked_lines(&text(&after, REGISTRIES));
        if tables > 0 {
            let want = if said == tables { tables_after } else { 0 };
            assert_eq!(said_after, want, "{label}: {}", text(&after, REGISTRIES));
        }

        // The cluster's mirror manifests, as that release's installer writes them: an IDMS
        // from 4.14 (beside an ICSP the installer wrote for imageContentSources), numbered
        // ICSPs before.
        let (installer_pairs, _) = mirror_manifests(&before);
        let (pairs, kinds) = mirror_manifests(&after);
        for pair in &installer_pairs {
            assert!(pairs.contains(pair), "{label}: lost {pair:?}");
        }
        assert!(
            pairs.contains(&(SOURCE.to_string(), vec![MIRROR.to_string()])),
            "{label}: {pairs:?}"
        );
        if minor_number(minor) < (4, 14) {
            assert!(
                !after.files.contains_key(IDMS),
                "{label}: an IDMS before 4.14"
            );
            assert_eq!(
                kinds,
                BTreeSet::from(["ImageContentSourcePolicy".to_string()])
            );
        } else {
            assert!(
                kinds.contains("ImageDigestMirrorSet")
                    || kinds.contains("ImageContentSourcePolicy"),
                "{label}: {kinds:?}"
            );
        }

        // The installer's other files are left as they were.
        for (path, file) in &before.files {
            if SCRIPTS.contains(&path.as_str())
                || path == REGISTRIES
                || path.starts_with("/opt/openshift/manifests/image-")
            {
                continue;
            }
            assert_eq!(
                after.files[path].expected(None),
                file.expected(None),
                "{label}: {path} changed"
            );
        }
        let (clean, report) = ignition_validate(&out);
        assert!(clean, "{label}: ignition-validate: {report}");
    }
}

#[test]
fn blocking_the_source_is_refused_where_the_release_cannot_say_it() {
    let dir = tempfile::tempdir().unwrap();
    for (minor, case, input) in recorded().iter().filter(|(_, case, _)| case == "compact") {
        let label = format!("{minor} {case}");
        let out = dir.path().join(format!("{minor}-{case}-blocked.ign"));
        let output = patch(input, &out, &["--block-source"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if minor_number(minor) < (4, 14) {
            assert_eq!(output.status.code(), Some(1), "{label}: {stderr}");
            assert!(stderr.contains(minor.as_str()), "{label}: {stderr}");
            assert!(!out.exists(), "{label}: written");
        } else {
            assert!(output.status.success(), "{label}: {stderr}");
            let after = IgnitionView::load(&out).unwrap();
            let idms = text(&after, IDMS);
            assert!(
                idms.contains("NeverContactSource") && idms.contains(SOURCE),
                "{label}: {idms}"
            );
            let conf = text(&after, REGISTRIES);
            assert!(conf.contains("blocked = true"), "{label}: {conf}");
        }
    }
}

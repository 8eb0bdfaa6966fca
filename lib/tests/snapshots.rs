//! Snapshots a reviewer can read. One whole readable view of what the minimal fixture makes
//! (bootstrap.ign, and the master and worker pointer configs); then for every fixture
//! install-config under `fixtures/install-configs/valid/` (insta's glob, so a new fixture gets
//! its snapshot by being there) and every variation of the options (debug mode, the
//! architectures), the SHA-256 of each raw config, so that any changed byte fails, and what its
//! readable view differs in from the minimal one's, entry by entry, so that the snapshot shows
//! what changed. All made with the fixture PKI and a fixed clock, so the output is exact; and
//! the golden view of the embedded default, which is what users see. Update with
//! `cargo insta review`; CI never writes snapshots.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen::{config, generate, ignition, Arch, Generated, Options};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One hour after the fixture PKI was made, so every certificate is valid.
fn fixture_options() -> Options {
    let now = time::macros::datetime!(2026-01-01 01:00 UTC);
    let mut options = Options::new(now);
    options.tls_dir = Some(repo().join("fixtures/pki"));
    options
}

/// The options a fixture is generated with: the fixture PKI and clock, and for the fixture
/// that stands for a cluster with manifests of its own, those manifests.
fn options_for(name: &str) -> Options {
    let mut options = fixture_options();
    if name == "user-manifests.yaml" {
        options.manifests_dir = Some(repo().join("fixtures/manifests/extra"));
    }
    options
}

fn fixture(name: &str) -> config::LoadedConfig {
    let path = repo().join("fixtures/install-configs/valid").join(name);
    let mut loaded = config::load(&path).expect("fixture loads");
    // Messages and stored copies must not depend on where the repo is checked out.
    loaded.source_name = format!("fixtures/install-configs/valid/{name}");
    loaded
}

/// The three configs of a generation: name and raw bytes.
fn configs(generated: &Generated) -> [(&'static str, Vec<u8>); 3] {
    [
        ("bootstrap.ign", generated.bootstrap.to_bytes()),
        ("master.ign", generated.master.to_bytes()),
        ("worker.ign", generated.worker.to_bytes()),
    ]
}

/// A long `data:` URL as its length and digest, so a pointer config reads in a few lines.
fn summarize_data_urls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) if text.starts_with("data:") && text.len() > 80 => {
            let summary = format!("<data URL of {} bytes, {}>", text.len(), digest(&*text));
            *text = summary;
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(summarize_data_urls),
        serde_json::Value::Object(map) => map.values_mut().for_each(summarize_data_urls),
        _ => {}
    }
}

fn digest(bytes: impl AsRef<[u8]>) -> String {
    let hash = Sha256::digest(bytes.as_ref());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The readable view of a generation: bootstrap.ign as `ignition::readable_view` shows it, then
/// each pointer config as indented JSON, as one entry each.
fn view_of(generated: &Generated) -> String {
    let decoded = ignition::decode(&generated.bootstrap).expect("config decodes");
    let mut out = ignition::readable_view(&decoded);
    for (name, bytes) in configs(generated).into_iter().skip(1) {
        let mut json: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        summarize_data_urls(&mut json);
        let pretty = serde_json::to_string_pretty(&json).expect("JSON prints");
        let _ = write!(out, "\n== config {name}\n{pretty}\n");
    }
    out
}

fn generated(loaded: &config::LoadedConfig, options: &Options) -> Generated {
    generate(loaded, options).expect("fixture generates")
}

/// One entry of a readable view: what it is (`file /etc/motd`, `unit kubelet.service`), and its
/// text from its `== ` line on.
struct Entry<'a> {
    key: String,
    text: &'a str,
}

fn entries(view: &str) -> Vec<Entry<'_>> {
    let mut out = Vec::new();
    let mut rest = view;
    loop {
        let end = rest.find("\n== ").map_or(rest.len(), |i| i + 1);
        let (text, tail) = rest.split_at(end);
        let key = text
            .strip_prefix("== ")
            .map_or("(head)".to_string(), |line| {
                line.split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            });
        out.push(Entry { key, text });
        if tail.is_empty() {
            return out;
        }
        rest = tail;
    }
}

/// What `view` differs in from `base`, entry by entry: entries added (in full), removed (by
/// their line), and changed (as a unified diff of the entry).
fn differences(base: &str, view: &str) -> String {
    let before = entries(base);
    let after = entries(view);
    let mut out = String::new();
    for entry in &after {
        match before.iter().find(|b| b.key == entry.key) {
            None => {
                let _ = writeln!(out, "+++ added {}", entry.key);
                for line in entry.text.trim_end().lines() {
                    let _ = writeln!(out, "+{line}");
                }
            }
            Some(old) if old.text != entry.text => {
                let _ = writeln!(out, "~~~ changed {}", entry.key);
                let diff = similar::TextDiff::from_lines(old.text, entry.text);
                for hunk in diff.unified_diff().context_radius(2).iter_hunks() {
                    let _ = write!(out, "{hunk}");
                }
            }
            Some(_) => {}
        }
    }
    for entry in &before {
        if !after.iter().any(|a| a.key == entry.key) {
            let first = entry.text.lines().next().unwrap_or_default();
            let _ = writeln!(out, "--- removed {}", first.trim_start_matches("== "));
        }
    }
    if out.is_empty() {
        out.push_str("(no difference)\n");
    }
    out
}

/// The snapshot of one generation: the digest of every raw config, then its differences from
/// `base` (the readable view `base_name` names).
fn pinned_differences(generated: &Generated, base: &str, base_name: &str) -> String {
    let mut out = String::from("raw configs:\n");
    for (name, bytes) in configs(generated) {
        let _ = writeln!(out, "  {name} {}", digest(&bytes));
    }
    let _ = write!(out, "\nreadable view, against {base_name}:\n");
    out.push_str(&differences(base, &view_of(generated)));
    out
}

fn minimal_view() -> String {
    view_of(&generated(
        &fixture("minimal.yaml"),
        &options_for("minimal.yaml"),
    ))
}

/// The one whole view: what the minimal fixture makes, which every other snapshot is read
/// against.
#[test]
fn minimal() {
    insta::assert_snapshot!(minimal_view());
}

/// Every valid fixture: its raw configs pinned by digest, and what it changes from the minimal
/// one.
#[test]
fn every_fixture() {
    let base = minimal_view();
    insta::glob!("../../fixtures/install-configs/valid", "*.yaml", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let generated = generated(&fixture(name), &options_for(name));
        insta::assert_snapshot!(pinned_differences(&generated, &base, "minimal.yaml"));
    });
}

#[test]
fn debug_mode_holds_bootkube() {
    let mut options = options_for("minimal.yaml");
    options.passes.debug = true;
    let generated = generated(&fixture("minimal.yaml"), &options);
    insta::assert_snapshot!(pinned_differences(
        &generated,
        &minimal_view(),
        "minimal.yaml"
    ));
}

/// The embedded default against the minimal fixture on amd64, and on every other architecture
/// against itself on amd64, so each snapshot holds only what that architecture changes.
#[test]
fn embedded_default_per_architecture() {
    let loaded = config::load_default().expect("default loads");
    let on = |arch| {
        let mut options = fixture_options();
        options.model.arch = Some(arch);
        generated(&loaded, &options)
    };
    let amd64 = on(Arch::Amd64);
    insta::assert_snapshot!(
        "default-amd64",
        pinned_differences(&amd64, &minimal_view(), "minimal.yaml")
    );
    let base = view_of(&amd64);
    for arch in Arch::all().filter(|a| *a != Arch::Amd64) {
        insta::assert_snapshot!(
            format!("default-{arch}"),
            pinned_differences(&on(arch), &base, "the default on amd64")
        );
    }
}

/// The golden view of the embedded default with a fresh PKI and today's clock: it needs no
/// pinned PKI, because the view holds only what the inputs decide (see `bootgen::golden`).
#[test]
fn golden_view_of_the_default_cluster() {
    let loaded = config::load_default().expect("default loads");
    let generated = generate(&loaded, &Options::new(time::OffsetDateTime::now_utc()))
        .expect("default generates");
    let out = tempfile::tempdir().unwrap();
    bootgen::output::write_dir(
        out.path(),
        &bootgen::output::output_files(&generated),
        bootgen::output::ExistingConfigs::Refuse,
    )
    .unwrap();
    insta::assert_snapshot!(bootgen::golden::view_dir(out.path()).unwrap());
}

/// The differences are read entry by entry: an added entry in full, a removed one by its line,
/// a changed one as the lines that changed; identical views have none.
#[test]
fn differences_name_each_entry() {
    let base = "ignition 3.2.0\n\n== file /a mode 0644 overwrite\none\ntwo\n\n== unit x.service enabled=true\n[Unit]\n";
    let view = "ignition 3.2.0\n\n== file /a mode 0600 overwrite\none\nthree\n\n== file /b mode 0644 overwrite\nnew\n";
    let diff = differences(base, view);
    assert!(diff.contains("~~~ changed file /a\n"), "{diff}");
    assert!(diff.contains("-== file /a mode 0644 overwrite\n"), "{diff}");
    assert!(diff.contains("+three\n"), "{diff}");
    assert!(
        diff.contains("+++ added file /b\n+== file /b mode 0644 overwrite\n+new\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- removed unit x.service enabled=true\n"),
        "{diff}"
    );
    assert_eq!(differences(base, base), "(no difference)\n");
}

/// An x86_64 bootstrap host installing an arm64 cluster: the bootstrap's own checks expect
/// amd64, everything the cluster reads says arm64, and the payload must be multi-arch.
#[test]
fn bootstrap_arch_differs_from_the_cluster() {
    let mut options = fixture_options();
    options.model.arch = Some(Arch::Arm64);
    options.model.bootstrap_arch = Some(Arch::Amd64);
    let generated = generate(&config::load_default().unwrap(), &options).unwrap();
    assert!(generated.model.release_image.ends_with("-multi"));
    let arch = &generated.metadata.architecture;
    assert_eq!(
        (arch.control_plane.as_str(), arch.bootstrap.as_str()),
        ("arm64", "amd64")
    );
    assert_eq!(arch.compute["worker"], "arm64");
    let decoded = ignition::decode(&generated.bootstrap).unwrap();
    let text = |path: &str| {
        let file = decoded.files.iter().find(|f| f.path == path).unwrap();
        String::from_utf8(file.contents.clone().unwrap()).unwrap()
    };
    assert!(text("/usr/local/bin/release-image-download.sh").contains("CONFIG_ARCH='amd64'"));
    let cluster_config = text("/opt/openshift/manifests/cluster-config.yaml");
    assert!(
        cluster_config.contains("architecture: arm64"),
        "{cluster_config}"
    );
    assert!(!cluster_config.contains("amd64"), "{cluster_config}");
}

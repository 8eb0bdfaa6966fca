//! Golden snapshots: for each fixture install-config, a readable decoded view of
//! bootstrap.ign, generated with the fixture PKI and a fixed clock so the output is exact.
//! Update with `cargo insta review`; CI never writes snapshots.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen::{config, generate, ignition, Arch, Options};
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

fn view_of(loaded: &config::LoadedConfig, options: &Options) -> String {
    let generated = generate(loaded, options).expect("fixture generates");
    let decoded = ignition::decode(&generated.bootstrap).expect("config decodes");
    ignition::readable_view(&decoded)
}

fn fixture(name: &str) -> config::LoadedConfig {
    let path = repo().join("fixtures/install-configs/valid").join(name);
    let mut loaded = config::load(&path).expect("fixture loads");
    // Messages and stored copies must not depend on where the repo is checked out.
    loaded.source_name = format!("fixtures/install-configs/valid/{name}");
    loaded
}

#[test]
fn minimal() {
    insta::assert_snapshot!(view_of(&fixture("minimal.yaml"), &fixture_options()));
}

#[test]
fn proxy_and_trust_bundle() {
    insta::assert_snapshot!(view_of(
        &fixture("proxy-trust-bundle.yaml"),
        &fixture_options()
    ));
}

#[test]
fn ipv6_service_network() {
    insta::assert_snapshot!(view_of(&fixture("ipv6.yaml"), &fixture_options()));
}

#[test]
fn mirrors() {
    insta::assert_snapshot!(view_of(&fixture("mirrors.yaml"), &fixture_options()));
}

#[test]
fn user_manifests() {
    let mut options = fixture_options();
    options.manifests_dir = Some(repo().join("fixtures/manifests/extra"));
    insta::assert_snapshot!(view_of(&fixture("user-manifests.yaml"), &options));
}

#[test]
fn debug_mode_holds_bootkube() {
    let mut options = fixture_options();
    options.passes.debug = true;
    insta::assert_snapshot!(view_of(&fixture("minimal.yaml"), &options));
}

#[test]
fn embedded_default_per_architecture() {
    for arch in Arch::all() {
        let mut options = fixture_options();
        options.model.arch = Some(arch);
        let loaded = config::load_default().expect("default loads");
        insta::assert_snapshot!(format!("default-{arch}"), view_of(&loaded, &options));
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

#[test]
fn raw_configs_are_pinned() {
    let generated = generate(&fixture("minimal.yaml"), &fixture_options()).expect("generates");
    for (name, doc) in [
        ("raw-bootstrap", &generated.bootstrap),
        ("raw-master", &generated.master),
        ("raw-worker", &generated.worker),
    ] {
        let text = String::from_utf8(doc.to_bytes()).expect("JSON is UTF-8");
        insta::assert_snapshot!(name, text);
    }
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

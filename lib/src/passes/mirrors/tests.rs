//! The mirror pass and its pre-flight on a config shaped like openshift-install's
//! (`fixtures/mirrors/installer-shaped.ign`) and on bootgen's own, plus every option parser.

use super::*;
use crate::checks::preflight::{self, CaCheck, NameCheck, ReleaseChosenBy, Resolution, Severity};
use crate::ignition::IgnitionDoc;
use crate::passes::{file_entries, file_text};
use base64::Engine;

const FIXTURE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/mirrors/installer-shaped.ign"
));
const FIXTURE_RELEASE_DIGEST: &str =
    "@sha256:5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";

fn fixture() -> IgnitionDoc {
    IgnitionDoc::parse(FIXTURE.as_bytes(), "installer-shaped.ign").unwrap()
}

/// A self-signed CA certificate (PEM) named `cn`, for tests across the mirrors module.
pub(super) fn ca_pem(cn: &str) -> String {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, cn);
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    params.self_signed(&key).unwrap().pem()
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn full_options() -> MirrorOptions {
    let auth = format!(
        r#"{{"auths":{{"mirror.new.example:8443":{{"auth":"{}"}},"registry.lab.example:5000":{{"auth":"{}"}}}}}}"#,
        b64("new:new-password"),
        b64("lab:rotated-password")
    );
    MirrorOptions {
        mirrors: vec![MirrorRule::parse(
            "quay.io/openshift-release-dev/ocp-release=mirror.new.example:8443/ocp/release",
        )
        .unwrap()],
        block_sources: true,
        insecure_registries: vec![parse_insecure_registry("registry.lab.example:5000").unwrap()],
        hosts: vec![
            HostEntry::parse("192.0.2.10=registry.lab.example").unwrap(),
            HostEntry::parse("192.0.2.11=mirror.new.example,mirror").unwrap(),
        ],
        registry_auth: Some(RegistryAuth::parse("auth.json", auth.as_bytes()).unwrap()),
        trust_bundle: Some(
            TrustBundle::parse("ca.pem", ca_pem("Lab mirror CA").as_bytes()).unwrap(),
        ),
    }
}

fn entry<'a>(doc: &'a IgnitionDoc, path: &str) -> Option<&'a Value> {
    file_entries(doc)
        .into_iter()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(path))
}

fn never_resolves(name: &str) -> Resolution {
    Resolution::Failed(format!("{name}: no such host"))
}

/// Location, blocked, insecure, and each mirror's location and insecure flag.
type RegistryView = (String, bool, bool, Vec<(String, bool)>);

#[test]
fn installer_shaped_config_gets_every_change() {
    let mut doc = fixture();
    let before = doc.clone();
    let options = full_options();
    let changes = apply(&mut doc, &options).unwrap();
    IgnitionDoc::parse(&doc.to_bytes(), "patched").unwrap();

    let registries = parse_registries_conf(&file_text(&doc, REGISTRIES_CONF).unwrap()).unwrap();
    let view: Vec<RegistryView> = registries
        .iter()
        .map(|r| {
            (
                r.location.clone(),
                r.blocked,
                r.insecure,
                r.mirrors
                    .iter()
                    .map(|m| (m.location.clone(), m.insecure))
                    .collect(),
            )
        })
        .collect();
    let lab = ("registry.lab.example:5000/ocp4/release".to_string(), true);
    assert_eq!(
        view,
        vec![
            (
                "quay.io/openshift-release-dev/ocp-release".into(),
                true,
                false,
                vec![
                    lab.clone(),
                    ("mirror.new.example:8443/ocp/release".into(), false)
                ]
            ),
            (
                "quay.io/openshift-release-dev/ocp-v4.0-art-dev".into(),
                true,
                false,
                vec![lab]
            ),
            ("registry.lab.example:5000".into(), false, true, vec![]),
        ]
    );

    // Both release scripts now pull from the first mirror, digest kept, unquoted as before.
    let expected =
        format!("RELEASE_IMAGE=registry.lab.example:5000/ocp4/release{FIXTURE_RELEASE_DIGEST}\n");
    for script in RELEASE_SCRIPTS {
        let text = file_text(&doc, script).unwrap();
        assert!(text.contains(&expected), "{script}:\n{text}");
        assert_eq!(entry(&doc, script).unwrap()["mode"], 0o555);
    }

    // The ICSP cannot say NeverContactSource: an IDMS replaces it, with the ICSP's entries as
    // written and the command line's new mirror as an entry of its own after them.
    assert!(entry(&doc, icsp_path()).is_none());
    let idms: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&file_text(&doc, idms_path()).unwrap()).unwrap();
    let entries = idms["spec"]["imageDigestMirrors"].as_sequence().unwrap();
    let view: Vec<(&str, Vec<&str>)> = entries
        .iter()
        .map(|e| {
            assert_eq!(e["mirrorSourcePolicy"], "NeverContactSource");
            let mirrors = e["mirrors"].as_sequence().unwrap();
            (
                e["source"].as_str().unwrap(),
                mirrors.iter().filter_map(|m| m.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        view,
        [
            (
                "quay.io/openshift-release-dev/ocp-release",
                vec!["registry.lab.example:5000/ocp4/release"]
            ),
            (
                "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
                vec!["registry.lab.example:5000/ocp4/release"]
            ),
            (
                "quay.io/openshift-release-dev/ocp-release",
                vec!["mirror.new.example:8443/ocp/release"]
            ),
        ]
    );

    // /etc/hosts: an append, so the node's own lines stay.
    let hosts = entry(&doc, HOSTS).unwrap();
    assert_eq!(hosts["overwrite"], false);
    assert_eq!(hosts["mode"], 0o644);
    assert!(hosts.get("contents").is_none());
    let lines = crate::ignition::read::configured_lines(&doc);
    assert_eq!(
        lines,
        vec![
            "192.0.2.10 registry.lab.example".to_string(),
            "192.0.2.11 mirror.new.example mirror".to_string()
        ]
    );

    // Pull secret: the command line wins, with a notice naming the host and no credential.
    let node: Value = serde_json::from_str(&file_text(&doc, NODE_PULL_SECRET).unwrap()).unwrap();
    assert_eq!(
        node["auths"]["registry.lab.example:5000"]["auth"],
        b64("lab:rotated-password")
    );
    assert_eq!(node["auths"]["quay.io"]["auth"], b64("fixture:quay-token"));
    let notes: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert!(
        notes.iter().any(|n| n.starts_with(NODE_PULL_SECRET)
            && n.contains("registry.lab.example:5000")
            && n.contains("command line wins")),
        "{notes:#?}"
    );
    for note in &notes {
        for secret in [
            "rotated-password",
            "new-password",
            &b64("lab:rotated-password"),
        ] {
            assert!(!note.contains(secret), "{note}");
        }
    }
    let manifest: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&file_text(&doc, PULL_SECRET_MANIFEST).unwrap()).unwrap();
    let cluster = base64::engine::general_purpose::STANDARD
        .decode(manifest["data"][".dockerconfigjson"].as_str().unwrap())
        .unwrap();
    let cluster: Value = serde_json::from_slice(&cluster).unwrap();
    assert_eq!(
        cluster["auths"]["mirror.new.example:8443"]["auth"],
        b64("new:new-password")
    );

    // The CA: in the anchors and in a new user-ca-bundle manifest.
    let anchors = file_text(&doc, ANCHORS).unwrap();
    assert_eq!(
        crate::ignition::read::parse_certificates(anchors.as_bytes())
            .unwrap()
            .len(),
        1
    );
    let bundle: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&file_text(&doc, USER_CA_BUNDLE).unwrap()).unwrap();
    assert_eq!(bundle["metadata"]["name"], "user-ca-bundle");
    assert_eq!(
        bundle["data"]["ca-bundle.crt"].as_str().map(str::trim_end),
        Some(anchors.trim_end())
    );

    // Untouched: units, users, motd.
    assert_eq!(doc.value["systemd"], before.value["systemd"]);
    assert_eq!(doc.value["passwd"], before.value["passwd"]);
    assert_eq!(entry(&doc, "/etc/motd"), entry(&before, "/etc/motd"));

    // Again: nothing more changes.
    let once = doc.clone();
    apply(&mut doc, &options).unwrap();
    assert!(doc == once, "a second run changed the config");
}

#[test]
fn preflight_of_the_patched_config_is_clean() {
    let mut doc = fixture();
    apply(&mut doc, &full_options()).unwrap();
    let mut asked = Vec::new();
    let report = preflight::check(&doc, ReleaseChosenBy::Config, &mut |name: &str| {
        asked.push(name.to_string());
        Resolution::Resolved
    });
    assert!(asked.is_empty(), "resolved {asked:?} despite host entries");
    assert_eq!(report.findings, vec![]);
    assert_eq!(report.hosts.len(), 2);
    assert_eq!(report.hosts[0].host, "registry.lab.example:5000");
    assert_eq!(report.hosts[0].ca, CaCheck::NotNeeded);
    assert_eq!(report.hosts[1].ca, CaCheck::Present(1));
    assert!(report
        .hosts
        .iter()
        .all(|h| h.credentials && h.name == NameCheck::HostsEntry));
    assert!(report.release.as_ref().unwrap().is_digest());
    assert!(report.verdict(true).is_ok());
    assert!(report.summary()[1]
        .contains("mirror.new.example:8443: credentials yes, CA 1 certificate(s)"));
}

#[test]
fn preflight_of_the_unpatched_config_warns_about_ca_and_name() {
    let report = preflight::check(&fixture(), ReleaseChosenBy::Config, &mut never_resolves);
    let messages: Vec<&str> = report.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    let setting = |option: crate::error::OptionField| option.to_string();
    assert!(
        messages[0].contains("no CA certificate")
            && messages[0].contains(&setting(crate::error::OptionField::TrustBundle))
    );
    assert!(messages[1].contains("registry.lab.example has no /etc/hosts entry"));
    assert!(messages[1].contains(&format!(
        "{} IP=registry.lab.example",
        setting(crate::error::OptionField::AddHost)
    )));
    assert!(report
        .findings
        .iter()
        .all(|f| f.severity == Severity::Warning));
    assert!(report.verdict(false).is_ok());
    let strict = report.verdict(true).unwrap_err().to_string();
    assert!(
        strict.contains("2 problem(s)") && strict.contains("nothing was written"),
        "{strict}"
    );
}

#[test]
fn preflight_without_credentials_says_so() {
    let mut doc = fixture();
    set_file_text(
        &mut doc,
        NODE_PULL_SECRET,
        r#"{"auths":{"quay.io":{"auth":"cTpx"}}}"#,
        0o600,
    )
    .unwrap();
    let report = preflight::check(&doc, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    });
    assert!(!report.hosts[0].credentials);
    assert!(report.findings[0]
        .message
        .contains("no credentials for registry.lab.example:5000"));
}

/// Credentials for one repository of a host and none for another it mirrors: the host asks
/// for a login (else no key would be there), so the other's pulls are refused; the warning
/// names both, and no credential.
#[test]
fn preflight_names_the_repositories_a_host_pulls_without_credentials() {
    let mut doc = fixture();
    let text = file_text(&doc, REGISTRIES_CONF)
        .unwrap()
        .replacen(
            "registry.lab.example:5000/ocp4/release",
            "registry.lab.example:5000/ocp4/art-dev",
            2,
        )
        .replacen(
            "registry.lab.example:5000/ocp4/art-dev",
            "registry.lab.example:5000/ocp4/release",
            1,
        );
    set_file_text(&mut doc, REGISTRIES_CONF, &text, 0o644).unwrap();
    let secret = format!(
        r#"{{"auths":{{"registry.lab.example:5000/ocp4/release":{{"auth":"{}"}}}}}}"#,
        b64("lab:password-of-lab")
    );
    set_file_text(&mut doc, NODE_PULL_SECRET, &secret, 0o600).unwrap();
    let report = preflight::check(&doc, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    });
    assert!(report.hosts[0].credentials);
    let found: Vec<_> = report
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                preflight::FindingKind::RepositoriesWithoutCredentials { .. }
            )
        })
        .collect();
    assert_eq!(found.len(), 1, "{:?}", report.findings);
    assert_eq!(
        found[0].kind,
        preflight::FindingKind::RepositoriesWithoutCredentials {
            host: "registry.lab.example:5000".into(),
            repositories: vec!["registry.lab.example:5000/ocp4/art-dev".into()],
        }
    );
    let message = &found[0].message;
    assert!(
        message.contains("credentials for registry.lab.example:5000/ocp4/release but none that registry.lab.example:5000/ocp4/art-dev is pulled with"),
        "{message}"
    );
    assert!(!message.contains("password-of-lab") && !message.contains(&b64("lab:password-of-lab")));
    // With the host's own entry every repository has one: no such warning.
    let secret = format!(
        r#"{{"auths":{{"registry.lab.example:5000":{{"auth":"{}"}}}}}}"#,
        b64("lab:password-of-lab")
    );
    set_file_text(&mut doc, NODE_PULL_SECRET, &secret, 0o600).unwrap();
    let report = preflight::check(&doc, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    });
    assert!(report.findings.iter().all(|f| !matches!(
        f.kind,
        preflight::FindingKind::RepositoriesWithoutCredentials { .. }
    )));
}

fn with_release(reference: &str) -> IgnitionDoc {
    let mut doc = fixture();
    for script in RELEASE_SCRIPTS {
        let text = file_text(&doc, script).unwrap().replace(
            &format!("quay.io/openshift-release-dev/ocp-release{FIXTURE_RELEASE_DIGEST}"),
            reference,
        );
        set_file_text(&mut doc, script, &text, 0o555).unwrap();
    }
    doc
}

/// The fixture with `release-image.sh` laid out as openshift-install writes it (4.9 to 5.0): no
/// `RELEASE_IMAGE=` line; the pull spec appears twice, as the argument of `podman inspect` and as
/// the fallback when no digest is recorded. Only `release-image-download.sh` assigns it.
fn installer_release_library(reference: &str) -> IgnitionDoc {
    let mut doc = with_release(reference);
    let library = format!(
        "#!/usr/bin/env bash\n# Test library: which image a release component is.\nif ! RELEASE_IMAGE_DIGEST=$( podman inspect {reference} --format '{{{{ index .RepoDigests 0 }}}}' ) || [[ -z \"${{RELEASE_IMAGE_DIGEST}}\" ]]; then\n\techo \"no digest recorded\" 2>&1\n\tRELEASE_IMAGE_DIGEST=\"{reference}\"\nfi\n\nimage_for() {{\n    podman run --quiet --rm --net=none \"${{RELEASE_IMAGE_DIGEST}}\" image \"${{1}}\"\n}}\n"
    );
    set_file_text(&mut doc, RELEASE_SCRIPTS[0], &library, 0o555).unwrap();
    doc
}

#[test]
fn installer_release_library_without_an_assignment_is_rewritten() {
    for (reference, mirrored) in [
        (
            format!("quay.io/openshift-release-dev/ocp-release{FIXTURE_RELEASE_DIGEST}"),
            format!("registry.lab.example:5000/ocp4/release{FIXTURE_RELEASE_DIGEST}"),
        ),
        (
            "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64".to_string(),
            "registry.lab.example:5000/ocp4/release:4.16.3-x86_64".to_string(),
        ),
    ] {
        let mut doc = installer_release_library(&reference);
        let found = find_release(&doc).unwrap().unwrap();
        assert_eq!(found.reference, reference);
        assert_eq!(found.scripts, RELEASE_SCRIPTS.to_vec());

        // The release's own source mirrored again where the config mirrors it: a rule that
        // covers the release points it at that mirror.
        let options = MirrorOptions {
            mirrors: vec![MirrorRule::parse(
                "quay.io/openshift-release-dev/ocp-release=registry.lab.example:5000/ocp4/release",
            )
            .unwrap()],
            block_sources: true,
            ..MirrorOptions::default()
        };
        let changes = apply(&mut doc, &options).unwrap();
        // Both scripts now pull from the mirror: the assignment, and both places the library
        // names the payload.
        let download = file_text(&doc, RELEASE_SCRIPTS[1]).unwrap();
        let library = file_text(&doc, RELEASE_SCRIPTS[0]).unwrap();
        assert!(
            download.contains(&format!("RELEASE_IMAGE={mirrored}\n")),
            "{download}"
        );
        assert!(!library.contains(&reference), "{library}");
        assert!(library.contains(&format!("podman inspect {mirrored} --format")));
        assert!(library.contains(&format!("RELEASE_IMAGE_DIGEST=\"{mirrored}\"\n")));
        for script in RELEASE_SCRIPTS {
            assert!(changes.iter().any(|c| c.target == script), "{changes:?}");
        }
    }
}

#[test]
fn a_tag_past_a_blocked_source_is_an_error() {
    let tag = "quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64";
    let report = preflight::check(
        &with_release(tag),
        ReleaseChosenBy::Config,
        &mut |_: &str| Resolution::Resolved,
    );
    let tag_warning = report
        .findings
        .iter()
        .find(|f| f.message.contains("is a tag"))
        .unwrap();
    assert_eq!(tag_warning.severity, Severity::Warning);
    assert!(tag_warning.message.contains("skopeo inspect"));

    // A mirror that is a host alone: the hint names the image where it is a valid reference.
    let mut bare = with_release(tag);
    let text = "[[registry]]\nlocation = \"quay.io/openshift-release-dev/ocp-release\"\ninsecure = false\nmirror-by-digest-only = true\n\n[[registry.mirror]]\nlocation = \"mirror.lab:5000\"\ninsecure = false\n";
    set_file_text(&mut bare, REGISTRIES_CONF, text, 0o644).unwrap();
    let hint = preflight::check(&bare, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    })
    .findings
    .into_iter()
    .map(|f| f.message)
    .find(|m| m.contains("is a tag"));
    assert!(
        hint.as_ref()
            .is_some_and(|m| m.contains(&format!("docker://{tag}` prints it"))),
        "{hint:?}"
    );

    let mut blocked = with_release(tag);
    let text = file_text(&blocked, REGISTRIES_CONF).unwrap().replace(
        "mirror-by-digest-only = true\n",
        "mirror-by-digest-only = true\nblocked = true\n",
    );
    set_file_text(&mut blocked, REGISTRIES_CONF, &text, 0o644).unwrap();
    let report = preflight::check(&blocked, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    });
    let error = report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Error)
        .unwrap();
    assert!(
        error.message.contains("which is blocked"),
        "{}",
        error.message
    );
    assert!(report.verdict(false).is_err());
}

#[test]
fn a_rewritten_tag_is_pulled_from_the_mirror_with_a_warning() {
    let mut doc = with_release("quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64");
    let options = MirrorOptions {
        block_sources: true,
        ..MirrorOptions::default()
    };
    apply(&mut doc, &options).unwrap();
    assert!(file_text(&doc, RELEASE_SCRIPTS[0])
        .unwrap()
        .contains("RELEASE_IMAGE=registry.lab.example:5000/ocp4/release:4.19.0-x86_64\n"));
    let report = preflight::check(&doc, ReleaseChosenBy::Config, &mut |_: &str| {
        Resolution::Resolved
    });
    let finding = report
        .findings
        .iter()
        .find(|f| f.message.contains("by tag"))
        .unwrap();
    assert_eq!(finding.severity, Severity::Warning);
    // A patch cannot change the release: the advice says how to make the config again.
    let pin = |chosen_by| {
        preflight::check(&doc, chosen_by, &mut |_: &str| Resolution::Resolved)
            .findings
            .into_iter()
            .find(|f| f.message.contains("by tag"))
            .unwrap()
            .message
    };
    let patched = pin(ReleaseChosenBy::Config);
    assert!(patched.contains("make the config again"), "{patched}");
    assert!(
        patched.contains("(bootgen ignition `model.release_image` ...@sha256:..."),
        "{patched}"
    );
    let generated = pin(ReleaseChosenBy::Setting);
    assert!(
        generated.ends_with("pin its digest: give `model.release_image` ...@sha256:..."),
        "{generated}"
    );
}

#[test]
fn unexpected_release_scripts_fail_naming_them() {
    let mut doc = fixture();
    set_file_text(
        &mut doc,
        RELEASE_SCRIPTS[1],
        "#!/bin/sh\npodman pull \"$1\"\n",
        0o555,
    )
    .unwrap();
    let options = MirrorOptions {
        block_sources: true,
        ..MirrorOptions::default()
    };
    let err = apply(&mut doc.clone(), &options).unwrap_err().to_string();
    assert!(
        err.contains(RELEASE_SCRIPTS[1]) && err.contains("neither sets RELEASE_IMAGE nor names"),
        "{err}"
    );

    let mut neither = doc.clone();
    set_file_text(
        &mut neither,
        RELEASE_SCRIPTS[0],
        "#!/bin/sh
",
        0o555,
    )
    .unwrap();
    let err = apply(&mut neither, &options).unwrap_err().to_string();
    assert!(
        err.contains(RELEASE_SCRIPTS[0]) && err.contains("no RELEASE_IMAGE="),
        "{err}"
    );

    set_file_text(
        &mut doc,
        RELEASE_SCRIPTS[1],
        "RELEASE_IMAGE=quay.io/x/y@sha256:0000000000000000000000000000000000000000000000000000000000000000\n",
        0o555,
    )
    .unwrap();
    let err = apply(&mut doc.clone(), &options).unwrap_err().to_string();
    assert!(err.contains("bootgen will not guess"), "{err}");

    let mut no_scripts = fixture();
    for script in RELEASE_SCRIPTS {
        remove_file(&mut no_scripts, script);
    }
    let err = apply(&mut no_scripts, &options).unwrap_err().to_string();
    assert!(err.contains("is this a bootstrap config?"), "{err}");

    // A config that is no bootstrap config pulls no release: the rest is patched.
    remove_file(&mut no_scripts, "/usr/local/bin/bootkube.sh");
    let changes = apply(&mut no_scripts, &options).unwrap();
    assert!(!changes.is_empty(), "{changes:?}");
    assert!(
        changes
            .iter()
            .all(|c| !c.action.starts_with("release image")),
        "{changes:?}"
    );
}

#[test]
fn files_it_cannot_read_back_are_refused() {
    let mut doc = fixture();
    crate::passes::doc_edit::append_to_file(&mut doc, REGISTRIES_CONF, "# more\n", 0o644).unwrap();
    let options = MirrorOptions {
        block_sources: true,
        ..MirrorOptions::default()
    };
    let err = apply(&mut doc, &options).unwrap_err().to_string();
    assert!(
        err.contains(REGISTRIES_CONF) && err.contains("appends"),
        "{err}"
    );
}

#[test]
fn configs_without_manifests_get_no_cluster_files() {
    let mut doc = IgnitionDoc {
        value: serde_json::json!({"ignition": {"version": "3.2.0"}}),
    };
    let mut options = full_options();
    options.mirrors.clear();
    options.block_sources = false;
    options.insecure_registries.clear();
    apply(&mut doc, &options).unwrap();
    let paths: Vec<&str> = file_entries(&doc)
        .iter()
        .filter_map(|f| f.get("path").and_then(Value::as_str))
        .collect();
    assert_eq!(paths, vec![HOSTS, NODE_PULL_SECRET, ANCHORS]);
    assert_eq!(entry(&doc, NODE_PULL_SECRET).unwrap()["mode"], 0o600);
}

#[test]
fn bootgens_own_config_keeps_its_format() {
    let loaded = crate::config::load_default().unwrap();
    let mut options = crate::generate::Options::new(
        time::OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000),
    );
    options.key_algorithm = crate::pki::KeyAlgorithm::EcdsaP256;
    options.model.release_image = Some(format!(
        "quay.io/openshift-release-dev/ocp-release{FIXTURE_RELEASE_DIGEST}"
    ));
    // A digest does not say its version.
    options.model.release_version = Some("4.22.0".into());
    options.passes.mirrors = MirrorOptions {
        mirrors: vec![MirrorRule::parse(
            "quay.io/openshift-release-dev=mirror.example.com:5000/ocp",
        )
        .unwrap()],
        block_sources: true,
        ..MirrorOptions::default()
    };
    let generated = crate::generate::generate(&loaded, &options).unwrap();
    let doc = &generated.bootstrap;
    let conf = file_text(doc, REGISTRIES_CONF).unwrap();
    assert_eq!(
        conf,
        "[[registry]]\nlocation = \"quay.io/openshift-release-dev\"\ninsecure = false\nmirror-by-digest-only = true\nblocked = true\n\n[[registry.mirror]]\nlocation = \"mirror.example.com:5000/ocp\"\ninsecure = false\n\n\n"
    );
    for script in RELEASE_SCRIPTS {
        assert!(file_text(doc, script).unwrap().contains(&format!(
            "RELEASE_IMAGE='mirror.example.com:5000/ocp/ocp-release{FIXTURE_RELEASE_DIGEST}'\n"
        )));
    }
    assert!(entry(doc, idms_path()).is_some());
    assert!(generated.changes.iter().any(|c| c.target == idms_path()));
}

#[test]
fn malformed_values_are_errors_naming_them() {
    let cases: Vec<(crate::error::Result<()>, &str, &str)> = vec![
        (
            MirrorRule::parse("=m.example.com/x").map(drop),
            "`passes.mirrors.mirrors`",
            "a mirror without a source",
        ),
        (
            MirrorRule::parse("q.io/x=").map(drop),
            "`passes.mirrors.mirrors`",
            "without a mirror",
        ),
        (
            MirrorRule::parse("q.io/x").map(drop),
            "`passes.mirrors.mirrors`",
            "has no `=`",
        ),
        (
            MirrorRule::parse("quay.io/ocp=QUAY.IO/ocp").map(drop),
            "`passes.mirrors.mirrors`",
            "to itself",
        ),
        (
            MirrorRule::parse("https://q.io/x=m.io/x").map(drop),
            "`passes.mirrors.mirrors`",
            "URL scheme",
        ),
        (
            MirrorRule::parse("ubuntu=m.io/x").map(drop),
            "`passes.mirrors.mirrors`",
            "not a registry/repository path",
        ),
        (
            MirrorRule::parse("q.io/X=m.io/x").map(drop),
            "`passes.mirrors.mirrors`",
            "`X`",
        ),
        (
            MirrorRule::parse("q.io/x=m.io:99999/x").map(drop),
            "`passes.mirrors.mirrors`",
            "`99999`, which is not a port",
        ),
        (
            HostEntry::parse("999.1.1.1=m.io").map(drop),
            "`passes.mirrors.hosts`",
            "`999.1.1.1` in `999.1.1.1=m.io` is not an IP address",
        ),
        (
            HostEntry::parse("mirror.example.com").map(drop),
            "`passes.mirrors.hosts`",
            "has no `=`",
        ),
        (
            HostEntry::parse("192.0.2.1=").map(drop),
            "`passes.mirrors.hosts`",
            "empty name",
        ),
        (
            HostEntry::parse("192.0.2.1=bad_name").map(drop),
            "`passes.mirrors.hosts`",
            "`bad_name` is not a host name",
        ),
        (
            parse_insecure_registry("http://m.io").map(drop),
            "`passes.mirrors.insecure_registries`",
            "URL scheme",
        ),
        (
            parse_insecure_registry("m.io/path").map(drop),
            "`passes.mirrors.insecure_registries`",
            "repository path",
        ),
        (
            parse_insecure_registry("m.io:0").map(drop),
            "`passes.mirrors.insecure_registries`",
            "not a port",
        ),
        (
            RegistryAuth::parse("a.json", b"{\"auths\": ").map(drop),
            "`passes.mirrors.registry_auth`",
            "a.json: is not JSON",
        ),
        (
            RegistryAuth::parse("a.json", b"{}").map(drop),
            "`passes.mirrors.registry_auth`",
            "no `auths`",
        ),
        (
            RegistryAuth::parse("a.json", br#"{"auths":{"m.io":{"auth":"%%%"}}}"#).map(drop),
            "`passes.mirrors.registry_auth`",
            "`auth` for `m.io` is not base64",
        ),
        (
            RegistryAuth::parse("a.json", br#"{"auths":{"m.io":{"auth":"bm9jb2xvbg=="}}}"#)
                .map(drop),
            "`passes.mirrors.registry_auth`",
            "user:password",
        ),
        (
            RegistryAuth::parse("a.json", br#"{"auths":{"m.io":{}}}"#).map(drop),
            "`passes.mirrors.registry_auth`",
            "has no `auth`",
        ),
        (
            TrustBundle::parse("ca.pem", b"hello\n").map(drop),
            "`passes.mirrors.trust_bundle`",
            "ca.pem: holds no PEM certificate",
        ),
        (
            TrustBundle::parse(
                "ca.pem",
                b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            )
            .map(drop),
            "`passes.mirrors.trust_bundle`",
            "is a PRIVATE KEY, not a CERTIFICATE",
        ),
        (
            TrustBundle::parse(
                "ca.pem",
                b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
            )
            .map(drop),
            "`passes.mirrors.trust_bundle`",
            "does not parse",
        ),
    ];
    for (result, option, expected) in cases {
        let message = result.unwrap_err().to_string();
        assert!(
            message.starts_with(option) && message.contains(expected),
            "{message}"
        );
    }
    // Credentials never appear in an error.
    let message = RegistryAuth::parse("a.json", br#"{"auths":{"m.io":{"auth":"c2VjcmV0"}}, x}"#)
        .unwrap_err()
        .to_string();
    assert!(!message.contains("c2VjcmV0"), "{message}");
}

#[test]
fn good_values_parse() {
    let rule =
        MirrorRule::parse("quay.io/openshift-release-dev/ocp-release=[fd00::1]:5000/ocp/release")
            .unwrap();
    assert_eq!(rule.mirror, "[fd00::1]:5000/ocp/release");
    let host = HostEntry::parse("fd00::10=mirror.example.com,mirror").unwrap();
    assert_eq!(host.line(), "fd00::10 mirror.example.com mirror\n");
    assert_eq!(
        parse_insecure_registry("localhost:5000").unwrap(),
        "localhost:5000"
    );
    let auth = RegistryAuth::parse(
        "a.json",
        br#"{"auths":{"https://m.io/v1/":{"auth":"dTpw"}}}"#,
    )
    .unwrap();
    assert_eq!(
        format!("{auth:?}"),
        "RegistryAuth { name: \"a.json\", registries: [\"https://m.io/v1/\"], .. }"
    );
    assert_eq!(
        crate::ignition::read::normalize_auth_key("https://m.io/v1/"),
        "m.io"
    );
}

/// A mirror for another source leaves the release named as the installer named it, which its
/// own registries.conf entry already mirrors: the install-config's route writes the same.
#[test]
fn a_mirror_of_another_source_leaves_the_release_image_alone() {
    let mut doc = fixture();
    let before: Vec<String> = RELEASE_SCRIPTS
        .iter()
        .map(|script| file_text(&doc, script).unwrap())
        .collect();
    let options = MirrorOptions {
        mirrors: vec![MirrorRule::parse("source.invalid/app=mirror.new.example:8443/app").unwrap()],
        block_sources: true,
        ..MirrorOptions::default()
    };
    let changes = apply(&mut doc, &options).unwrap();
    for (script, before) in RELEASE_SCRIPTS.iter().zip(&before) {
        assert_eq!(&file_text(&doc, script).unwrap(), before, "{script}");
        assert!(changes.iter().all(|c| c.target != *script), "{changes:?}");
    }
    let conf = file_text(&doc, REGISTRIES_CONF).unwrap();
    assert!(conf.contains("source.invalid/app"), "{conf}");
}

//! What a program embedding bootgen writes against its public API alone: architecture names
//! that convert into bootgen's error, the clock through bootgen's own `time`, pre-flight
//! findings matched by kind, and the output directory's overwrite choice by name.

use bootgen::checks::preflight::FindingKind;
use bootgen::output::{self, ExistingConfigs};
use bootgen::passes::mirrors::MirrorRule;
use bootgen::{config, generate, Arch, Error, KeyAlgorithm, OptionField, Options, UnknownArch};

fn arch_named(name: &str) -> bootgen::Result<Arch> {
    Ok(name.parse::<Arch>()?)
}

#[test]
fn architecture_names_convert_into_bootgen_errors() {
    assert_eq!(arch_named("aarch64").unwrap(), Arch::Arm64);
    let unknown: UnknownArch = "sparc".parse::<Arch>().unwrap_err();
    assert!(unknown.to_string().contains("`sparc`"), "{unknown}");
    match arch_named("sparc") {
        Err(Error::InvalidOption {
            option: OptionField::Arch,
            message,
        }) => assert!(message.contains("arm64"), "{message}"),
        other => panic!("{other:?}"),
    }
    let bootstrap = unknown.for_option(OptionField::BootstrapArch);
    assert!(matches!(
        bootstrap,
        Error::InvalidOption {
            option: OptionField::BootstrapArch,
            ..
        }
    ));
}

#[test]
fn an_embedder_generates_matches_findings_and_writes() -> bootgen::Result<()> {
    let now = bootgen::time::OffsetDateTime::UNIX_EPOCH + bootgen::time::Duration::days(20_000);
    let mut options = Options::new(now);
    options.key_algorithm = KeyAlgorithm::EcdsaP256;
    options.passes.mirrors.mirrors = vec![MirrorRule::parse(
        "quay.io/openshift-release-dev=mirror.example.com:5000/ocp",
    )?];
    let generated = generate(&config::load_default()?, &options)?;
    let kinds: Vec<&FindingKind> = generated
        .preflight
        .findings
        .iter()
        .map(|f| &f.kind)
        .collect();
    let host = "mirror.example.com:5000".to_string();
    assert!(
        kinds.contains(&&FindingKind::NoCredentials { host: host.clone() }),
        "{kinds:?}"
    );
    assert!(kinds.contains(&&FindingKind::NoCa { host }), "{kinds:?}");
    // The release (a tag) is pulled from the mirror: a tag can move.
    assert!(
        kinds.iter().any(|k| matches!(
            k,
            FindingKind::TagOnMirror { reference } if reference.starts_with("mirror.example.com:5000/")
        )),
        "{kinds:?}"
    );
    // The library's own words: nothing about where a front end printed the findings.
    let refused = generated.preflight.verdict(true).unwrap_err().to_string();
    assert!(!refused.contains("above"), "{refused}");

    let out = tempfile::tempdir().unwrap();
    let files = output::output_files(&generated);
    output::write_dir(out.path(), &files, ExistingConfigs::Refuse)?;
    // The same files again: nothing to write over, nothing written.
    let again = output::write_dir(out.path(), &files, ExistingConfigs::Refuse)?;
    assert!(again.written.is_empty(), "{again:?}");
    // An edit is never written over unless asked.
    let edited = out.path().join("master.ign");
    std::fs::write(&edited, "{}").map_err(|e| Error::io("cannot write", &edited, e))?;
    match output::write_dir(out.path(), &files, ExistingConfigs::Refuse) {
        Err(Error::WouldOverwrite { paths }) => assert_eq!(paths, std::slice::from_ref(&edited)),
        other => panic!("{other:?}"),
    }
    let replaced = output::write_dir(out.path(), &files, ExistingConfigs::Replace)?;
    assert_eq!(replaced.replaced, ["master.ign"]);
    Ok(())
}

/// An embedder's `{:?}` of what it loads and generates (in a log, a panic message) shows no
/// secret: no private key, no pull secret, no proxy or vCenter password, no kubeadmin password.
#[test]
fn debug_output_shows_no_secret() -> bootgen::Result<()> {
    let text = config::DEFAULT_INSTALL_CONFIG
        .replace("platform:\n  none: {}\n", "platform:\n  vsphere:\n    vCenter: vc.example.com\n    username: admin\n    password: VcPassw0rd-Debug\n    datacenter: dc1\n    defaultDatastore: ds1\n    cluster: c1\n    network: n1\n")
        + "proxy:\n  httpsProxy: http://proxyuser:ProxyPassw0rd@proxy.example.com:3128\n";
    let loaded = config::parse(&text, "install-config.yaml")?;
    let pull_auth = {
        let secret: serde_json::Value =
            serde_json::from_str(loaded.config.pull_secret.as_deref().unwrap()).unwrap();
        secret["auths"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["auth"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let now = bootgen::time::OffsetDateTime::UNIX_EPOCH + bootgen::time::Duration::days(20_000);
    let mut options = Options::new(now);
    options.key_algorithm = KeyAlgorithm::EcdsaP256;
    options.model.release_version = Some("4.16.0".into());
    let generated = generate(&loaded, &options)?;
    let root_key = generated
        .pki
        .store_files()
        .into_iter()
        .find(|f| f.name == "root-ca.key")
        .unwrap();
    let key_line = String::from_utf8(root_key.contents.clone())
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_string();
    let password = generated.identity.kubeadmin_password.clone();
    let mut shown = vec![
        format!("{:?}", generated.model.proxy),
        format!("{:?}", generated.model.platform),
        format!("{loaded:?}"),
        format!("{:?}", generated.model),
        format!("{:?}", generated.template_context()),
        format!("{:?}", generated.metadata),
        format!("{generated:?}"),
    ];
    let files = output::into_output_files(generated);
    shown.push(format!("{files:?}"));
    let bootstrap = files
        .iter()
        .find(|f| f.relative == "bootstrap.ign")
        .unwrap();
    let plan = bootgen::check::Plan::from_configs(&bootstrap.contents, "bootstrap.ign", None)?;
    assert!(!plan.credentials.is_empty());
    shown.push(format!("{plan:?}"));
    for (i, text) in shown.iter().enumerate() {
        for secret in [
            pull_auth.as_str(),
            "VcPassw0rd-Debug",
            "ProxyPassw0rd",
            &password,
            &key_line,
        ] {
            assert!(!text.contains(secret), "view {i} shows {secret:?}");
        }
        assert!(!text.is_empty());
    }
    assert!(shown[2].contains("install-config.yaml"), "{}", shown[2]);
    Ok(())
}

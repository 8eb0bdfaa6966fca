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
    assert!(matches!(
        output::write_dir(out.path(), &files, ExistingConfigs::Refuse),
        Err(Error::WouldOverwrite { .. })
    ));
    output::write_dir(out.path(), &files, ExistingConfigs::Replace)?;
    Ok(())
}

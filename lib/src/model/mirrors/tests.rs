//! The model's mirrors read from install-configs: entries kept as written, registries.conf
//! merged, what each release refuses or warns about.

use super::{MirrorEntry, Mirrors, SourceContact};

/// The model's mirrors and warnings for `entries` under `field` on `version`, or the refusal.
fn read(version: &str, field: &str, entries: &str) -> Result<(Mirrors, Vec<String>), String> {
    let text = format!(
        "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {{}}\npullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'\n{field}:\n{entries}"
    );
    let (model, warnings) = crate::model::model_with_warnings(&text, version)?;
    Ok((model.mirrors, warnings))
}

#[test]
fn a_source_policy_under_image_content_sources_is_refused_naming_its_place() {
    let entry = "- source: quay.io/a/b\n  mirrors:\n  - m.lab:5000/a/b\n  sourcePolicy: NeverContactSource\n";
    for version in ["4.13.0", "4.21.0"] {
        let refused = read(version, "imageContentSources", entry).unwrap_err();
        assert!(
            refused.contains("imageContentSources[0].sourcePolicy")
                && refused.contains("a setting of imageDigestSources entries"),
            "{version}: {refused}"
        );
    }
}

/// From 4.14, where imageDigestSources arrived, imageContentSources is deprecated: the user is
/// pointed to imageDigestSources; before, it is the only list and nothing is said.
#[test]
fn image_content_sources_is_deprecated_where_image_digest_sources_is_read() {
    let entry = "- source: quay.io/a/b\n  mirrors:\n  - m.lab:5000/a/b\n";
    let deprecation = |warnings: &[String]| {
        warnings
            .iter()
            .filter(|w| w.contains("`imageContentSources`: deprecated"))
            .cloned()
            .collect::<Vec<_>>()
    };
    for version in ["4.14.0", "4.16.0", "4.21.0"] {
        let (_, warnings) = read(version, "imageContentSources", entry).unwrap();
        let said = deprecation(&warnings);
        assert_eq!(said.len(), 1, "{version}: {warnings:?}");
        assert!(
            said[0]
                .contains("deprecated from 4.14: write the same entries under imageDigestSources"),
            "{version}: {said:?}"
        );
    }
    for version in ["4.12.0", "4.13.0"] {
        let (_, warnings) = read(version, "imageContentSources", entry).unwrap();
        assert!(deprecation(&warnings).is_empty(), "{version}: {warnings:?}");
    }
    let (_, warnings) = read("4.16.0", "imageDigestSources", entry).unwrap();
    assert!(deprecation(&warnings).is_empty(), "{warnings:?}");
}

#[test]
fn a_source_policy_without_mirrors_is_refused_from_4_21() {
    let entry = "- source: quay.io/empty/repo\n  sourcePolicy: NeverContactSource\n";
    for version in ["4.21.0", "4.22.0", "5.0.0"] {
        let refused = read(version, "imageDigestSources", entry).unwrap_err();
        assert!(
            refused.contains("imageDigestSources[0].sourcePolicy")
                && refused.contains("`NeverContactSource` cannot be configured without a mirror"),
            "{version}: {refused}"
        );
    }
    // 4.20's installer ignores sourcePolicy (with a warning), and so the entry.
    let (mirrors, _) = read("4.20.0", "imageDigestSources", entry).unwrap();
    assert!(mirrors.registries.is_empty());
}

#[test]
fn a_registry_host_alone_is_refused_by_4_9_and_checked_as_a_host_after() {
    let entry =
        |source: &str, mirror: &str| format!("- source: {source}\n  mirrors:\n  - {mirror}\n");
    let release = "quay.io/openshift-release-dev/ocp-release";
    for (source, mirror, field) in [
        (
            release,
            "mirror.lab:5000",
            "imageContentSources[0].mirrors[0]",
        ),
        (release, "mirror.lab", "imageContentSources[0].mirrors[0]"),
        (
            "quay.io",
            "mirror.lab:5000/quay",
            "imageContentSources[0].source",
        ),
    ] {
        let refused = read("4.9.0", "imageContentSources", &entry(source, mirror)).unwrap_err();
        assert!(
            refused.contains(field)
                && refused.contains("is a registry host without a repository, which OpenShift 4.9's installer refuses (repository name must be canonical; accepted from 4.10)"),
            "{refused}"
        );
        let (mirrors, warnings) =
            read("4.10.0", "imageContentSources", &entry(source, mirror)).unwrap();
        assert_eq!(mirrors.registries[0].mirrors[0].location, mirror);
        assert!(
            !warnings.iter().any(|w| w.contains("docker.io")),
            "{warnings:?}"
        );
    }
    // A single label, as the installer takes it from 4.10, with what the nodes make of it.
    let (mirrors, warnings) =
        read("4.16.0", "imageContentSources", &entry(release, "mirror")).unwrap();
    assert_eq!(mirrors.registries[0].mirrors[0].location, "mirror");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("imageContentSources[0].mirrors[0]")
                && w.contains("docker.io/library/mirror")),
        "{warnings:?}"
    );
    let refused = read("4.16.0", "imageContentSources", &entry(release, "mir_ror")).unwrap_err();
    assert!(
        refused.contains("`mir_ror` is not a registry host"),
        "{refused}"
    );
}

fn entries_view(mirrors: &Mirrors) -> Vec<(&str, Vec<&str>, Option<SourceContact>)> {
    mirrors
        .entries
        .iter()
        .map(|e: &MirrorEntry| {
            let listed = e.mirrors.iter().map(String::as_str).collect();
            (e.source.as_str(), listed, e.source_policy)
        })
        .collect()
}

fn tables_view(mirrors: &Mirrors) -> Vec<(&str, bool, Vec<&str>)> {
    mirrors
        .registries
        .iter()
        .map(|r| {
            let listed = r.mirrors.iter().map(|m| m.location.as_str()).collect();
            (r.location.as_str(), r.blocked, listed)
        })
        .collect()
}

const REPEATED: &str = "\
- source: quay.io/a/b
  mirrors:
  - m.lab:5000/a/b
  - m.lab:5000/a/b
- source: quay.io/a/c
  mirrors:
  - m.lab:5000/a/c
  sourcePolicy: AllowContactingSource
- source: quay.io/a/b
  mirrors:
  - backup.lab:5000/a/b
  - m.lab:5000/a/b
- source: quay.io/a/c
  mirrors:
  - m.lab:5000/a/c
- source: quay.io/a/d
";

/// The entries stay as written (a source twice, a mirror twice, an explicit
/// AllowContactingSource, an entry without mirrors): the manifests carry them so. Only
/// registries.conf is merged: per source, and per source and policy where the release reads
/// sourcePolicy (4.21 on), as each installer merges.
#[test]
fn entries_stay_as_written_and_registries_merge_as_the_release_does() {
    let (mirrors, _) = read("4.22.0", "imageDigestSources", REPEATED).unwrap();
    let allowed = Some(SourceContact::Allowed);
    assert_eq!(
        entries_view(&mirrors),
        [
            (
                "quay.io/a/b",
                vec!["m.lab:5000/a/b", "m.lab:5000/a/b"],
                None
            ),
            ("quay.io/a/c", vec!["m.lab:5000/a/c"], allowed),
            (
                "quay.io/a/b",
                vec!["backup.lab:5000/a/b", "m.lab:5000/a/b"],
                None
            ),
            ("quay.io/a/c", vec!["m.lab:5000/a/c"], None),
            ("quay.io/a/d", vec![], None),
        ]
    );
    // One table per source where the installer ignores sourcePolicy (4.20); from 4.21 per
    // source and policy, so quay.io/a/c's explicit AllowContactingSource gets its own.
    let by_source = vec![
        (
            "quay.io/a/b",
            false,
            vec!["m.lab:5000/a/b", "backup.lab:5000/a/b"],
        ),
        ("quay.io/a/c", false, vec!["m.lab:5000/a/c"]),
    ];
    let by_policy = [
        by_source.clone(),
        vec![("quay.io/a/c", false, vec!["m.lab:5000/a/c"])],
    ]
    .concat();
    assert_eq!(tables_view(&mirrors), by_policy);
    let (mirrors, warnings) = read("4.20.0", "imageDigestSources", REPEATED).unwrap();
    assert_eq!(mirrors.entries[1].source_policy, None);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("imageDigestSources[1].sourcePolicy")),
        "{warnings:?}"
    );
    assert_eq!(tables_view(&mirrors), by_source);
    // The same entries under imageContentSources, with no sourcePolicy, for an ICSP release.
    let content = REPEATED.replace("  sourcePolicy: AllowContactingSource\n", "");
    let (mirrors, _) = read("4.13.0", "imageContentSources", &content).unwrap();
    assert_eq!(mirrors.entries.len(), 5);
    assert_eq!(mirrors.registries.len(), 2);
    assert_eq!(
        mirrors.kind,
        Some(super::MirrorKind::ImageContentSourcePolicy)
    );
}

/// A source blocked in one entry and not in another: the installer's two tables make a
/// registries.conf podman and CRI-O refuse whole, so bootgen refuses it, naming both entries.
#[test]
fn a_source_both_blocked_and_not_is_refused_naming_both_entries() {
    let entries = "\
- source: quay.io/a/b
  mirrors:
  - m.lab:5000/a/b
  sourcePolicy: NeverContactSource
- source: quay.io/a/c
  mirrors:
  - m.lab:5000/a/c
- source: quay.io/a/b
  mirrors:
  - m.lab:5000/a/b
";
    for (second, said) in [
        ("", "no sourcePolicy"),
        (
            "  sourcePolicy: AllowContactingSource\n",
            "sourcePolicy AllowContactingSource",
        ),
    ] {
        let text = format!("{entries}{second}");
        let refused = read("4.21.0", "imageDigestSources", &text).unwrap_err();
        assert!(
            refused.contains("imageDigestSources[2].sourcePolicy")
                && refused.contains(
                    "`quay.io/a/b` is also given by imageDigestSources[0].sourcePolicy with sourcePolicy NeverContactSource"
                )
                && refused.contains(&format!("this entry has {said}"))
                && refused.contains("conflicting 'blocked' setting"),
            "{refused}"
        );
        // Where the installer ignores sourcePolicy, nothing is blocked and nothing conflicts.
        let (mirrors, _) = read("4.20.0", "imageDigestSources", &text).unwrap();
        assert_eq!(mirrors.registries.len(), 2);
    }
    // Blocked in both: one table, blocked.
    let both = format!("{entries}  sourcePolicy: NeverContactSource\n");
    let (mirrors, _) = read("4.21.0", "imageDigestSources", &both).unwrap();
    assert_eq!(
        tables_view(&mirrors),
        [
            ("quay.io/a/b", true, vec!["m.lab:5000/a/b"]),
            ("quay.io/a/c", false, vec!["m.lab:5000/a/c"]),
        ]
    );
}

/// An explicit AllowContactingSource beside none: two tables at one location, as the
/// installer writes them; the nodes read the first one's mirrors only, which a warning says
/// when the second has others.
#[test]
fn a_later_table_of_the_same_source_warns_about_the_mirrors_it_hides() {
    let entries = "\
- source: quay.io/a/b
  mirrors:
  - m.lab:5000/a/b
- source: quay.io/a/b
  mirrors:
  - m.lab:5000/a/b
  - backup.lab:5000/a/b
  sourcePolicy: AllowContactingSource
";
    let (mirrors, warnings) = read("4.22.0", "imageDigestSources", entries).unwrap();
    assert_eq!(
        tables_view(&mirrors),
        [
            ("quay.io/a/b", false, vec!["m.lab:5000/a/b"]),
            (
                "quay.io/a/b",
                false,
                vec!["m.lab:5000/a/b", "backup.lab:5000/a/b"]
            ),
        ]
    );
    let warning = warnings
        .iter()
        .find(|w| w.contains("imageDigestSources[1].sourcePolicy"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(
        warning.contains("never trying backup.lab:5000/a/b;")
            && warning.contains("imageDigestSources[0].sourcePolicy with no sourcePolicy"),
        "{warning}"
    );
    // The same mirrors in both tables hide nothing.
    let same = entries.replace("  - backup.lab:5000/a/b\n", "");
    let (_, warnings) = read("4.22.0", "imageDigestSources", &same).unwrap();
    assert!(
        !warnings.iter().any(|w| w.contains("never trying")),
        "{warnings:?}"
    );
}

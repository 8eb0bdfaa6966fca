//! Mirror registries: the merged, de-duplicated view of imageContentSources /
//! imageDigestSources that registries.conf and the IDMS/ICSP manifests are rendered from.

use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Switch, Switches};
use serde::Serialize;

/// The install-config's mirrors, merged, and the manifest that carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mirrors {
    /// Mirror rules, one per source.
    pub registries: Vec<Registry>,
    /// Which manifest carries them (when there are any).
    pub kind: Option<MirrorKind>,
}

/// A mirror of a source repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mirror {
    /// `host[:port]/path`.
    pub location: String,
    /// Plain HTTP or an unverified certificate is allowed.
    pub insecure: bool,
}

/// One mirrored source: a `[[registry]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Registry {
    /// The source repository prefix.
    pub location: String,
    /// The source itself may be reached insecurely.
    pub insecure: bool,
    /// Never contact the source: only the mirrors.
    pub blocked: bool,
    /// Mirrors are only used for digest references (always true, as on OpenShift).
    pub mirror_by_digest_only: bool,
    /// Mirrors, in first-seen order.
    pub mirrors: Vec<Mirror>,
}

/// Which cluster manifest carries the mirrors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MirrorKind {
    /// From the deprecated `imageContentSources`.
    ImageContentSourcePolicy,
    /// From `imageDigestSources` or the command line.
    ImageDigestMirrorSet,
}

impl MirrorKind {
    /// The Kubernetes kind name.
    pub fn as_str(self) -> &'static str {
        match self {
            MirrorKind::ImageContentSourcePolicy => "ImageContentSourcePolicy",
            MirrorKind::ImageDigestMirrorSet => "ImageDigestMirrorSet",
        }
    }
}

impl Mirrors {
    /// The install-config's mirrors, each repository checked. `sourcePolicy` is read as the
    /// release's installer reads it: where it knows the field; older installers warn and
    /// ignore it, and so does bootgen (the source stays reachable).
    pub(crate) fn read(
        loaded: &LoadedConfig,
        profile: &crate::release::Profile,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<Mirrors> {
        let ic = &loaded.config;
        if !ic.image_content_sources.is_empty()
            && !ic.image_digest_sources.is_empty()
            && switches.has(Switch::OneMirrorList)
        {
            return Err(loaded.field_error("imageContentSources", "cannot be used together with imageDigestSources; move the entries to imageDigestSources"));
        }
        // Before 4.14 the installer does not know imageDigestSources.
        let digest_sources_known = switches.has(Switch::InstallConfigDigestSources);
        if !digest_sources_known && !ic.image_digest_sources.is_empty() {
            super::unknown_fields::ignored_by_release(
            loaded,
            profile.minor,
            &super::unknown_fields::NotInRelease {
                field: "imageDigestSources",
                arrived: crate::release::first_with(Switch::InstallConfigDigestSources),
                consequence: ", so the cluster gets no mirrors from it; write the entries under imageContentSources for this release",
            },
            warnings,
        );
        }
        let no_sources = Vec::new();
        let (list, field, kind) = if ic.image_content_sources.is_empty() {
            (
                if digest_sources_known {
                    &ic.image_digest_sources
                } else {
                    &no_sources
                },
                "imageDigestSources",
                MirrorKind::ImageDigestMirrorSet,
            )
        } else {
            (
                &ic.image_content_sources,
                "imageContentSources",
                MirrorKind::ImageContentSourcePolicy,
            )
        };
        let mut rules = Vec::new();
        for (i, entry) in list.iter().enumerate() {
            let repository = |path: String, value: &str, warnings: &mut Vec<Warning>| {
                check_entry_repository(loaded, switches, profile, &path, value, warnings)
            };
            repository(format!("{field}.{i}.source"), &entry.source, warnings)?;
            for (j, mirror) in entry.mirrors.iter().enumerate() {
                repository(format!("{field}.{i}.mirrors.{j}"), mirror, warnings)?;
            }
            let policy_field = format!("{field}.{i}.sourcePolicy");
            // The installer's imageContentSources entries have no such field: it ignores the key
            // (refuses it from 4.22, as it does every unknown key), so the source would not be
            // blocked as the user meant.
            if kind == MirrorKind::ImageContentSourcePolicy && entry.source_policy.is_some() {
                return Err(loaded.field_error(
                    &policy_field,
                    "imageContentSources entries have no sourcePolicy (the installer ignores it \
                     there, so the source would still be contacted): it is a setting of \
                     imageDigestSources entries, from 4.14; move the entries there",
                ));
            }
            if entry.source_policy.is_some() && !switches.has(Switch::InstallConfigSourcePolicy) {
                warnings.push(loaded.warning(
                &policy_field,
                format!(
                    "ignored: OpenShift {}'s installer does not know this field{}, so the cluster may still contact `{}`; block the source with bootgen's own source blocking instead (ImageDigestMirrorSet releases{})",
                    profile.minor,
                    super::unknown_fields::arrived_text(crate::release::first_with(
                        Switch::InstallConfigSourcePolicy
                    )),
                    entry.source,
                    crate::release::first_with(Switch::ImageDigestMirrorSet)
                        .map_or_else(String::new, |minor| format!(", {minor} on"))
                ),
            ));
                rules.push((entry.source.clone(), entry.mirrors.clone(), false));
                continue;
            }
            if let (Some(policy), true) = (&entry.source_policy, entry.mirrors.is_empty()) {
                return Err(loaded.field_error(
                    &policy_field,
                    format!("`{policy}` cannot be configured without a mirror: give the entry mirrors, or remove sourcePolicy"),
                ));
            }
            let blocked = match entry.source_policy.as_deref() {
                None | Some("AllowContactingSource") => false,
                Some("NeverContactSource") => true,
                Some(other) => {
                    return Err(loaded.field_error(
                        &policy_field,
                        format!("`{other}` must be AllowContactingSource or NeverContactSource"),
                    ))
                }
            };
            rules.push((entry.source.clone(), entry.mirrors.clone(), blocked));
        }
        let registries = merge(rules);
        let kind = (!registries.is_empty()).then_some(kind);
        Ok(Mirrors { registries, kind })
    }
}

/// Checks a mirror entry's source or mirror as the release's installer does. A registry host
/// alone is refused before 4.10 (not a canonical repository name), then checked as a host; a
/// single label then is accepted, with a warning: podman and CRI-O read a name without a dot
/// or port as a Docker Hub repository.
fn check_entry_repository(
    loaded: &LoadedConfig,
    switches: &Switches,
    profile: &crate::release::Profile,
    field: &str,
    value: &str,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    if value.contains('/') || value.is_empty() {
        return crate::release::check_repository(value).map_err(|m| loaded.field_error(field, m.0));
    }
    if !switches.has(Switch::MirrorBareHost) {
        return Err(loaded.field_error(
            field,
            format!(
                "`{}` is a registry host without a repository, which OpenShift {}'s installer refuses (repository name must be canonical{}): name a repository on it, such as {value}/ocp/release",
                crate::release::without_credentials(value),
                profile.minor,
                crate::release::first_with(Switch::MirrorBareHost)
                    .map_or_else(String::new, |minor| format!("; accepted from {minor}"))
            ),
        ));
    }
    crate::release::check_registry_host(value).map_err(|m| loaded.field_error(field, m.0))?;
    let (name, _) = value.split_once(':').unwrap_or((value, ""));
    if !value.contains(':') && !name.contains('.') && name != "localhost" {
        warnings.push(loaded.warning(
            field,
            format!("`{value}` has no dot and no port: the installer accepts it, but podman and CRI-O on the nodes read such a name as a Docker Hub repository (docker.io/library/{value}), so pulls through it go there; write the host with its domain or its port"),
        ));
    }
    Ok(())
}

/// Merges mirror rules: sources de-duplicated in first-seen order, mirrors unioned per source,
/// sources without mirrors dropped.
pub fn merge(rules: impl IntoIterator<Item = (String, Vec<String>, bool)>) -> Vec<Registry> {
    let mut registries: Vec<Registry> = Vec::new();
    for (source, mirrors, blocked) in rules {
        let index = match registries.iter().position(|r| r.location == source) {
            Some(i) => i,
            None => {
                registries.push(Registry {
                    location: source,
                    insecure: false,
                    blocked: false,
                    mirror_by_digest_only: true,
                    mirrors: Vec::new(),
                });
                registries.len() - 1
            }
        };
        let registry = &mut registries[index];
        registry.blocked |= blocked;
        for location in mirrors {
            if !registry.mirrors.iter().any(|m| m.location == location) {
                registry.mirrors.push(Mirror {
                    location,
                    insecure: false,
                });
            }
        }
    }
    registries.retain(|r| !r.mirrors.is_empty());
    registries
}

/// The host (with port) of a repository reference.
pub fn host_of(reference: &str) -> &str {
    reference.split('/').next().unwrap_or(reference)
}

/// True when `image` (a pull spec) lies under the repository prefix `source`.
pub fn matches_source(image: &str, source: &str) -> bool {
    let repo = repository_of(image);
    repo == source || repo.starts_with(&format!("{source}/"))
}

/// The repository part of a pull spec (without tag or digest).
pub fn repository_of(image: &str) -> &str {
    if let Some((repo, _)) = image.split_once('@') {
        return repo;
    }
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => &image[..colon],
        _ => image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_in_first_seen_order_and_drops_empty() {
        let merged = merge(vec![
            ("a.io/x".into(), vec!["m1/x".into(), "m2/x".into()], false),
            ("b.io/y".into(), vec![], false),
            ("a.io/x".into(), vec!["m2/x".into(), "m3/x".into()], true),
        ]);
        assert_eq!(merged.len(), 1);
        let locations: Vec<_> = merged[0]
            .mirrors
            .iter()
            .map(|m| m.location.as_str())
            .collect();
        assert_eq!(locations, ["m1/x", "m2/x", "m3/x"]);
        assert!(merged[0].blocked);
    }

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

    #[test]
    fn a_source_policy_without_mirrors_is_refused_from_4_21() {
        let entry = "- source: quay.io/empty/repo\n  sourcePolicy: NeverContactSource\n";
        for version in ["4.21.0", "4.22.0", "5.0.0"] {
            let refused = read(version, "imageDigestSources", entry).unwrap_err();
            assert!(
                refused.contains("imageDigestSources[0].sourcePolicy")
                    && refused
                        .contains("`NeverContactSource` cannot be configured without a mirror"),
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
        let refused =
            read("4.16.0", "imageContentSources", &entry(release, "mir_ror")).unwrap_err();
        assert!(
            refused.contains("`mir_ror` is not a registry host"),
            "{refused}"
        );
    }

    #[test]
    fn repository_and_source_matching() {
        assert_eq!(repository_of("quay.io/a/b:4.19"), "quay.io/a/b");
        assert_eq!(repository_of("reg:5000/a/b@sha256:00"), "reg:5000/a/b");
        assert_eq!(repository_of("reg:5000/a/b"), "reg:5000/a/b");
        assert!(matches_source("quay.io/a/b:1", "quay.io/a"));
        assert!(!matches_source("quay.io/ab:1", "quay.io/a"));
    }
}

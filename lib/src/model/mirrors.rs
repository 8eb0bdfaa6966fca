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
            crate::release::check_repository(&entry.source)
                .map_err(|m| loaded.field_error(&format!("{field}.{i}.source"), m.0))?;
            for (j, mirror) in entry.mirrors.iter().enumerate() {
                crate::release::check_repository(mirror)
                    .map_err(|m| loaded.field_error(&format!("{field}.{i}.mirrors.{j}"), m.0))?;
            }
            let policy_field = format!("{field}.{i}.sourcePolicy");
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

    #[test]
    fn repository_and_source_matching() {
        assert_eq!(repository_of("quay.io/a/b:4.19"), "quay.io/a/b");
        assert_eq!(repository_of("reg:5000/a/b@sha256:00"), "reg:5000/a/b");
        assert_eq!(repository_of("reg:5000/a/b"), "reg:5000/a/b");
        assert!(matches_source("quay.io/a/b:1", "quay.io/a"));
        assert!(!matches_source("quay.io/ab:1", "quay.io/a"));
    }
}

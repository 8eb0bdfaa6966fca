//! Mirror registries: the merged, de-duplicated view of imageContentSources /
//! imageDigestSources that registries.conf and the IDMS/ICSP manifests are rendered from.

use serde::Serialize;

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

//! What a release payload's pull spec says about its distribution: OKD publishes to
//! `quay.io/okd/scos-release` with tags such as `4.17.0-okd-scos.0`, OpenShift to
//! `quay.io/openshift-release-dev/ocp-release` with tags such as `4.17.0-x86_64`. A digest on a
//! mirror says nothing; the caller then asks the mirrors' sources, or the user.

use super::dimensions::Distribution;

/// The repository (without tag or digest) and the tag of a pull spec.
fn split(reference: &str) -> (&str, Option<&str>) {
    let without_digest = reference.split('@').next().unwrap_or(reference);
    let last_slash = without_digest.rfind('/').map_or(0, |i| i + 1);
    match without_digest[last_slash..].rfind(':') {
        Some(colon) => (
            &without_digest[..last_slash + colon],
            Some(&without_digest[last_slash + colon + 1..]),
        ),
        None => (without_digest, None),
    }
}

/// Whether a payload is OKD on Fedora CoreOS (`quay.io/openshift/okd`, tags such as
/// `4.15.0-0.okd-2024-03-10-010116`), the OKD of the installer's `okd` build before OKD moved to
/// CentOS Stream CoreOS: a distribution bootgen does not make.
pub fn is_fedora_okd(reference: &str) -> bool {
    let (repository, tag) = split(reference);
    let tag = tag.unwrap_or_default();
    let okd_tag = tag.contains(".okd-") && !tag.contains("okd-scos");
    repository.ends_with("openshift/okd") || okd_tag
}

/// The distribution a payload's repository or tag names, when it names one.
pub fn distribution_of_reference(reference: &str) -> Option<Distribution> {
    let (repository, tag) = split(reference);
    let name = repository.rsplit('/').next().unwrap_or(repository);
    let tag = tag.unwrap_or_default();
    // OKD's own repositories (and CI's origin one), or an OKD tag wherever it is mirrored.
    if name == "scos-release" || name == "release-scos" || tag.contains("okd-scos") {
        return Some(Distribution::Okd);
    }
    if matches!(name, "ocp-release" | "ocp-release-nightly") {
        return Some(Distribution::Ocp);
    }
    // OpenShift tags end with the payload's architecture; OKD's never do.
    let arch_suffix = crate::arch::strip_arch_suffix(tag);
    if !tag.is_empty() && arch_suffix.len() < tag.len() {
        return Some(Distribution::Ocp);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_name_their_distribution() {
        let of = distribution_of_reference;
        assert_eq!(
            of("quay.io/okd/scos-release:4.17.0-okd-scos.0"),
            Some(Distribution::Okd)
        );
        assert_eq!(
            of("quay.io/okd/scos-release@sha256:0123"),
            Some(Distribution::Okd)
        );
        // Mirrored under another path, the tag still says it.
        assert_eq!(
            of("mirror.lab:5000/okd4/release:4.20.0-okd-scos.6"),
            Some(Distribution::Okd)
        );
        assert_eq!(
            of("quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"),
            Some(Distribution::Ocp)
        );
        assert_eq!(
            of("mirror.lab:5000/ocp4/openshift4:4.17.3-aarch64"),
            Some(Distribution::Ocp)
        );
        assert_eq!(of("mirror.lab:5000/ocp4/openshift4@sha256:0123"), None);
        assert_eq!(of("mirror.lab:5000/release:4.17.0"), None);
        assert!(is_fedora_okd(
            "quay.io/openshift/okd:4.15.0-0.okd-2024-03-10-010116"
        ));
        assert!(is_fedora_okd("quay.io/openshift/okd@sha256:0123"));
        assert!(is_fedora_okd(
            "mirror:5000/okd:4.14.0-0.okd-2023-12-01-225814"
        ));
        assert!(!is_fedora_okd(
            "quay.io/okd/scos-release:4.14.0-0.okd-scos-2023-10-18-221014"
        ));
        assert!(!is_fedora_okd("quay.io/okd/scos-release:4.17.0-okd-scos.0"));
        assert!(!is_fedora_okd(
            "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64"
        ));
    }
}

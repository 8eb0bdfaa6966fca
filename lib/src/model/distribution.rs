//! Which distribution the cluster is, OpenShift or OKD: the one the release payload's repository
//! or tag names, or, for a payload on a mirror that names none, the one of the repository the
//! install-config mirrors there; `--distribution` when nothing says it, and an error when it
//! contradicts the payload.

use super::mirrors::matches_source;
use crate::config::LoadedConfig;
use crate::error::{Error, OptionField, Result};
use crate::release::{
    distribution_of_reference, is_fedora_okd, Distribution, DistributionFacts, Profile,
};

/// The distribution of the cluster whose payload is `release_image` (`None`: the default one
/// will be named after the distribution), with `asked` from the options.
pub(crate) fn choose(
    loaded: &LoadedConfig,
    release_image: Option<&str>,
    asked: Option<Distribution>,
) -> Result<Distribution> {
    if let Some(image) = release_image.filter(|image| is_fedora_okd(image)) {
        let okd_since =
            crate::release::first_release(|p| p.distribution(Distribution::Okd).is_some())
                .map_or_else(String::new, |minor| format!(", from {minor}"));
        return Err(Error::InvalidOption {
            option: OptionField::ReleaseImage,
            message: format!(
                "`{image}` is OKD on Fedora CoreOS, which bootgen does not make: it makes OKD on \
                 CentOS Stream CoreOS (quay.io/okd/scos-release{okd_since}) and OpenShift"
            ),
        });
    }
    let said = release_image.and_then(|image| {
        distribution_of_reference(image).or_else(|| through_mirrors(loaded, image))
    });
    match (asked, said, release_image) {
        (Some(asked), Some(said), Some(image)) if asked != said => Err(Error::InvalidOption {
            option: OptionField::Distribution,
            message: format!(
                "`{image}` is an {} payload, not {}: give an {} payload or leave the distribution out",
                said.label(),
                asked.label(),
                asked.label(),
            ),
        }),
        (Some(asked), _, _) => Ok(asked),
        (None, Some(said), _) => Ok(said),
        (None, None, _) => Ok(Distribution::Ocp),
    }
}

/// The cluster's distribution ([`choose`], from `options`) and its facts in `profile`.
pub(crate) fn choose_with_facts(
    loaded: &LoadedConfig,
    options: &super::ModelOptions,
    profile: &Profile,
) -> Result<(Distribution, DistributionFacts)> {
    let distribution = choose(
        loaded,
        options.release_image.as_deref(),
        options.distribution,
    )?;
    let chosen_by = if options.distribution.is_some() {
        OptionField::Distribution
    } else {
        OptionField::ReleaseImage
    };
    let facts = facts(distribution, profile, chosen_by)?.clone();
    Ok((distribution, facts))
}

/// The distribution of the repository the install-config mirrors at the payload's repository.
fn through_mirrors(loaded: &LoadedConfig, image: &str) -> Option<Distribution> {
    let ic = &loaded.config;
    ic.image_digest_sources
        .iter()
        .chain(&ic.image_content_sources)
        .filter(|s| {
            s.mirrors
                .iter()
                .any(|m| matches_source(image, m.trim_end_matches('/')))
        })
        .find_map(|s| distribution_of_reference(&s.source))
}

/// The default payload of `version` for `distribution`, or why there is none: OKD's tags carry
/// a build number (`4.17.0-okd-scos.0`) that no version names, so OKD needs the payload itself.
pub(crate) fn default_release_image(
    distribution: Distribution,
    profile: &Profile,
    version: &str,
    suffix: &str,
) -> Result<String> {
    let facts = facts(distribution, profile, OptionField::Distribution)?;
    match distribution {
        Distribution::Ocp => Ok(format!("{}:{version}-{suffix}", facts.repository)),
        _ => Err(Error::InvalidOption {
            option: OptionField::Distribution,
            message: format!(
                "{} payloads are tagged with a build number that a version does not name: give the \
                 release image, e.g. {}:{version}-okd-scos.0, or its digest",
                distribution.label(),
                facts.repository
            ),
        }),
    }
}

/// What `profile`'s release is in `distribution`, or an error naming the releases that have it,
/// blaming `chosen_by`: `--distribution` when it was asked for, the release image when the
/// payload said it.
pub(crate) fn facts(
    distribution: Distribution,
    profile: &Profile,
    chosen_by: OptionField,
) -> Result<&crate::release::DistributionFacts> {
    profile.distribution(distribution).ok_or_else(|| {
        let first = crate::release::PROFILES
            .iter()
            .find(|p| p.distribution(distribution).is_some())
            .map_or_else(String::new, |p| {
                format!(": its bootstraps start with {}", p.minor)
            });
        Error::InvalidOption {
            option: chosen_by,
            message: format!(
                "{} {} is not made by bootgen{first}",
                distribution.label(),
                profile.minor
            ),
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn loaded(tail: &str) -> LoadedConfig {
        let text = format!(
            "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\nplatform:\n  none: {{}}\npullSecret: '{{}}'\n{tail}"
        );
        crate::config::parse(&text, "install-config.yaml").unwrap()
    }

    #[test]
    fn the_payload_says_it_and_an_option_may_not_contradict_it() {
        let plain = loaded("");
        let okd = "quay.io/okd/scos-release:4.17.0-okd-scos.0";
        let ocp = "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64";
        assert_eq!(choose(&plain, Some(okd), None).unwrap(), Distribution::Okd);
        assert_eq!(choose(&plain, Some(ocp), None).unwrap(), Distribution::Ocp);
        assert_eq!(choose(&plain, None, None).unwrap(), Distribution::Ocp);
        let digest = "mirror.lab:5000/okd@sha256:0123";
        assert_eq!(
            choose(&plain, Some(digest), None).unwrap(),
            Distribution::Ocp
        );
        assert_eq!(
            choose(&plain, Some(digest), Some(Distribution::Okd)).unwrap(),
            Distribution::Okd
        );
        let refused = choose(&plain, Some(ocp), Some(Distribution::Okd))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains(ocp) && refused.contains("OpenShift payload, not OKD"),
            "{refused}"
        );
        let fedora = "quay.io/openshift/okd:4.15.0-0.okd-2024-03-10-010116";
        let refused = choose(&plain, Some(fedora), None).unwrap_err().to_string();
        assert!(
            refused.contains("Fedora CoreOS") && refused.contains("scos-release, from 4.12)"),
            "{refused}"
        );
    }

    #[test]
    fn a_mirrored_okd_payload_is_okd() {
        let mirrored = loaded(
            "imageDigestSources:\n- source: quay.io/okd/scos-release\n  mirrors:\n  - mirror.lab:5000/okd/release\n",
        );
        let digest = "mirror.lab:5000/okd/release@sha256:0123";
        assert_eq!(
            choose(&mirrored, Some(digest), None).unwrap(),
            Distribution::Okd
        );
        let elsewhere = "other.lab:5000/okd/release@sha256:0123";
        assert_eq!(
            choose(&mirrored, Some(elsewhere), None).unwrap(),
            Distribution::Ocp
        );
    }
}

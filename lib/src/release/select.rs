//! Which release a generation is for: from the version the caller gives, or from the release
//! image's tag, and never a guess. A digest says nothing about its version, so it needs one; a
//! tag and a version that disagree, and versions bootgen has no profile for, are errors.

use super::profile::{minors, profile_for, profile_for_patch, Profile, PROFILES};
use super::version::{version_of_reference, Minor, ReleaseVersion};
use crate::error::{Error, OptionField, Result};

/// The release a generation is for, and how it was chosen.
#[derive(Debug, Clone)]
pub struct SelectedRelease {
    /// The full version.
    pub version: ReleaseVersion,
    /// Its profile.
    pub profile: &'static Profile,
    /// True when nothing named a version and the default was taken.
    pub defaulted: bool,
}

/// The oldest supported release of which `has` holds (where a field or a setting arrived), for
/// messages that say so; `None` when no release has it. Release facts stay in the table: code
/// asks here instead of naming a minor.
pub fn first_release(has: impl Fn(&Profile) -> bool) -> Option<Minor> {
    PROFILES.iter().find(|p| has(p)).map(|p| p.minor)
}

/// The oldest supported release with the switch `switch` on (for a cluster node on platform
/// none of OpenShift, the dimensions switches about the install-config hold for).
pub fn first_with(switch: super::Switch) -> Option<Minor> {
    first_release(|p| p.switches(super::Dimensions::default()).has(switch))
}

/// The newest supported release that is not a development one; `None` only when the release
/// table does not load ([`check_table`](super::check_table) says why), as a table without such a
/// release is refused when it loads.
pub fn default_minor() -> Option<Minor> {
    minors()
        .rev()
        .find(|(_, development)| !development)
        .map(|(minor, _)| minor)
}

/// The supported minors, oldest first, as text for messages (`4.9, 4.10, ... 5.0 (development)`).
pub fn supported_list() -> String {
    minors()
        .map(|(minor, development)| {
            if development {
                format!("{minor} (development)")
            } else {
                minor.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn unsupported(minor: Minor) -> String {
    format!(
        "OpenShift {minor} is not supported; bootgen makes bootstraps for {}",
        supported_list()
    )
}

/// Chooses the release from an explicit version and/or the release image reference.
pub fn select(version: Option<&str>, image: Option<&str>) -> Result<SelectedRelease> {
    super::profile::check_table()?;
    let given = version
        .map(|text| {
            text.parse::<ReleaseVersion>().map_err(|message| {
                // A bare minor bootgen has no profile for (`3.11`) is not supported whatever
                // patch is added: say that, rather than suggest `3.11.0`.
                let message = match text.parse::<Minor>() {
                    Ok(minor) if profile_for(minor).is_none() => unsupported(minor),
                    _ => message,
                };
                Error::InvalidOption {
                    option: OptionField::ReleaseVersion,
                    message,
                }
            })
        })
        .transpose()?;
    let tagged = image.and_then(version_of_reference);
    let (chosen, defaulted) = match (given, tagged, image) {
        (Some(given), Some(tagged), Some(image)) => {
            if given != tagged {
                return Err(Error::InvalidOption {
                    option: OptionField::ReleaseVersion,
                    message: format!(
                        "{given} disagrees with the release image `{image}`, whose tag says {tagged}; drop one or make them agree"
                    ),
                });
            }
            (given, false)
        }
        (Some(given), _, _) => (given, false),
        (None, Some(tagged), _) => (tagged, false),
        (None, None, Some(image)) => {
            let example = default_minor().map_or_else(String::new, |m| format!(", e.g. {m}.0"));
            return Err(Error::InvalidOption {
                option: OptionField::ReleaseVersion,
                message: format!(
                    "the release image `{image}` does not say which release it is (a digest, or a tag without a version), and the bootstrap differs by release: give the version with {}{example}",
                    OptionField::ReleaseVersion,
                ),
            });
        }
        (None, None, None) => {
            let minor = default_minor().ok_or_else(|| Error::ReleaseTable {
                fault: "no release outside development to default to".into(),
            })?;
            (
                ReleaseVersion {
                    minor,
                    patch: 0,
                    pre: None,
                },
                true,
            )
        }
    };
    let profile =
        profile_for_patch(chosen.minor, chosen.patch).ok_or_else(|| Error::InvalidOption {
            option: OptionField::ReleaseVersion,
            message: unsupported(chosen.minor),
        })?;
    Ok(SelectedRelease {
        version: chosen,
        profile,
        defaulted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<SelectedRelease>) -> String {
        match result {
            Ok(s) => panic!("accepted {}", s.version),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn version_from_flag_tag_or_default() {
        let default = select(None, None).unwrap();
        assert!(default.defaulted);
        assert!(!default.profile.development);
        assert_eq!(Some(default.version.minor), default_minor());
        let tagged = select(None, Some("quay.io/x/ocp-release:4.16.3-x86_64")).unwrap();
        assert_eq!(tagged.version.to_string(), "4.16.3");
        assert_eq!(tagged.profile.minor, Minor::new(4, 16));
        let both = select(Some("4.16.3"), Some("quay.io/x/ocp-release:4.16.3-x86_64")).unwrap();
        assert!(!both.defaulted);
        let digest = select(Some("4.14.7"), Some("quay.io/x/ocp-release@sha256:ab")).unwrap();
        assert_eq!(digest.profile.minor, Minor::new(4, 14));
    }

    #[test]
    fn refuses_what_cannot_be_right() {
        let digest = message(select(None, Some("quay.io/x/ocp-release@sha256:ab")));
        assert!(digest.contains("does not say which release"), "{digest}");
        let mismatch = message(select(Some("4.16.2"), Some("quay.io/x/r:4.16.3-x86_64")));
        assert!(mismatch.contains("disagrees"), "{mismatch}");
        for unsupported in ["6.0.0", "3.11.0", "4.99.0"] {
            let text = message(select(Some(unsupported), None));
            assert!(
                text.contains("is not supported") && text.contains("4.12"),
                "{text}"
            );
        }
        let bare = message(select(Some("4.16"), None));
        assert!(bare.contains("4.16.0"), "{bare}");
        // A bare minor without a profile is not sent to a patch version that is refused too.
        for bare in ["3.11", "4.99", "6.0"] {
            let text = message(select(Some(bare), None));
            assert!(
                text.contains(&format!("OpenShift {bare} is not supported"))
                    && text.contains("4.12"),
                "{text}"
            );
            assert!(!text.contains(&format!("{bare}.0")), "{text}");
        }
    }
}

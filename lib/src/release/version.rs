//! OpenShift versions: a minor (`4.16`), which picks the release profile, and a full release
//! version (`4.16.3`, `4.17.0-rc.2`), which names the payload.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// An OpenShift minor release, e.g. 4.16.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Minor {
    /// 4 or 5.
    pub major: u32,
    /// The minor number.
    pub minor: u32,
}

impl Minor {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Minor {
        Minor { major, minor }
    }
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for Minor {
    type Err = String;

    fn from_str(text: &str) -> Result<Minor, String> {
        let (major, minor) = text
            .split_once('.')
            .ok_or_else(|| format!("`{text}` is not a minor release such as 4.16"))?;
        let number = |part: &str| {
            (!part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
                .then(|| part.parse::<u32>().ok())
                .flatten()
                .ok_or_else(|| format!("`{text}` is not a minor release such as 4.16"))
        };
        Ok(Minor::new(number(major)?, number(minor)?))
    }
}

/// A full release version: `4.16.3`, or a pre-release such as `4.17.0-rc.2` or
/// `4.18.0-0.nightly-2024-10-01-120000`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseVersion {
    /// The minor it belongs to.
    pub minor: Minor,
    /// The patch number.
    pub patch: u32,
    /// What follows `-`, for pre-releases and nightlies.
    pub pre: Option<String>,
}

impl fmt::Display for ReleaseVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.minor, self.patch)?;
        if let Some(pre) = &self.pre {
            write!(f, "-{pre}")?;
        }
        Ok(())
    }
}

impl FromStr for ReleaseVersion {
    type Err = String;

    /// `X.Y.Z` with an optional `-suffix`; a bare `X.Y` is refused (it names no payload).
    fn from_str(text: &str) -> Result<ReleaseVersion, String> {
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) if !pre.is_empty() => (core, Some(pre.to_string())),
            Some(_) => return Err(format!("`{text}` is not a version such as 4.16.3")),
            None => (text, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        let numbers: Option<Vec<u32>> = parts
            .iter()
            .map(|p| {
                (!p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
                    .then(|| p.parse().ok())
                    .flatten()
            })
            .collect();
        match (numbers.as_deref(), parts.len()) {
            (Some([major, minor, patch]), 3) => Ok(ReleaseVersion {
                minor: Minor::new(*major, *minor),
                patch: *patch,
                pre,
            }),
            (Some(_), 2) => Err(format!(
                "`{text}` names a minor release, not a payload: give the full version, e.g. {core}.0"
            )),
            _ => Err(format!("`{text}` is not a version such as 4.16.3")),
        }
    }
}

/// The version a release image's tag names (`...:4.16.3-x86_64`, `...:4.16.3-multi`,
/// `...:4.18.0-0.nightly-...`); `None` for a digest or a tag that does not start with one.
pub fn version_of_reference(reference: &str) -> Option<ReleaseVersion> {
    if reference.contains('@') {
        return None;
    }
    let last = reference.rsplit('/').next().unwrap_or(reference);
    let (_, tag) = last.split_once(':')?;
    // The architecture suffix is not part of the version.
    let without_arch = crate::arch::strip_arch_suffix(tag);
    without_arch.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions_and_refuses_bare_minors() {
        let v: ReleaseVersion = "4.16.3".parse().unwrap();
        assert_eq!(
            (v.minor, v.patch, v.pre.as_deref()),
            (Minor::new(4, 16), 3, None)
        );
        let rc: ReleaseVersion = "4.17.0-rc.2".parse().unwrap();
        assert_eq!(rc.pre.as_deref(), Some("rc.2"));
        assert_eq!(rc.to_string(), "4.17.0-rc.2");
        let bare = "4.16".parse::<ReleaseVersion>().unwrap_err();
        assert!(bare.contains("4.16.0"), "{bare}");
        for bad in ["3", "4.x.1", "4.16.3.1", "", "v4.16.3", "4.16.3-"] {
            assert!(bad.parse::<ReleaseVersion>().is_err(), "{bad}");
        }
        assert_eq!("5.0".parse::<Minor>().unwrap(), Minor::new(5, 0));
        assert!(Minor::new(4, 9) < Minor::new(4, 10));
        assert!(Minor::new(4, 22) < Minor::new(5, 0));
    }

    #[test]
    fn reads_the_version_from_a_tag() {
        let v = |r: &str| version_of_reference(r).map(|v| v.to_string());
        assert_eq!(
            v("quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64").as_deref(),
            Some("4.16.3")
        );
        assert_eq!(
            v("quay.io/x/ocp-release:4.12.0-multi").as_deref(),
            Some("4.12.0")
        );
        assert_eq!(
            v("quay.io/x/ocp-release:4.19.0-aarch64").as_deref(),
            Some("4.19.0")
        );
        assert_eq!(
            v("mirror:5000/ocp/release:4.21.1").as_deref(),
            Some("4.21.1")
        );
        assert_eq!(
            v("registry.ci/ocp/release:4.18.0-0.nightly-2024-10-01-120000").as_deref(),
            Some("4.18.0-0.nightly-2024-10-01-120000")
        );
        assert_eq!(v("quay.io/x/ocp-release@sha256:abcd"), None);
        assert_eq!(v("quay.io/x/ocp-release:latest"), None);
        assert_eq!(v("localhost:5000/release"), None);
    }
}

//! The install-config's words from closed sets the release table lists per release:
//! `featureSet` and `osImageStream`. The table says which a release accepts; these types say
//! which exist, and a test holds the two together.

use serde::Serialize;

/// `featureSet`: which of the cluster's feature gates are on, besides the default set (which
/// the install-config says by leaving the field out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ClusterFeatureSet {
    /// Technology previews, and no upgrades.
    TechPreviewNoUpgrade,
    /// Development previews, and no upgrades.
    DevPreviewNoUpgrade,
    /// Exactly the gates `featureGates` turns on and off, and no upgrades.
    CustomNoUpgrade,
    /// The default set with the latency-sensitive gates (releases before it was folded in).
    LatencySensitive,
    /// OKD's own set (OKD's installer only).
    Okd,
}

impl ClusterFeatureSet {
    /// Every feature set.
    pub const ALL: [ClusterFeatureSet; 5] = [
        ClusterFeatureSet::TechPreviewNoUpgrade,
        ClusterFeatureSet::DevPreviewNoUpgrade,
        ClusterFeatureSet::CustomNoUpgrade,
        ClusterFeatureSet::LatencySensitive,
        ClusterFeatureSet::Okd,
    ];

    /// The install-config's word for it, e.g. `TechPreviewNoUpgrade`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterFeatureSet::TechPreviewNoUpgrade => "TechPreviewNoUpgrade",
            ClusterFeatureSet::DevPreviewNoUpgrade => "DevPreviewNoUpgrade",
            ClusterFeatureSet::CustomNoUpgrade => "CustomNoUpgrade",
            ClusterFeatureSet::LatencySensitive => "LatencySensitive",
            ClusterFeatureSet::Okd => "OKD",
        }
    }

    /// The set the install-config word `name` names.
    pub fn from_name(name: &str) -> Option<ClusterFeatureSet> {
        ClusterFeatureSet::ALL
            .into_iter()
            .find(|set| set.as_str() == name)
    }

    /// The word of an optional set: `""` for the default one, as the release table and the
    /// templates write it.
    pub fn name_of(set: Option<ClusterFeatureSet>) -> &'static str {
        set.map_or("", ClusterFeatureSet::as_str)
    }
}

impl Serialize for ClusterFeatureSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// `osImageStream`: the OS the cluster's node image is built on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OsImageStream {
    /// RHEL 9 CoreOS.
    Rhel9,
    /// RHEL 10 CoreOS.
    Rhel10,
    /// CentOS Stream 10 CoreOS (OKD).
    Centos10,
}

impl OsImageStream {
    /// Every stream.
    pub const ALL: [OsImageStream; 3] = [
        OsImageStream::Rhel9,
        OsImageStream::Rhel10,
        OsImageStream::Centos10,
    ];

    /// The install-config's word for it, e.g. `rhel-9`.
    pub fn as_str(self) -> &'static str {
        match self {
            OsImageStream::Rhel9 => "rhel-9",
            OsImageStream::Rhel10 => "rhel-10",
            OsImageStream::Centos10 => "centos-10",
        }
    }

    /// The stream the install-config word `name` names.
    pub fn from_name(name: &str) -> Option<OsImageStream> {
        OsImageStream::ALL
            .into_iter()
            .find(|stream| stream.as_str() == name)
    }

    /// The word of an optional stream: `""` before releases had streams, as the release table
    /// and the templates write it.
    pub fn name_of(stream: Option<OsImageStream>) -> &'static str {
        stream.map_or("", OsImageStream::as_str)
    }
}

impl Serialize for OsImageStream {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{Distribution, PROFILES};

    /// Every feature set and stream a release's rows name is one of these types, so a value
    /// the table adds cannot be read as the default.
    #[test]
    fn every_word_the_release_table_names_is_typed() {
        for profile in PROFILES.iter() {
            let opt_ins = profile.opt_ins.iter().flat_map(|o| &o.feature_sets);
            for set in opt_ins.filter(|s| !s.is_empty()) {
                assert!(ClusterFeatureSet::from_name(set).is_some(), "{set}");
            }
            for distribution in [Distribution::Ocp, Distribution::Okd] {
                let Some(facts) = profile.distribution(distribution) else {
                    continue;
                };
                for set in facts.feature_sets.iter().filter(|s| !s.is_empty()) {
                    let typed = ClusterFeatureSet::from_name(set);
                    assert_eq!(typed.map(ClusterFeatureSet::as_str), Some(set.as_str()));
                }
                let streams = facts.os_image_streams.iter();
                for stream in streams.chain([&facts.os_image_stream]) {
                    if !stream.is_empty() {
                        let typed = OsImageStream::from_name(stream);
                        assert_eq!(typed.map(OsImageStream::as_str), Some(stream.as_str()));
                    }
                }
            }
        }
    }
}

//! `cpuPartitioningMode`: workload partitioning, which the installer records in the
//! Infrastructure's `status.cpuPartitioning`; the machine-config operator's bootstrap reads it
//! there and gives every node its workload pinning.

use super::unknown_fields::{ignored_by_release, NotInRelease};
use super::ClusterFeatureSet;
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{first_with, Profile, Switch, Switches};
use serde::Serialize;

/// The Infrastructure's `status.cpuPartitioning`: whether the nodes are set up for workload
/// partitioning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpuPartitioning {
    /// No partitioning (the default).
    #[default]
    None,
    /// Every node is set up for partitioning.
    AllNodes,
}

impl CpuPartitioning {
    /// The word the install-config and the Infrastructure object write.
    pub fn as_str(self) -> &'static str {
        match self {
            CpuPartitioning::None => "None",
            CpuPartitioning::AllNodes => "AllNodes",
        }
    }
}

impl Serialize for CpuPartitioning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The partitioning the release's installer gives the cluster for `cpuPartitioningMode`: a
/// release that does not know the field ignores it (said in a warning); 4.13's installer
/// carries `AllNodes` out only with featureSet TechPreviewNoUpgrade (said too). The installer
/// takes any other word as `None`; bootgen refuses it, since a misspelled `AllNodes` would leave
/// the nodes unpartitioned without a word.
pub(crate) fn cpu_partitioning(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
    feature_set: Option<ClusterFeatureSet>,
    warnings: &mut Vec<Warning>,
) -> Result<CpuPartitioning> {
    const FIELD: &str = "cpuPartitioningMode";
    let Some(written) = loaded
        .config
        .cpu_partitioning_mode
        .as_deref()
        .filter(|w| !w.is_empty())
    else {
        return Ok(CpuPartitioning::None);
    };
    if !switches.has(Switch::CpuPartitioningMode) {
        ignored_by_release(
            loaded,
            profile.minor,
            &NotInRelease {
                field: FIELD,
                arrived: first_with(Switch::CpuPartitioningMode),
                consequence: ", so the nodes are not set up for workload partitioning",
            },
            warnings,
        );
        return Ok(CpuPartitioning::None);
    }
    let modes = [CpuPartitioning::None, CpuPartitioning::AllNodes];
    let Some(mode) = modes.into_iter().find(|m| m.as_str() == written) else {
        let hint = crate::config::nearest(written, modes.map(CpuPartitioning::as_str))
            .map_or_else(String::new, |meant| format!(" (did you mean {meant}?)"));
        return Err(loaded.field_error(
            FIELD,
            format!(
                "`{written}` is not a partitioning mode{hint}: write `AllNodes` or `None` (the installer would take it as None, leaving the nodes unpartitioned)"
            ),
        ));
    };
    let preview = ClusterFeatureSet::TechPreviewNoUpgrade;
    if mode == CpuPartitioning::AllNodes
        && switches.has(Switch::CpuPartitioningNeedsTechPreview)
        && feature_set != Some(preview)
    {
        warnings.push(loaded.warning(
            FIELD,
            format!(
                "ignored: OpenShift {}'s installer sets nodes up for workload partitioning only with `featureSet: {}`, so the nodes are not partitioned",
                profile.minor,
                preview.as_str()
            ),
        ));
        return Ok(CpuPartitioning::None);
    }
    Ok(mode)
}

#[cfg(test)]
mod tests {
    use super::CpuPartitioning;

    use super::super::MINIMAL_INSTALL_CONFIG as BASE;

    /// The partitioning and the warnings the model gives `tail` on release `version`.
    fn model(version: &str, tail: &str) -> Result<(CpuPartitioning, Vec<String>), String> {
        let (model, warnings) =
            super::super::model_with_warnings(&format!("{BASE}{tail}"), version)?;
        Ok((model.cpu_partitioning, warnings))
    }

    #[test]
    fn all_nodes_is_carried_out_from_the_release_that_reads_it() {
        let all = "cpuPartitioningMode: AllNodes\n";
        for version in ["4.14.0", "4.16.3", "4.21.0", "4.22.0", "5.0.0"] {
            assert_eq!(
                model(version, all).unwrap().0,
                CpuPartitioning::AllNodes,
                "{version}"
            );
        }
        let (none, warnings) = model("4.16.0", "cpuPartitioningMode: None\n").unwrap();
        assert_eq!(none, CpuPartitioning::None);
        assert!(warnings.iter().all(|w| !w.contains("cpuPartitioningMode")));
        // 4.12's installer does not know the field and ignores it; 4.11's refuses it.
        let (ignored, warnings) = model("4.12.0", all).unwrap();
        assert_eq!(ignored, CpuPartitioning::None);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("cpuPartitioningMode") && w.contains("arrived in 4.13")),
            "{warnings:?}"
        );
        let refused = model("4.11.0", all).unwrap_err();
        assert!(
            refused.contains("`cpuPartitioningMode` (line 8)")
                && refused.contains("arrived in 4.13"),
            "{refused}"
        );
    }

    #[test]
    fn the_4_13_installer_partitions_only_tech_preview_clusters() {
        let all = "cpuPartitioningMode: AllNodes\n";
        let (mode, warnings) = model("4.13.0", all).unwrap();
        assert_eq!(mode, CpuPartitioning::None);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("cpuPartitioningMode") && w.contains("TechPreviewNoUpgrade")),
            "{warnings:?}"
        );
        let preview = format!("{all}featureSet: TechPreviewNoUpgrade\n");
        assert_eq!(
            model("4.13.0", &preview).unwrap().0,
            CpuPartitioning::AllNodes
        );
    }

    #[test]
    fn a_mode_that_is_no_mode_is_refused_with_the_one_meant() {
        let refused = model("4.16.0", "cpuPartitioningMode: allnodes\n").unwrap_err();
        assert!(
            refused.contains("`cpuPartitioningMode` (line 8)")
                && refused.contains("`allnodes`")
                && refused.contains("did you mean AllNodes?"),
            "{refused}"
        );
    }
}

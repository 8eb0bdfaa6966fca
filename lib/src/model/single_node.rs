//! Single-node OpenShift (bootstrap in place): whether this cluster is one, and where it
//! installs itself.
//!
//! The single node boots the live ISO with `bootstrap-in-place-for-live-iso.ign`, runs the
//! bootstrap on itself, writes RHCOS and its final control-plane config to the installation
//! disk with coreos-installer, and reboots into the cluster. That only works for one
//! control-plane machine and no compute machines, and only with a disk to install to; this
//! module refuses anything else before a file is written.

use super::Pool;
use crate::config::{LoadedConfig, Warning};
use crate::error::{Error, OptionField, Result};

/// The single-node settings of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SingleNode {
    /// The disk coreos-installer writes to, an absolute device path such as `/dev/sda`.
    pub installation_disk: String,
}

/// The single-node settings when the install-config or the options ask for a single-node
/// config, checked; `None` for a cluster with a bootstrap machine.
///
/// The install-config asks by itself when it has `bootstrapInPlace`, one control-plane replica
/// and no compute replicas, as the installer's `create single-node-ignition-config` expects;
/// `options.single_node` asks whatever the install-config says.
pub(super) fn settings(
    loaded: &LoadedConfig,
    options: &super::ModelOptions,
    control_plane: &Pool,
    compute: &[Pool],
    warnings: &mut Vec<Warning>,
) -> Result<Option<SingleNode>> {
    let in_place = loaded.config.bootstrap_in_place.as_ref();
    let compute_replicas: u32 = compute.iter().map(|p| p.replicas).sum();
    // `bootstrapInPlace:` with nothing under it still says what the user meant.
    let has_key = in_place.is_some() || loaded.line_of("bootstrapInPlace").is_some();
    let asked_by_config = has_key && control_plane.replicas == 1 && compute_replicas == 0;
    if !options.single_node && !asked_by_config {
        if options.installation_disk.is_some() {
            return Err(Error::InvalidOption {
                option: OptionField::InstallationDisk,
                message: format!(
                    "only a single-node config installs to a disk; add {} (one control-plane replica, no compute)",
                    OptionField::SingleNode
                ),
            });
        }
        if has_key {
            warnings.push(loaded.warning(
                "bootstrapInPlace",
                format!(
                    "ignored: a single-node config needs controlPlane.replicas 1 and no compute replicas (this cluster has {} and {}); making a config for a bootstrap machine",
                    control_plane.replicas, compute_replicas
                ),
            ));
        }
        return Ok(None);
    }
    if control_plane.replicas != 1 {
        return Err(loaded.field_error(
            "controlPlane.replicas",
            format!(
                "is {}: a single-node cluster has exactly one control-plane machine (write `replicas: 1`)",
                control_plane.replicas
            ),
        ));
    }
    if let Some((i, pool)) = compute.iter().enumerate().find(|(_, p)| p.replicas > 0) {
        return Err(loaded.field_error(
            &format!("compute.{i}.replicas"),
            format!(
                "is {}: a single-node cluster has no compute machines at install time (write `replicas: 0` for pool `{}`; add workers after the install)",
                pool.replicas, pool.name
            ),
        ));
    }
    let disk = match &options.installation_disk {
        Some(disk) => check_disk(disk).map_err(|message| Error::InvalidOption {
            option: OptionField::InstallationDisk,
            message,
        })?,
        None => {
            let field = "bootstrapInPlace.installationDisk";
            let written = in_place.and_then(|b| b.installation_disk.as_deref());
            match written.map(str::trim) {
                Some(disk) if !disk.is_empty() => {
                    check_disk(disk).map_err(|m| loaded.field_error(field, m))?
                }
                _ => {
                    return Err(loaded.field_error(
                        field,
                        format!(
                            "is required for a single-node config: the disk the node installs itself to, e.g. `/dev/sda` or a stable `/dev/disk/by-id/...` path (or give {})",
                            OptionField::InstallationDisk
                        ),
                    ))
                }
            }
        }
    };
    Ok(Some(SingleNode {
        installation_disk: disk,
    }))
}

/// A device path coreos-installer can write to (the one check the media's `--dest-device`
/// shares).
fn check_disk(disk: &str) -> std::result::Result<String, String> {
    crate::media::check_device_path(disk)?;
    Ok(disk.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disks_must_be_absolute_device_paths() {
        assert_eq!(check_disk("/dev/sda").unwrap(), "/dev/sda");
        assert!(check_disk("/dev/disk/by-id/wwn-0x5000c500a0b1c2d3").is_ok());
        assert!(check_disk("sda").unwrap_err().contains("/dev/sda"));
        assert!(check_disk("dev/vda").unwrap_err().contains("/dev/vda"));
        assert!(check_disk("/dev/sd a").is_err());
        assert!(check_disk("/dev/").is_err());
    }
}

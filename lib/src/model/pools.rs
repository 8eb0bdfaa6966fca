//! The machine pools: the control plane and the compute pools, read from the install-config
//! with the installer's defaults (three machines each, hyperthreading on, the installer's own
//! architecture).

use super::{arch, pool_rules, Arch, ModelOptions};
use crate::config::LoadedConfig;
use crate::error::{Error, OptionField, Result};
use crate::release::Platform;
use serde::Serialize;

/// A pool's `hyperthreading`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Hyperthreading {
    /// Simultaneous multithreading on (the default).
    #[default]
    Enabled,
    /// Off: the node gets the kernel argument `nosmt`.
    Disabled,
}

impl Hyperthreading {
    /// The install-config's word for it, e.g. `Enabled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Hyperthreading::Enabled => "Enabled",
            Hyperthreading::Disabled => "Disabled",
        }
    }
}

/// A machine pool after defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pool {
    /// Pool name.
    pub name: String,
    /// Machine count.
    pub replicas: u32,
    /// The install-config wrote `replicas` (false: the default was taken, so the count is
    /// open).
    pub replicas_written: bool,
    /// Whether its machines run with simultaneous multithreading.
    pub hyperthreading: Hyperthreading,
    /// CPU architecture.
    pub architecture: Arch,
}

/// The cluster's machine pools after defaults.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pools {
    /// `controlPlane`.
    pub control_plane: Pool,
    /// `compute`, or the installer's default pool of three workers when it is not given.
    pub compute: Vec<Pool>,
}

fn pool(
    loaded: &LoadedConfig,
    at: (&str, Platform),
    raw: Option<&crate::config::MachinePool>,
    default_name: &str,
    default_replicas: u32,
    default_arch: Arch,
) -> Result<Pool> {
    let (field, platform) = at;
    let raw = raw.cloned().unwrap_or_default();
    pool_rules::check_pool_platform(loaded, field, platform, raw.platform.as_ref())?;
    let replicas = match raw.replicas {
        None => default_replicas,
        Some(n) if (0..=1000).contains(&n) => n as u32,
        Some(n) => {
            return Err(loaded.field_error(
                &format!("{field}.replicas"),
                format!("{n} is not a machine count (0 to 1000)"),
            ))
        }
    };
    let hyperthreading = match raw.hyperthreading.as_deref() {
        None | Some("Enabled") => Hyperthreading::Enabled,
        Some("Disabled") => Hyperthreading::Disabled,
        Some(other) => {
            return Err(loaded.field_error(
                &format!("{field}.hyperthreading"),
                format!("`{other}` must be Enabled or Disabled"),
            ))
        }
    };
    let architecture = match raw.architecture.as_deref() {
        None => default_arch,
        Some(name) => {
            let arch: Arch = name.parse().map_err(|_: arch::UnknownArch| {
                let names: Vec<&str> = Arch::all().map(|a| a.facts().go).collect();
                loaded.field_error(
                    &format!("{field}.architecture"),
                    format!(
                        "`{name}` is not an architecture OpenShift is built for: write one of {}",
                        names.join(", ")
                    ),
                )
            })?;
            // The installer knows each architecture by its Go name only.
            if arch.facts().go != name {
                return Err(loaded.field_error(
                    &format!("{field}.architecture"),
                    format!(
                        "`{name}` is the kernel's name for it; the install-config takes `{}`",
                        arch.facts().go
                    ),
                ));
            }
            arch
        }
    };
    Ok(Pool {
        name: raw.name.unwrap_or_else(|| default_name.to_string()),
        replicas,
        replicas_written: raw.replicas.is_some(),
        hyperthreading,
        architecture,
    })
}

impl Pools {
    /// The install-config's pools after defaults (the control plane's architecture from
    /// `--arch` when the install-config does not say it), each checked as the installer checks
    /// it; an error naming the field at fault.
    pub(crate) fn read(
        loaded: &LoadedConfig,
        options: &ModelOptions,
        platform: Platform,
        warnings: &mut Vec<crate::config::Warning>,
    ) -> Result<Pools> {
        let ic = &loaded.config;
        let written_arch = ic
            .control_plane
            .as_ref()
            .and_then(|p| p.architecture.clone());
        let default_arch = options.arch.unwrap_or(Arch::Amd64);
        let control_plane = pool(
            loaded,
            ("controlPlane", platform),
            ic.control_plane.as_ref(),
            "master",
            3,
            default_arch,
        )?;
        if let (Some(cli), Some(_)) = (options.arch, written_arch) {
            if cli != control_plane.architecture {
                return Err(Error::InvalidOption {
                option: OptionField::Arch,
                message: format!(
                    "{cli} disagrees with controlPlane.architecture `{}` in {}{}; drop one or make them equal",
                    control_plane.architecture,
                    loaded.source_name,
                    loaded.line_of("controlPlane.architecture").map(|l| format!(" (line {l})")).unwrap_or_default()
                ),
            });
            }
        }
        // The installer names the control-plane pool `master` whatever the install-config says
        // (its defaults run before its checks), and so stores it.
        let mut control_plane = control_plane;
        if control_plane.name != "master" {
            warnings.push(loaded.warning(
                "controlPlane.name",
                format!(
                    "`{}` is replaced by `master`: the control-plane pool has no other name",
                    control_plane.name
                ),
            ));
            control_plane.name = "master".to_string();
        }
        if control_plane.replicas == 0 {
            return Err(loaded.field_error(
                "controlPlane.replicas",
                "the control plane needs at least 1 machine",
            ));
        }
        let mut compute = Vec::new();
        for (i, raw) in ic.compute.iter().enumerate() {
            // A compute pool without an architecture is the installer's own (amd64, or the one
            // `--arch` says the installer runs as), not the control plane's.
            compute.push(pool(
                loaded,
                (&format!("compute.{i}"), platform),
                Some(raw),
                "worker",
                3,
                default_arch,
            )?);
        }
        pool_rules::check_same_architecture(loaded, &control_plane, &compute, default_arch)?;
        // Without `compute` the installer makes the default pool: three workers of its own
        // architecture (so the control plane is not schedulable).
        if ic.compute.is_empty() {
            compute.push(pool(
                loaded,
                ("compute", platform),
                None,
                "worker",
                3,
                default_arch,
            )?);
        }
        Ok(Pools {
            control_plane,
            compute,
        })
    }
}

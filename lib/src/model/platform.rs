//! The install-config's platform: which one bootgen makes the node for (`none`, `external` or
//! `vsphere`), and what the node needs of its settings.

use super::section::{self, Text};
use super::unknown_fields::arrived_text;
use super::vsphere::VSpherePlatform;
use super::Pool;
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{first_with, Platform, Profile, Switch, Switches};
use serde::{Deserialize, Serialize};

/// An external platform's settings (`platform.external`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ExternalPlatform {
    /// `platformName`: the infrastructure provider, for information (e.g. `oci`).
    pub platform_name: String,
    /// `cloudControllerManager`, as the release's installer reads it.
    pub cloud_controller_manager: CloudControllerManager,
    /// `cloudControllerManager` as written, for the release to read or ignore.
    #[serde(skip)]
    pub(crate) written_cloud_controller_manager: String,
}

/// An external platform's `cloudControllerManager`: whether the provider's own cloud
/// controller manager runs in the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CloudControllerManager {
    /// None does (the field left out, or `""`).
    #[default]
    None,
    /// The provider's does (`External`).
    External,
}

impl CloudControllerManager {
    /// The install-config's word for it: `External`, or `""` for none.
    pub fn as_str(self) -> &'static str {
        match self {
            CloudControllerManager::None => "",
            CloudControllerManager::External => "External",
        }
    }
}

impl Serialize for CloudControllerManager {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The platform the install-config names, with its settings: one variant per platform, so a
/// platform's settings exist exactly when it is the cluster's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlatformSettings {
    /// `platform: none`, which has no settings.
    None,
    /// `platform: external`.
    External(ExternalPlatform),
    /// `platform: vsphere`: its vCenters, failure domains, VIPs and pools.
    VSphere(Box<VSpherePlatform>),
}

impl PlatformSettings {
    /// Which platform this is: the dimension the release table's rows are limited by.
    pub fn kind(&self) -> Platform {
        match self {
            PlatformSettings::None => Platform::None,
            PlatformSettings::External(_) => Platform::External,
            PlatformSettings::VSphere(_) => Platform::VSphere,
        }
    }

    /// The install-config key, e.g. `none`.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// An external platform's settings; `None` on other platforms.
    pub fn external(&self) -> Option<&ExternalPlatform> {
        match self {
            PlatformSettings::External(external) => Some(external),
            _ => None,
        }
    }

    /// A vSphere platform's settings; `None` on other platforms.
    pub fn vsphere(&self) -> Option<&VSpherePlatform> {
        match self {
            PlatformSettings::VSphere(vsphere) => Some(vsphere),
            _ => None,
        }
    }

    /// The API's virtual IPs; empty on a platform without them, or with a load balancer of the
    /// user's own.
    pub fn api_vips(&self) -> &[String] {
        self.vsphere().map_or(&[], |v| &v.api_vips)
    }

    /// The ingress virtual IPs; empty where [`PlatformSettings::api_vips`] is.
    pub fn ingress_vips(&self) -> &[String] {
        self.vsphere().map_or(&[], |v| &v.ingress_vips)
    }

    /// Checks the settings against the release and the pools, and completes what needs them:
    /// the settings the release's installer ignores are cleared, and a vSphere platform gets
    /// its pools' machines.
    pub(crate) fn settle(
        &mut self,
        loaded: &LoadedConfig,
        (control_plane, compute): (&Pool, &[Pool]),
        profile: &Profile,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<()> {
        check_release(loaded, self, profile, switches, warnings)?;
        if let PlatformSettings::VSphere(vsphere) = self {
            super::vsphere::check_architectures(loaded, control_plane, compute)?;
            vsphere.machine_pools = super::vsphere::machine_pools(
                loaded,
                vsphere,
                compute.len(),
                profile,
                switches,
                warnings,
            )?;
        }
        Ok(())
    }
}

/// The platforms bootgen supports, as the install-config names them (`none, external, ...`).
fn supported() -> String {
    let names: Vec<&str> = Platform::ALL.iter().map(|p| p.name()).collect();
    names.join(", ")
}

/// The platform the install-config names, with its settings; an error naming the field when it
/// names none, several, or one bootgen does not support.
pub(crate) fn platform_of(
    loaded: &LoadedConfig,
    warnings: &mut Vec<Warning>,
) -> Result<PlatformSettings> {
    let supported = supported();
    let Some(platform) = &loaded.config.platform else {
        return Err(loaded.field_error(
            "platform",
            format!(
                "is required; supported platforms: {supported} (write `platform: {{none: {{}}}}`)"
            ),
        ));
    };
    let names: Vec<&String> = platform.keys().collect();
    let name = match names.as_slice() {
        [name] => name.as_str(),
        _ => {
            return Err(loaded.field_error(
                "platform",
                format!("must name exactly one platform; supported platforms: {supported}"),
            ))
        }
    };
    let Some(chosen) = Platform::from_name(name) else {
        return Err(loaded.field_error(
            &format!("platform.{name}"),
            format!("platform `{name}` is not supported yet; supported platforms: {supported}"),
        ));
    };
    Ok(match chosen {
        Platform::External => {
            PlatformSettings::External(external_settings(loaded, &platform[name])?)
        }
        Platform::VSphere => PlatformSettings::VSphere(Box::new(super::vsphere::settings(
            loaded,
            &platform[name],
            warnings,
        )?)),
        Platform::None => {
            // Platform none has no settings.
            if platform[name].is_object() {
                let refuse = |unknown: &[String]| {
                    let key = unknown.first().map_or("", String::as_str);
                    loaded.field_error(
                        &format!("platform.{name}.{key}"),
                        format!(
                            "unknown key: platform {name} has no settings; write `{name}: {{}}`"
                        ),
                    )
                };
                section::read::<NoSettings>(loaded, "platform.none", &platform[name], refuse)?;
            }
            PlatformSettings::None
        }
    })
}

/// `platform.none`: no settings (its keys are refused).
#[derive(Deserialize)]
struct NoSettings {}

/// `platform.external` as written.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WrittenExternal {
    platform_name: Text,
    cloud_controller_manager: Text,
}

/// The keys of `platform.external`, as `WrittenExternal` reads them.
const EXTERNAL_KEYS: &[&str] = &["platformName", "cloudControllerManager"];

/// `platform.external`, with its cloud controller manager read only once the release is known
/// (in [`check_release`]: some installers ignore it, whatever it says). A key it does not have
/// is refused, as everywhere else in the install-config: it would do nothing.
fn external_settings(loaded: &LoadedConfig, value: &serde_json::Value) -> Result<ExternalPlatform> {
    // Anything but a map says no settings, and so no platformName.
    let no_settings = serde_json::Value::Object(serde_json::Map::new());
    let value = if value.is_object() {
        value
    } else {
        &no_settings
    };
    let refuse = |unknown: &[String]| {
        let key = unknown.first().map_or("", String::as_str);
        let message = match crate::config::nearest(key, EXTERNAL_KEYS.iter().copied()) {
            Some(meant) => format!("unknown key: did you mean `{meant}`?"),
            None => format!(
                "unknown key: platform external takes {}; remove it",
                EXTERNAL_KEYS.join(", ")
            ),
        };
        loaded.field_error(&format!("platform.external.{key}"), message)
    };
    let written: WrittenExternal = section::read(loaded, "platform.external", value, refuse)?;
    if written.platform_name.0.is_empty() {
        return Err(loaded.field_error(
            "platform.external.platformName",
            "is required: the infrastructure provider's name, e.g. `platformName: oci` (the \
             cluster records it in its Infrastructure object)",
        ));
    }
    Ok(ExternalPlatform {
        platform_name: written.platform_name.0,
        cloud_controller_manager: CloudControllerManager::None,
        written_cloud_controller_manager: written.cloud_controller_manager.0,
    })
}

/// Refuses a platform the release's installer does not know, naming the release it arrived in;
/// checks the settings that release reads, and ignores with a warning those it does not (as its
/// installer does: 4.14's knew no `cloudControllerManager`).
fn check_release(
    loaded: &LoadedConfig,
    platform: &mut PlatformSettings,
    profile: &Profile,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    if platform.kind() == Platform::External && !switches.has(Switch::ExternalPlatform) {
        let first = arrived_text(first_with(Switch::ExternalPlatform));
        return Err(loaded.field_error(
            "platform.external",
            format!(
                "the OpenShift {} installer does not know platform external{first}",
                profile.minor
            ),
        ));
    }

    if let PlatformSettings::VSphere(vsphere) = platform {
        // Where the `vcenters` form exists, the single-vCenter fields are its deprecated
        // spelling; before, they are the only one.
        if switches.has(Switch::VsphereFailureDomains) {
            warnings.extend(super::vsphere::deprecation_warning(
                loaded,
                &vsphere.single_vcenter_fields,
            ));
        }
    }
    let PlatformSettings::External(external) = platform else {
        return Ok(());
    };
    let ccm = "platform.external.cloudControllerManager";
    if !switches.has(Switch::ExternalCcmFromInstallConfig) {
        if loaded.line_of(ccm).is_some() {
            warnings.push(loaded.warning(
                ccm,
                format!(
                    "the OpenShift {} installer does not read cloudControllerManager{}; ignored: \
                     the cluster says External",
                    profile.minor,
                    arrived_text(first_with(Switch::ExternalCcmFromInstallConfig))
                ),
            ));
        }
        return Ok(());
    }
    external.cloud_controller_manager = match external.written_cloud_controller_manager.as_str() {
        "" => CloudControllerManager::None,
        "External" => CloudControllerManager::External,
        value => {
            return Err(loaded.field_error(
                ccm,
                format!(
                    "`{value}` must be `External` (the provider's cloud controller manager runs \
                     in the cluster) or left out (none does)"
                ),
            ))
        }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The keys the refusal of an unknown key names are those `WrittenExternal` reads.
    #[test]
    fn the_external_keys_named_are_the_keys_read() {
        let loaded = crate::config::parse("apiVersion: v1\n", "ic.yaml").unwrap();
        let every: serde_json::Map<String, serde_json::Value> = super::EXTERNAL_KEYS
            .iter()
            .map(|k| (k.to_string(), serde_json::Value::Null))
            .collect();
        let read = super::section::read::<super::WrittenExternal>(
            &loaded,
            "platform.external",
            &serde_json::Value::Object(every),
            |unknown| loaded.field_error("platform.external", unknown.join(" ")),
        );
        assert!(read.is_ok());
    }
}

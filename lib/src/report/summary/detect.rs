//! What a config says about the cluster it was made for, read back for the summary: platform,
//! distribution, architecture, mirrors, fetched configs, bootkube's stages, the install disk.

use crate::ignition::read::{
    file_text, parse_registries_conf, stored_install_config, stored_vsphere, CLUSTER_CONFIG,
    CVO_OVERRIDES, REGISTRIES_CONF,
};
use crate::ignition::redact::Redact;
use crate::ignition::IgnitionDoc;
use serde::Serialize;
use serde_json::Value;

pub(super) const BOOTKUBE_STAGES: &str = "/usr/local/bin/bootkube-stages.sh";
pub(super) const INSTALL_TO_DISK: &str = "/usr/local/bin/install-to-disk.sh";

/// The architecture a config was made for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchGuess {
    /// The control plane's architecture (`amd64`, `arm64`, ...), or `multi`.
    pub control_plane: String,
    /// Where it was read.
    pub from: String,
}

/// One mirrored source of the node's registries.conf.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirrorSummary {
    /// The source repository prefix.
    pub source: String,
    /// Its mirrors, in the order they are tried.
    pub mirrors: Vec<String>,
    /// The source itself is never contacted.
    pub blocked: bool,
}

/// A config Ignition fetches (`ignition.config.merge` or `.replace`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FetchSummary {
    /// `merge` or `replace`.
    pub how: &'static str,
    /// The URL.
    pub source: String,
    /// Whether a hash (`verification.hash`) pins it.
    pub verified: bool,
}

/// The platform the stored install-config names, with the settings that shape the node.
pub fn platform_of(doc: &IgnitionDoc) -> Option<String> {
    let config = stored_install_config(doc)?;
    let platforms = config.get("platform")?.as_mapping()?;
    let (name, settings) = platforms.iter().next()?;
    let name = name.as_str()?;
    let mut detail: Vec<String> = ["platformName", "cloudControllerManager"]
        .iter()
        .filter_map(|key| Some(format!("{key} {}", settings.get(*key)?.as_str()?)))
        .collect();
    if name == "vsphere" {
        detail.extend(vsphere_detail(settings));
    }
    Some(if detail.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", detail.join(", "))
    })
}

/// A vSphere platform's vCenters, failure domains and VIPs, as a person checks them.
fn vsphere_detail(settings: &serde_yaml_ng::Value) -> Vec<String> {
    let vsphere = stored_vsphere(settings);
    let mut detail: Vec<String> = vsphere
        .servers
        .iter()
        .map(|server| format!("vCenter {server}"))
        .collect();
    let domains = vsphere.failure_domains;
    if domains > 0 {
        let plural = if domains == 1 { "" } else { "s" };
        detail.push(format!("{domains} failure domain{plural}"));
    }
    for (vips, what) in [
        (&vsphere.api_vips, "API VIP"),
        (&vsphere.ingress_vips, "ingress VIP"),
    ] {
        if !vips.is_empty() {
            detail.push(format!("{what} {}", vips.join(" ")));
        }
    }
    if vsphere.api_vips.is_empty() {
        detail.push("no VIPs (a load balancer of your own)".into());
    }
    detail
}

/// The distribution a config is for: the one its release image names, else the one whose
/// update channel its ClusterVersion names (OKD's `stable-scos-4`).
pub fn distribution_of(
    doc: &IgnitionDoc,
    release_image: Option<&str>,
) -> Option<crate::release::Distribution> {
    use crate::release::{distribution_of_reference, Distribution, PROFILES};
    if let Some(said) = release_image.and_then(distribution_of_reference) {
        return Some(said);
    }
    let text = file_text(doc, CVO_OVERRIDES)?;
    let manifest: serde_yaml_ng::Value = crate::config::depth::from_str(&text).ok()?;
    let channel = manifest.get("spec")?.get("channel")?.as_str()?;
    Distribution::ALL.iter().copied().find(|d| {
        PROFILES
            .iter()
            .any(|p| p.distribution(*d).is_some_and(|f| f.channel == channel))
    })
}

/// The control plane's architecture: from the install-config the cluster stores
/// (`controlPlane.architecture`), else from the release image's tag (`...-aarch64`).
pub fn architecture_of(doc: &IgnitionDoc, release_image: Option<&str>) -> Option<ArchGuess> {
    let stored = stored_install_config(doc).and_then(|config| {
        let name = config
            .get("controlPlane")?
            .get("architecture")?
            .as_str()?
            .to_string();
        let arch = name.parse::<crate::arch::Arch>().ok()?;
        Some(ArchGuess {
            control_plane: arch.to_string(),
            from: format!("controlPlane.architecture in {CLUSTER_CONFIG}"),
        })
    });
    if stored.is_some() {
        return stored;
    }
    let reference = release_image?;
    if reference.contains('@') {
        return None;
    }
    let tag = reference.rsplit('/').next()?.split_once(':')?.1;
    let suffix = tag.rsplit('-').next()?;
    let control_plane = if suffix == crate::arch::MULTI_SUFFIX {
        suffix.to_string()
    } else {
        suffix.parse::<crate::arch::Arch>().ok()?.to_string()
    };
    Some(ArchGuess {
        control_plane,
        from: format!("the release image tag ({reference})"),
    })
}

/// The mirrored sources of the node's registries.conf (none when it has none, or settings
/// bootgen does not read).
pub fn mirrors_of(doc: &IgnitionDoc) -> Vec<MirrorSummary> {
    let Some(text) = file_text(doc, REGISTRIES_CONF) else {
        return Vec::new();
    };
    parse_registries_conf(&text)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| !r.mirrors.is_empty())
        .map(|r| MirrorSummary {
            source: r.location,
            mirrors: r.mirrors.into_iter().map(|m| m.location).collect(),
            blocked: r.blocked,
        })
        .collect()
}

/// The configs Ignition fetches first: `ignition.config.replace`, then each `merge`.
pub fn fetches_of(doc: &IgnitionDoc) -> Vec<FetchSummary> {
    let entry = |how: &'static str, value: &Value| {
        value
            .get("source")
            .and_then(Value::as_str)
            .map(|source| FetchSummary {
                how,
                // A URL may carry credentials (`https://user:token@host/...`).
                source: Redact::WithDigest.inline(source),
                verified: value
                    .pointer("/verification/hash")
                    .and_then(Value::as_str)
                    .is_some(),
            })
    };
    let replace = doc
        .value
        .pointer("/ignition/config/replace")
        .and_then(|v| entry("replace", v));
    let merges = doc
        .value
        .pointer("/ignition/config/merge")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| entry("merge", v));
    replace.into_iter().chain(merges).collect()
}

/// bootkube's stages, in run order, from the table in bootgen's `bootkube-stages.sh`.
pub fn bootkube_stages(doc: &IgnitionDoc) -> Vec<String> {
    let Some(text) = file_text(doc, BOOTKUBE_STAGES) else {
        return Vec::new();
    };
    let Some((_, table)) = text.split_once("cat <<'EOF'\n") else {
        return Vec::new();
    };
    table
        .lines()
        .take_while(|l| *l != "EOF")
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

/// The disk a single-node (bootstrap-in-place) config installs to, from its install-to-disk.sh:
/// bootgen's `INSTALLATION_DISK=` line, or the installer's `coreos-installer install` line.
pub fn installation_disk(doc: &IgnitionDoc) -> Option<String> {
    let text = file_text(doc, INSTALL_TO_DISK)?;
    if let Some(value) = text
        .lines()
        .find_map(|l| l.strip_prefix("INSTALLATION_DISK="))
    {
        return Some(value.trim().trim_matches('\'').to_string());
    }
    text.lines()
        .find(|l| l.trim_start().starts_with("coreos-installer install"))
        .and_then(|l| l.split_whitespace().last())
        .map(|d| d.trim_matches(['\'', '"']).to_string())
}

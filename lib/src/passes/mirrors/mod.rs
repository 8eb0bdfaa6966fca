//! Disconnected installs: mirror rules, blocked sources, insecure registries, host entries,
//! mirror credentials and the mirror CA, applied to an Ignition config (bootgen's own or one
//! another tool made).
//!
//! The pass reads what the config already has (`registries.conf`, the pull secret, the anchors,
//! the cluster manifests), merges the command line in, and writes each file back with
//! bootgen's own templates. When a file is not what it expects, it says so and fails rather
//! than guess. [`crate::checks::preflight`] then checks the result.

mod cluster_mirrors;
pub(crate) mod hosts;
pub mod machine_hosts;
mod options;
pub(crate) mod pull_secret;
pub(crate) mod registries_conf;
pub(crate) mod release;

pub use cluster_mirrors::{icsp_path, idms_path};
// The node paths and parsers of what the passes edit, from the one reading module.
pub use crate::ignition::read::{
    find_release, parse_registries_conf, Certificate, ReleaseReference, ANCHORS, HOSTS,
    NODE_PULL_SECRET, PULL_SECRET_MANIFEST, REGISTRIES_CONF, RELEASE_SCRIPTS, USER_CA_BUNDLE,
};
pub use options::{
    check_host_port, check_insecure_registry, parse_insecure_registry, HostEntry, MirrorRule,
    RegistryAuth, TrustBundle,
};
pub use pull_secret::merge_auths;
pub use registries_conf::render as render_registries_conf;
pub use release::point_blocked_tag_at_mirror;

pub(crate) mod trust;

use super::doc_edit::set_file_text;
use super::Change;
use crate::error::{Error, Result};
pub(crate) use crate::ignition::read::{has_manifests, read_text};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::Registry;
use crate::release::{Minor, Switches};
use crate::render::Renderer;
use registries_conf::MergeRequest;
use serde_json::Value;

/// The disconnected-install settings, already checked: mirrors, blocked sources, insecure
/// registries, host entries, mirror credentials and a trust bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorOptions {
    /// `--mirror SOURCE=MIRROR`, in order.
    pub mirrors: Vec<MirrorRule>,
    /// `--block-source`: never contact a mirrored source.
    pub block_sources: bool,
    /// `--insecure-registry HOST[:PORT]`.
    pub insecure_registries: Vec<String>,
    /// `--add-host IP=NAME[,NAME...]`.
    pub hosts: Vec<HostEntry>,
    /// `--registry-auth FILE`.
    pub registry_auth: Option<RegistryAuth>,
    /// `--trust-bundle FILE`.
    pub trust_bundle: Option<TrustBundle>,
}

impl MirrorOptions {
    /// True when nothing is asked for.
    pub fn is_empty(&self) -> bool {
        *self == MirrorOptions::default()
    }

    fn touches_registries(&self) -> bool {
        !self.mirrors.is_empty() || self.block_sources || !self.insecure_registries.is_empty()
    }
}

/// Applies the mirror options: registries.conf, the release image, the cluster's mirror
/// manifest, /etc/hosts, the pull secret and the trust bundle, in that order. The mirror
/// manifests are those the config's release takes (read from the config).
pub fn apply(doc: &mut IgnitionDoc, options: &MirrorOptions) -> Result<Vec<Change>> {
    apply_for(doc, options, None)
}

/// [`apply`] for a config made for `release` (when the caller knows it; else the config says).
pub(crate) fn apply_for(
    doc: &mut IgnitionDoc,
    options: &MirrorOptions,
    release: Option<Minor>,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    if options.touches_registries() {
        let profile = cluster_mirrors::release_profile(doc, release);
        let style = cluster_mirrors::style_of(doc, profile);
        // With no release known, no switch is on: registries.conf is written as bootgen wrote
        // it before it followed the installers' blocked line (`blocked = true` for a blocked
        // source, no line otherwise), which every release's podman and CRI-O read alike.
        let switches = profile
            .map(|p| p.switches(Default::default()))
            .unwrap_or_default();
        changes.extend(apply_registries(doc, options, &style, &switches)?);
    }
    if !options.hosts.is_empty() {
        changes.extend(hosts::apply(doc, &options.hosts)?);
    }
    if let Some(auth) = &options.registry_auth {
        changes.extend(pull_secret::apply(doc, auth)?);
    }
    if let Some(bundle) = &options.trust_bundle {
        changes.extend(trust::apply(doc, bundle)?);
    }
    Ok(changes)
}

fn apply_registries(
    doc: &mut IgnitionDoc,
    options: &MirrorOptions,
    style: &cluster_mirrors::ManifestStyle,
    switches: &Switches,
) -> Result<Vec<Change>> {
    let existing_text = read_text(doc, REGISTRIES_CONF)?.unwrap_or_default();
    let existing = parse_registries_conf(&existing_text)?;
    let merged = registries_conf::merge(
        existing.clone(),
        MergeRequest {
            rules: &options.mirrors,
            block_sources: options.block_sources,
            insecure_hosts: &options.insecure_registries,
        },
    );
    let mut changes = Vec::new();
    let text = registries_conf::render(&merged, switches)?;
    if text != existing_text {
        set_file_text(doc, REGISTRIES_CONF, &text, 0o644)?;
        for registry in merged.iter().filter(|r| !existing.contains(r)) {
            changes.push(Change {
                target: REGISTRIES_CONF.into(),
                action: describe(registry),
            });
        }
    }
    if !options.insecure_registries.is_empty() {
        changes.push(Change {
            target: REGISTRIES_CONF.into(),
            action: format!(
                "{} insecure on the bootstrap node only: the cluster's nodes also need them in image.config.openshift.io/cluster spec.registrySources.insecureRegistries",
                options.insecure_registries.join(", ")
            ),
        });
    }
    if merged.iter().any(|r| !r.mirrors.is_empty()) {
        changes.extend(release::rewrite(doc, &merged, &options.mirrors)?);
        changes.extend(cluster_mirrors::apply(doc, &merged, style)?);
    }
    Ok(changes)
}

fn describe(registry: &Registry) -> String {
    let mut text = if registry.mirrors.is_empty() {
        format!("{} (a registry of its own)", registry.location)
    } else {
        let mirrors: Vec<&str> = registry
            .mirrors
            .iter()
            .map(|m| m.location.as_str())
            .collect();
        format!("{} mirrored at {}", registry.location, mirrors.join(", "))
    };
    let insecure: Vec<&str> = std::iter::once(&registry.location)
        .filter(|_| registry.insecure)
        .chain(
            registry
                .mirrors
                .iter()
                .filter(|m| m.insecure)
                .map(|m| &m.location),
        )
        .map(String::as_str)
        .collect();
    if registry.blocked {
        text.push_str("; source blocked");
    }
    if !insecure.is_empty() {
        text.push_str(&format!("; insecure: {}", insecure.join(", ")));
    }
    text
}

/// Removes the file entry at `path`.
pub(crate) fn remove_file(doc: &mut IgnitionDoc, path: &str) {
    if let Some(files) = doc
        .value
        .pointer_mut("/storage/files")
        .and_then(Value::as_array_mut)
    {
        files.retain(|f| f.get("path").and_then(Value::as_str) != Some(path));
    }
}

/// Renders one of bootgen's embedded templates with `context`.
pub(crate) fn render_template(name: &'static str, context: &Value) -> Result<String> {
    let template = crate::render::template(name).ok_or_else(|| Error::Template {
        name: name.into(),
        message: "is not embedded".into(),
    })?;
    let bytes = Renderer::new(context).render(&template)?;
    String::from_utf8(bytes).map_err(|_| Error::Template {
        name: name.into(),
        message: "rendered text is not UTF-8".into(),
    })
}

#[cfg(test)]
mod tests;

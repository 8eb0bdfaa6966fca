//! Node files: the release table's file rows for this node ([`NodeProfile::files`]), each rendered
//! from its template when the install-config meets the row's condition.

use super::File;
use crate::context::TemplateContext;
use crate::error::{Error, Result};
use crate::model::Hyperthreading;
use crate::release::{Condition, Each, NodeFile, NodeProfile, Order};
use crate::render::{template, Renderer};

/// Whether the install-config behind `context` meets `condition`.
pub(crate) fn meets(condition: Condition, context: &TemplateContext) -> bool {
    match condition {
        Condition::TrustBundle => !context.trust_bundle.trim().is_empty(),
        Condition::SshKey => !context.ssh_key.trim().is_empty(),
        Condition::Fips => context.fips,
        Condition::ControlPlaneHyperthreadingOff => {
            context.control_plane.hyperthreading == Hyperthreading::Disabled
        }
        Condition::WorkerHyperthreadingOff => context
            .compute
            .first()
            .is_some_and(|pool| pool.hyperthreading == Hyperthreading::Disabled),
        Condition::DualStack => context.networking.service_networks.len() == 2,
        Condition::FeatureSet => !context.feature_set.trim().is_empty(),
        Condition::ControlPlaneMachineSet => context
            .platform
            .vsphere
            .as_ref()
            .is_some_and(|v| v.control_plane_machine_set),
        Condition::OvnJoinSubnet => !context.networking.ovn_internal_join_subnet.is_empty(),
        Condition::BootImageNamed => context
            .platform
            .vsphere
            .as_ref()
            .is_some_and(|v| v.boot_image_named),
    }
}

/// Renders the node's files whose rows are rendered in `order`.
pub fn node_files(
    renderer: &Renderer,
    node: &NodeProfile,
    context: &TemplateContext,
    order: Order,
) -> Result<Vec<File>> {
    let mut files = Vec::new();
    for row in node.files.iter().filter(|r| r.order == order) {
        if !row.when.is_none_or(|c| meets(c, context)) {
            continue;
        }
        match row.each {
            Some(each) => files.extend(per_item(renderer, row, each, context)?),
            None => files.push(File {
                contents: render_row(renderer, row, &serde_json::Value::Null)?,
                path: row.path.clone(),
                mode: row.mode,
                append: row.append,
            }),
        }
    }
    Ok(files)
}

/// Renders `row`'s template with `extra` variables layered on the context (`Null`: none).
pub(crate) fn render_row(
    renderer: &Renderer,
    row: &NodeFile,
    extra: &serde_json::Value,
) -> Result<Vec<u8>> {
    let template = template(&row.template).ok_or_else(|| Error::Template {
        name: row.template.clone(),
        message: format!("no template for the node file {}", row.path),
    })?;
    if extra.is_null() {
        renderer.render(&template)
    } else {
        renderer.render_with(&template, extra)
    }
}

/// The files of a per-item row: one per `mirror_manifests` entry of the row's kind, at the
/// entry's path, with its variables (`entries`, and its object name as `mirror_name`).
fn per_item(
    renderer: &Renderer,
    row: &NodeFile,
    each: Each,
    context: &TemplateContext,
) -> Result<Vec<File>> {
    let mut files = Vec::new();
    if let Some(items) = platform_items(each, context) {
        let count = items.len();
        for (i, extra) in items.into_iter().enumerate() {
            files.push(File {
                contents: render_row(renderer, row, &extra)?,
                path: row.numbered_path(i, count),
                mode: row.mode,
                append: row.append,
            });
        }
        return Ok(files);
    }
    for entry in context
        .mirror_manifests
        .iter()
        .filter(|e| e.kind == each.kind())
    {
        files.push(File {
            contents: render_row(renderer, row, &entry.variables())?,
            path: entry.path.clone(),
            mode: row.mode,
            append: row.append,
        });
    }
    Ok(files)
}

/// The items of a platform's per-item row, each as the variables its file is rendered with;
/// `None` for the mirror manifests' rows.
fn platform_items(each: Each, context: &TemplateContext) -> Option<Vec<serde_json::Value>> {
    let vsphere = context.platform.vsphere.as_ref();
    let items = match each {
        Each::ControlPlaneMachine => vsphere.map_or_else(Vec::new, |v| {
            v.control_plane_machines
                .iter()
                .map(|m| serde_json::json!({ "machine": m }))
                .collect()
        }),
        Each::ComputeMachineSet => vsphere.map_or_else(Vec::new, |v| {
            v.compute_machine_sets
                .iter()
                .map(|m| serde_json::json!({ "machine_set": m }))
                .collect()
        }),
        _ => return None,
    };
    Some(items)
}

/// A manifest holding a Kubernetes Secret (any document with `kind: Secret`) is 0600: the
/// installer ships these at 0644, but the pull secret, the root CA key and the kubeadmin hash
/// should not be world-readable on the node. bootgen's own manifests say their mode in the
/// release table; this rule is for the user's, whose contents only show it.
pub fn manifest_mode(contents: &[u8]) -> u32 {
    if declares_secret(contents) {
        0o600
    } else {
        0o644
    }
}

pub(crate) fn declares_secret(contents: &[u8]) -> bool {
    use serde::Deserialize;
    let Ok(text) = std::str::from_utf8(contents) else {
        return false;
    };
    if crate::config::depth::too_deep(text).is_some() {
        return false;
    }
    serde_yaml_ng::Deserializer::from_str(text).any(|doc| {
        serde_yaml_ng::Value::deserialize(doc)
            .ok()
            .and_then(|v| {
                v.get("kind")
                    .and_then(|k| k.as_str().map(|k| k == "Secret"))
            })
            .unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_manifests_are_private() {
        let secret = b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n";
        assert_eq!(manifest_mode(secret), 0o600);
        assert_eq!(
            manifest_mode(b"kind: ConfigMap\n---\nkind: Secret\n"),
            0o600
        );
        assert_eq!(manifest_mode(b"apiVersion: v1\nkind: ConfigMap\n"), 0o644);
    }
}

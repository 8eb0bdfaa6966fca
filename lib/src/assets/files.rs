//! Node files from `templates/node`: which ones apply, and the mode each gets.

use super::File;
use crate::error::Result;
use crate::render::{files_under, Renderer};

/// What a conditional file needs of the context value at its JSON pointer.
#[derive(Debug, Clone, Copy)]
enum Needs {
    /// A string with more than white space.
    Text,
    /// `true`.
    True,
    /// This string.
    Equal(&'static str),
    /// A list of this many entries.
    Entries(usize),
}

/// Files that exist only in some configurations: (node path, context JSON pointer, what the
/// value there must be).
const CONDITIONAL: &[(&str, &str, Needs)] = &[
    (
        "/opt/openshift/manifests/user-ca-bundle-config.yaml",
        "/trust_bundle",
        Needs::Text,
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml",
        "/ssh_key",
        Needs::Text,
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-worker-ssh.yaml",
        "/ssh_key",
        Needs::Text,
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-master-fips.yaml",
        "/fips",
        Needs::True,
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-worker-fips.yaml",
        "/fips",
        Needs::True,
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-master-disable-hyperthreading.yaml",
        "/control_plane/hyperthreading",
        Needs::Equal("Disabled"),
    ),
    // The installer's worker machine configs follow the first compute pool (`worker`).
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-worker-disable-hyperthreading.yaml",
        "/compute/0/hyperthreading",
        Needs::Equal("Disabled"),
    ),
    // Dual stack: an IPv4 and an IPv6 service network.
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-master.yaml",
        "/networking/service_networks",
        Needs::Entries(2),
    ),
    (
        "/opt/openshift/openshift/99_openshift-machineconfig_99-dual-stack-worker.yaml",
        "/networking/service_networks",
        Needs::Entries(2),
    ),
];

/// Templates rendered once per entry of the context's `mirror_manifests` of their kind (none,
/// one, or one per mirrored source), each at the entry's path with the entry's `registries`
/// and its object name as `mirror_name`: (template's node path, kind).
const MIRROR_MANIFESTS: &[(&str, &str)] = &[
    (
        "/opt/openshift/manifests/image-content-source-policy.yaml",
        "ImageContentSourcePolicy",
    ),
    (
        "/opt/openshift/manifests/image-digest-mirror-set.yaml",
        "ImageDigestMirrorSet",
    ),
];

/// The FeatureGate manifest: written from 4.14 on, and in 4.12-4.13 only with a feature set.
const FEATURE_GATE: &str = "/opt/openshift/openshift/99_feature-gate.yaml";

/// The mode of a node file, by the installer's rules (0555 under a `bin`, `dispatcher.d` or
/// `system-generators` directory; 0644 for `motd`, `containers.conf`, `registries.conf` and
/// the manifests; 0600 for everything else), plus whether it is an append (`motd` and
/// `containers.conf` are appended to the OS's own file).
pub fn mode_for(path: &str) -> (u32, bool) {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parent = path.rsplit('/').nth(1).unwrap_or_default();
    if ["bin", "dispatcher.d", "system-generators"].contains(&parent) {
        return (0o555, false);
    }
    if name == "motd" || name == "containers.conf" {
        return (0o644, true);
    }
    if name == "registries.conf" || name == "hosts" {
        return (0o644, name == "hosts");
    }
    if path == "/opt/openshift/tls/root-ca.crt"
        || path == "/opt/openshift/original_cvo_overrides.patch"
    {
        return (0o644, false);
    }
    if path.starts_with("/opt/openshift/manifests/")
        || path.starts_with("/opt/openshift/openshift/")
    {
        return (0o644, false);
    }
    (0o600, false)
}

/// A manifest holding a Kubernetes Secret (any document with `kind: Secret`) is 0600: the
/// installer ships these at 0644, but the pull secret, the root CA key and the kubeadmin hash
/// should not be world-readable on the node.
pub fn manifest_mode(path: &str, contents: &[u8]) -> u32 {
    let (mode, _) = mode_for(path);
    let is_manifest = path.starts_with("/opt/openshift/manifests/")
        || path.starts_with("/opt/openshift/openshift/");
    if is_manifest && declares_secret(contents) {
        0o600
    } else {
        mode
    }
}

fn declares_secret(contents: &[u8]) -> bool {
    use serde::Deserialize;
    let Ok(text) = std::str::from_utf8(contents) else {
        return false;
    };
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

/// Renders every applicable file of `templates/node`.
pub fn node_files(renderer: &Renderer, context: &serde_json::Value) -> Result<Vec<File>> {
    let mut files = Vec::new();
    for template in files_under("node") {
        let path = format!("/{}", template.output_name().trim_start_matches("node/"));
        // Rendered once every other manifest is known (it lists their objects).
        if !applies(&path, context) || path == super::cvo_overrides::PATH {
            continue;
        }
        if let Some((_, kind)) = MIRROR_MANIFESTS.iter().find(|(p, _)| *p == path) {
            files.extend(mirror_manifests(renderer, &template, kind, context)?);
            continue;
        }
        let contents = renderer.render(&template)?;
        let (_, append) = mode_for(&path);
        let mut mode = manifest_mode(&path, &contents);
        // Until 4.18 the installer's mode rule missed registries.conf, which stayed 0600.
        if path == "/etc/containers/registries.conf"
            && context.pointer("/release/features/registries_conf_readable") == Some(&false.into())
        {
            mode = 0o600;
        }
        files.push(File {
            path,
            mode,
            contents,
            append,
        });
    }
    Ok(files)
}

/// Renders the files a single node adds (`templates/single-node/node`): the install to disk,
/// bootkube's in-place stages and the installed node's config.
pub fn single_node_files(renderer: &Renderer) -> Result<Vec<File>> {
    let mut files = Vec::new();
    for template in files_under("single-node/node") {
        let path = format!(
            "/{}",
            template
                .output_name()
                .trim_start_matches("single-node/node/")
        );
        let (mode, append) = mode_for(&path);
        files.push(File {
            contents: renderer.render(&template)?,
            path,
            mode,
            append,
        });
    }
    Ok(files)
}

/// The files of one mirror-manifest template: one per `mirror_manifests` entry of `kind`.
fn mirror_manifests(
    renderer: &Renderer,
    template: &crate::render::TemplateFile,
    kind: &str,
    context: &serde_json::Value,
) -> Result<Vec<File>> {
    let entries = context["mirror_manifests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut files = Vec::new();
    for entry in entries.iter().filter(|e| e["kind"] == kind) {
        let extra = serde_json::json!({
            "registries": entry["registries"],
            "mirror_name": entry["name"],
        });
        let contents = renderer.render_with(template, &extra)?;
        let path = entry["path"].as_str().unwrap_or_default().to_string();
        files.push(File {
            mode: manifest_mode(&path, &contents),
            path,
            contents,
            append: false,
        });
    }
    Ok(files)
}

/// Whether the node has the file at `path` in this configuration: the release table lists it
/// for the release and flow, and its condition holds.
pub(super) fn applies(path: &str, context: &serde_json::Value) -> bool {
    let feature = |name: &str| {
        context
            .pointer(&format!("/release/features/{name}"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    if path == FEATURE_GATE {
        let feature_set = context["feature_set"].as_str().unwrap_or_default();
        return feature("feature_gate_always")
            || (feature("feature_gate_with_feature_set") && !feature_set.is_empty());
    }
    // The release table lists every file and the releases that have it.
    let in_release = context
        .pointer("/release/files")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|files| files.iter().any(|f| f == path));
    in_release
        && CONDITIONAL
            .iter()
            .filter(|(p, _, _)| *p == path)
            .all(|(_, pointer, needs)| {
                let value = context.pointer(pointer);
                let text = value.and_then(|v| v.as_str()).unwrap_or_default();
                match needs {
                    Needs::Text => !text.trim().is_empty(),
                    Needs::True => value == Some(&serde_json::Value::Bool(true)),
                    Needs::Equal(wanted) => text == *wanted,
                    Needs::Entries(n) => value.and_then(|v| v.as_array()).map(Vec::len) == Some(*n),
                }
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_the_installer_rules() {
        assert_eq!(mode_for("/usr/local/bin/bootkube.sh"), (0o555, false));
        assert_eq!(mode_for("/etc/systemd/system-generators/x"), (0o555, false));
        assert_eq!(mode_for("/etc/motd"), (0o644, true));
        assert_eq!(mode_for("/etc/containers/registries.conf"), (0o644, false));
        assert_eq!(mode_for("/opt/openshift/manifests/a.yaml"), (0o644, false));
        assert_eq!(mode_for("/opt/openshift/tls/root-ca.crt"), (0o644, false));
        assert_eq!(mode_for("/opt/openshift/tls/root-ca.key"), (0o600, false));
        assert_eq!(mode_for("/root/.docker/config.json"), (0o600, false));
        assert_eq!(mode_for("/etc/hosts"), (0o644, true));
    }

    #[test]
    fn secret_manifests_are_private() {
        let secret = b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n";
        let config_map = b"apiVersion: v1\nkind: ConfigMap\n";
        assert_eq!(
            manifest_mode("/opt/openshift/manifests/a.yaml", secret),
            0o600
        );
        assert_eq!(
            manifest_mode(
                "/opt/openshift/openshift/b.yaml",
                b"kind: ConfigMap\n---\nkind: Secret\n"
            ),
            0o600
        );
        assert_eq!(
            manifest_mode("/opt/openshift/manifests/c.yaml", config_map),
            0o644
        );
        assert_eq!(manifest_mode("/usr/local/bin/x.sh", secret), 0o555);
    }

    #[test]
    fn conditional_files_follow_the_context() {
        let files = [
            "/etc/motd",
            "/opt/openshift/manifests/user-ca-bundle-config.yaml",
            "/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml",
        ];
        let ctx =
            serde_json::json!({"trust_bundle": "", "ssh_key": "k", "release": {"files": files}});
        assert!(!applies(
            "/opt/openshift/manifests/user-ca-bundle-config.yaml",
            &ctx
        ));
        assert!(applies(
            "/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml",
            &ctx
        ));
        assert!(applies("/etc/motd", &ctx));
        assert!(
            !applies("/etc/hosts", &ctx),
            "a file the release does not list"
        );
    }
}

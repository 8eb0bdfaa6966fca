//! The ClusterVersion the CVO starts with (`manifests/cvo-overrides.yaml`): every object the
//! bootstrap creates from its manifests is listed as unmanaged, so the CVO leaves it alone while
//! the cluster bootstraps (bootkube's cvo-overrides stage later restores the user's own list).
//! The list is computed from the node's manifests as the installer computes it: the first
//! document of every YAML or JSON file under `manifests/` and `openshift/`, the user's included,
//! except the ClusterVersion itself and the machine manifests of `openshift/` (user-data
//! secrets, machine configs, machines), which the installer writes from other assets.

use super::{AssetSet, File};
use serde::{Deserialize, Serialize};

/// The node path of the ClusterVersion manifest.
pub const PATH: &str = "/opt/openshift/manifests/cvo-overrides.yaml";

/// Machine manifests in `openshift/`: written by the installer's machine assets, never
/// overridden (glob patterns on the file name).
const MACHINE_MANIFESTS: &[&str] = &[
    "99_openshift-cluster-api_master-user-data-secret.yaml",
    "99_openshift-cluster-api_worker-user-data-secret.yaml",
    "99_openshift-machine-api_master-control-plane-machine-set.yaml",
    "99_openshift-machineconfig_*",
    "99_openshift-cluster-api_host-bmc-secrets-*.yaml",
    "99_openshift-cluster-api_host-network-config-secrets-*.yaml",
    "99_openshift-cluster-api_hosts-*.yaml",
    "99_openshift-cluster-api_master-machines-*.yaml",
    "99_openshift-cluster-api_worker-machineset-*.yaml",
    "99_openshift-machine-api_claim-*master*.yaml",
    "99_openshift-machine-api_address-*master*.yaml",
    "99_openshift-etcd_fencing-credentials-secrets-*.yaml",
];

/// One unmanaged object, as the ClusterVersion's `spec.overrides` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unmanaged {
    kind: String,
    group: String,
    namespace: String,
    name: String,
}

fn glob_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(first) || !name.ends_with(last) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the installer's manifest assets own the file at `path` (and so override it).
fn is_overridden(path: &str) -> bool {
    let Some((dir, name)) = path.rsplit_once('/') else {
        return false;
    };
    let structured = [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e));
    match dir {
        "/opt/openshift/manifests" => structured && path != PATH,
        "/opt/openshift/openshift" => {
            structured && !MACHINE_MANIFESTS.iter().any(|p| glob_matches(p, name))
        }
        _ => false,
    }
}

/// The object a manifest's first document names.
fn first_object(contents: &[u8]) -> Option<Unmanaged> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Meta {
        name: String,
        namespace: String,
    }
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Head {
        api_version: String,
        kind: String,
        metadata: Meta,
    }
    let text = std::str::from_utf8(contents).ok()?;
    if crate::config::depth::too_deep(text).is_some() {
        return None;
    }
    let document = serde_yaml_ng::Deserializer::from_str(text).next()?;
    let head = Head::deserialize(document).ok()?;
    // `group/version`, or a bare version for the core group.
    let group = head
        .api_version
        .rsplit_once('/')
        .map_or("", |(g, _)| g)
        .to_string();
    Some(Unmanaged {
        kind: head.kind,
        group,
        namespace: head.metadata.namespace,
        name: head.metadata.name,
    })
}

/// The unmanaged objects of `set`'s manifests, sorted by path as the installer sorts its files
/// (`manifests/` before `openshift/`).
pub fn unmanaged_objects(set: &AssetSet) -> Vec<Unmanaged> {
    let mut files: Vec<&File> = set
        .files
        .iter()
        .filter(|f| is_overridden(&f.path))
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
        .into_iter()
        .filter_map(|f| first_object(&f.contents))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_manifests_and_the_cluster_version_are_not_overridden() {
        assert!(is_overridden(
            "/opt/openshift/openshift/99_kubeadmin-password-secret.yaml"
        ));
        assert!(is_overridden("/opt/openshift/manifests/extra.json"));
        assert!(!is_overridden(PATH));
        assert!(!is_overridden(
            "/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml"
        ));
        assert!(!is_overridden(
            "/opt/openshift/openshift/99_openshift-cluster-api_worker-user-data-secret.yaml"
        ));
        assert!(!is_overridden(
            "/opt/openshift/openshift/99_openshift-machine-api_claim-x-master-0.yaml"
        ));
        assert!(is_overridden(
            "/opt/openshift/openshift/99_openshift-machine-api_claim-x-worker-0.yaml"
        ));
        assert!(!is_overridden("/opt/openshift/manifests/notes.txt"));
    }

    #[test]
    fn the_first_document_names_the_object() {
        let text = b"apiVersion: config.openshift.io/v1\nkind: Proxy\nmetadata:\n  name: cluster\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n";
        let object = first_object(text).unwrap();
        assert_eq!(
            object,
            Unmanaged {
                kind: "Proxy".into(),
                group: "config.openshift.io".into(),
                namespace: String::new(),
                name: "cluster".into(),
            }
        );
        let core = first_object(
            b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: kube-system\n",
        )
        .unwrap();
        assert_eq!(
            (core.group.as_str(), core.namespace.as_str()),
            ("", "kube-system")
        );
    }
}

//! A manifest of the user's with the name of one bootgen generates replaces it (that is how a
//! generated object is changed on purpose). Said every time, since a file named alike by
//! chance silently drops what the install-config put there; refused when the replacement lacks
//! an object the generated file has, or a `spec` field of it (the cluster and service networks
//! of `cluster-network-02-config.yml`), since the cluster then comes up without it.

use super::{File, UserManifest};
use crate::config::Warning;
use crate::error::{Error, OptionField, Result};
use serde_yaml_ng::Value;

/// Checks `user` (from the directory of `option`, placed at `generated.path`) against the
/// generated file it replaces: the warning to give, or the error when it lacks what the
/// generated one holds.
pub(super) fn check(generated: &File, user: &UserManifest, option: OptionField) -> Result<Warning> {
    let theirs = objects(&user.contents);
    let mut missing = Vec::new();
    for ours in objects(&generated.contents) {
        let Some(kind_name) = identity(&ours) else {
            continue;
        };
        let Some(replacement) = theirs
            .iter()
            .find(|o| identity(o).as_ref() == Some(&kind_name))
        else {
            missing.push(format!("the {} `{}`", kind_name.0, kind_name.1));
            continue;
        };
        if let Some(Value::Mapping(spec)) = ours.get("spec") {
            let given = replacement.get("spec");
            for key in spec.keys().filter_map(Value::as_str) {
                if given.and_then(|s| s.get(key)).is_none() {
                    missing.push(format!("{} `{}` spec.{key}", kind_name.0, kind_name.1));
                }
            }
        }
    }
    let place = generated.path.trim_start_matches("/opt/openshift/");
    if !missing.is_empty() {
        return Err(Error::InvalidOption {
            option,
            message: format!(
                "{} replaces the manifest bootgen generates as {place} from the install-config, but lacks {}, which the cluster needs; keep them in your copy, or give your file another name",
                user.relative,
                missing.join(", ")
            ),
        });
    }
    Ok(Warning {
        file: crate::error::OPTIONS_SOURCE.into(),
        field: option.name().into(),
        line: None,
        message: format!(
            "{} replaces the manifest bootgen generates as {place} from the install-config",
            user.relative
        ),
    })
}

/// The YAML documents of `bytes` that parse to a mapping (the user's were checked to parse).
fn objects(bytes: &[u8]) -> Vec<Value> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    serde_yaml_ng::Deserializer::from_str(text)
        .filter_map(|doc| serde::Deserialize::deserialize(doc).ok())
        .filter(Value::is_mapping)
        .collect()
}

/// An object's kind and name.
fn identity(object: &Value) -> Option<(String, String)> {
    let kind = object.get("kind")?.as_str()?;
    let name = object.get("metadata")?.get("name")?.as_str()?;
    Some((kind.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NETWORK: &str = "apiVersion: config.openshift.io/v1\nkind: Network\nmetadata:\n  name: cluster\nspec:\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  networkType: OVNKubernetes\n  serviceNetwork:\n  - 172.30.0.0/16\n";

    fn generated() -> File {
        File {
            path: "/opt/openshift/manifests/cluster-network-02-config.yml".into(),
            mode: 0o644,
            contents: NETWORK.as_bytes().to_vec(),
            append: false,
        }
    }

    fn user(text: &str) -> UserManifest {
        UserManifest {
            relative: "cluster-network-02-config.yml".into(),
            contents: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_full_replacement_is_said_and_a_partial_one_refused() {
        let changed = NETWORK.replace("OVNKubernetes", "Cilium");
        let warning = check(&generated(), &user(&changed), OptionField::ManifestsDir).unwrap();
        assert!(warning.message.contains("replaces the manifest bootgen generates as manifests/cluster-network-02-config.yml"), "{warning}");
        let partial = "apiVersion: config.openshift.io/v1\nkind: Network\nmetadata:\n  name: cluster\nspec:\n  networkType: Cilium\n";
        let err = check(&generated(), &user(partial), OptionField::ManifestsDir)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "Network `cluster` spec.clusterNetwork, Network `cluster` spec.serviceNetwork"
            ),
            "{err}"
        );
        let other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n";
        let err = check(&generated(), &user(other), OptionField::ManifestsDir)
            .unwrap_err()
            .to_string();
        assert!(err.contains("lacks the Network `cluster`"), "{err}");
    }
}

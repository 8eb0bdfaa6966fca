//! Which cluster an output directory was made for, so one cluster's configs are never written
//! over another's by mistake (the embedded example over a real cluster, a copied command line
//! run in the wrong directory).

use super::OutputFile;
use crate::error::{Error, Result};
use std::path::Path;

/// What names a cluster in an output directory: its name and infra ID (`metadata.json`), its
/// API server's URL (the admin kubeconfig's, which holds the base domain), and the host the
/// control plane's pointer config fetches from (`master.ign`: `api-int.<name>.<domain>`,
/// which still names the cluster when the other two files were removed).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct ClusterMark {
    name: Option<String>,
    infra_id: Option<String>,
    api_server: Option<String>,
    config_host: Option<String>,
}

impl ClusterMark {
    /// The mark of the files about to be written.
    fn of_files(files: &[OutputFile]) -> ClusterMark {
        let find = |name: &str| {
            files
                .iter()
                .find(|f| f.relative == name)
                .map(|f| f.contents.as_slice())
        };
        ClusterMark::read(find(METADATA), find(KUBECONFIG), find(POINTER))
    }

    fn read(
        metadata: Option<&[u8]>,
        kubeconfig: Option<&[u8]>,
        pointer: Option<&[u8]>,
    ) -> ClusterMark {
        let metadata: Option<serde_json::Value> =
            metadata.and_then(|bytes| serde_json::from_slice(bytes).ok());
        let field = |key: &str| {
            metadata
                .as_ref()
                .and_then(|m| m.get(key))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let kubeconfig: Option<serde_yaml_ng::Value> =
            kubeconfig.and_then(|bytes| serde_yaml_ng::from_slice(bytes).ok());
        let api_server = kubeconfig
            .as_ref()
            .and_then(|k| k.get("clusters"))
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("cluster"))
            .and_then(|c| c.get("server"))
            .and_then(|s| s.as_str())
            .map(str::to_string);
        let pointer: Option<serde_json::Value> =
            pointer.and_then(|bytes| serde_json::from_slice(bytes).ok());
        let config_host = pointer
            .as_ref()
            .and_then(|p| p.pointer("/ignition/config/merge/0/source"))
            .and_then(|s| s.as_str())
            .and_then(|url| url.split_once("://"))
            .map(|(_, rest)| {
                rest.split(['/', ':'])
                    .next()
                    .unwrap_or_default()
                    .to_string()
            });
        ClusterMark {
            name: field("clusterName"),
            infra_id: field("infraID"),
            api_server,
            config_host,
        }
    }

    /// True when the two name different clusters: some fact both know differs.
    fn differs_from(&self, other: &ClusterMark) -> bool {
        let differ =
            |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a != b);
        differ(&self.name, &other.name)
            || differ(&self.infra_id, &other.infra_id)
            || differ(&self.api_server, &other.api_server)
            || differ(&self.config_host, &other.config_host)
    }
}

impl std::fmt::Display for ClusterMark {
    /// What is known of it: a directory whose metadata.json is gone has no name to show.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut facts = Vec::new();
        if let Some(api) = &self.api_server {
            facts.push(format!("API {api}"));
        }
        if let Some(infra) = &self.infra_id {
            facts.push(format!("infra ID {infra}"));
        }
        if let Some(host) = &self.config_host {
            facts.push(format!("machine configs from {host}"));
        }
        match &self.name {
            Some(name) => write!(f, "cluster `{name}`")?,
            None => write!(f, "a cluster of unknown name")?,
        }
        if !facts.is_empty() {
            write!(f, " ({})", facts.join(", "))?;
        }
        Ok(())
    }
}

const METADATA: &str = super::METADATA_FILE;
const KUBECONFIG: &str = super::ADMIN_KUBECONFIG;
const POINTER: &str = "master.ign";

/// True for the files that name the cluster (the write keeps what it found of them on disk).
pub(super) fn names_cluster(relative: &str) -> bool {
    relative == METADATA || relative == KUBECONFIG || relative == POINTER
}

/// An error when `dir` holds the output of another cluster than `files` are for. `found`: the
/// bytes on disk of the files of `files` that [`names_cluster`] and that differ from the new
/// ones (the write read them anyway); when none differ, the cluster is the same.
pub(super) fn refuse_other_cluster(
    dir: &Path,
    files: &[OutputFile],
    found: &[(&str, Vec<u8>)],
) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let find = |name: &str| {
        found
            .iter()
            .find(|(relative, _)| *relative == name)
            .map(|(_, bytes)| bytes.as_slice())
    };
    let new = ClusterMark::of_files(files);
    if ClusterMark::read(find(METADATA), find(KUBECONFIG), find(POINTER)).differs_from(&new) {
        // Only to say which cluster it is: the files that did not differ are read too.
        let read = |name: &str| super::read_no_link(&dir.join(name)).ok().flatten();
        let on_disk = ClusterMark::read(
            read(METADATA).as_deref(),
            read(KUBECONFIG).as_deref(),
            read(POINTER).as_deref(),
        );
        return Err(Error::OtherCluster {
            dir: dir.to_path_buf(),
            on_disk: on_disk.to_string(),
            new: new.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(name: &str, infra: &str, server: &str) -> Vec<OutputFile> {
        vec![
            OutputFile {
                relative: METADATA.into(),
                contents: format!(r#"{{"clusterName":"{name}","infraID":"{infra}"}}"#).into_bytes(),
                mode: 0o644,
            },
            OutputFile {
                relative: KUBECONFIG.into(),
                contents: format!("clusters:\n- cluster:\n    server: {server}\n  name: {name}\n")
                    .into_bytes(),
                mode: 0o600,
            },
        ]
    }

    /// What a write finds on disk of the files naming the cluster, where they differ.
    fn found<'a>(on_disk: &[OutputFile], new: &[OutputFile]) -> Vec<(&'a str, Vec<u8>)> {
        on_disk
            .iter()
            .zip(new)
            .filter(|(old, new)| old.contents != new.contents)
            .map(|(old, _)| {
                let name = if old.relative == METADATA {
                    METADATA
                } else {
                    KUBECONFIG
                };
                (name, old.contents.clone())
            })
            .collect()
    }

    #[test]
    fn another_name_domain_or_infra_id_is_another_cluster() {
        let dir = tempfile::tempdir().unwrap();
        let real = files("prod", "prod-x1", "https://api.prod.corp.example:6443");
        for f in &real {
            crate::output::write_file(&dir.path().join(&f.relative), &f.contents, f.mode).unwrap();
        }
        // Nothing found on disk, or the same files: the same cluster.
        refuse_other_cluster(dir.path(), &real, &[]).unwrap();
        refuse_other_cluster(dir.path(), &real, &found(&real, &real)).unwrap();
        for other in [
            files(
                "example",
                "example-6rv8s",
                "https://api.example.example.com:6443",
            ),
            files("prod", "prod-x1", "https://api.prod.lab.example:6443"),
            files("prod", "prod-y2", "https://api.prod.corp.example:6443"),
        ] {
            let err = refuse_other_cluster(dir.path(), &other, &found(&real, &other))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(
                    "cluster `prod` (API https://api.prod.corp.example:6443, infra ID prod-x1)"
                ),
                "{err}"
            );
        }
    }
}

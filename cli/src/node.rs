//! Collecting the bootstrap node's state for `bootgen diagnose --node`: the service records, the
//! `.done` markers, the journal of the bootstrap units (`journalctl --output=json`), failed
//! units, the logs of CRI-O's and podman's containers, cluster-bootstrap's dump of the API and
//! the live API's CSRs and nodes when it answers, the Infrastructure manifest (which names api-int) and the present time (as a bundle's gather
//! time), named as in a log bundle. A tool that is missing or fails leaves its part out, with a
//! note.
//!
//! `BOOTGEN_NODE_ROOT` (tests only) puts the node's files under another root.

use std::path::PathBuf;
use std::process::Command;

use bootgen::diagnose::{journal_json_to_text, NodeFile, NodeState};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// The bootstrap units whose journals are read.
const UNITS: &[&str] = &[
    "release-image",
    "release-image-download",
    "crio-configure",
    "crio",
    "kubelet",
    "bootkube",
    "approve-csr",
    "progress",
    "node-image-pull",
    "node-image-overlay",
    "bootstrap-in-place",
];

/// Journal lines read per unit, and log lines per container: the end is where failures are.
const TAIL_LINES: &str = "5000";

fn root() -> PathBuf {
    std::env::var_os("BOOTGEN_NODE_ROOT").map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// Runs a command; its standard output, or `None` when it is missing or fails.
fn output_of(program: &str, args: &[&str]) -> Option<Vec<u8>> {
    let output = Command::new(program).args(args).output().ok()?;
    output.status.success().then_some(output.stdout)
}

fn mtime_of(meta: &std::fs::Metadata) -> Option<i64> {
    let modified = meta.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(since.as_secs()).ok()
}

/// Everything `diagnose --node` reads at the time `now`, and notes on what could not be read.
pub fn collect(now: OffsetDateTime) -> (NodeState, Vec<String>) {
    let root = root();
    let mut files = Vec::new();
    let mut notes = Vec::new();
    // Where installer-gather.sh writes `date -u` (RFC 3339): how long the node has waited.
    if let Ok(text) = now.format(&Rfc3339) {
        files.push(NodeFile {
            path: "bootstrap/host/date.txt".into(),
            contents: format!("{text}\n").into_bytes(),
            mtime: None,
        });
    }
    let infrastructure = "openshift/manifests/cluster-infrastructure-02-config.yml";
    if let Ok(contents) = std::fs::read(root.join("opt").join(infrastructure)) {
        files.push(NodeFile {
            path: format!("rendered-assets/{infrastructure}"),
            contents,
            mtime: None,
        });
    }
    let records = root.join("var/log/openshift");
    match std::fs::read_dir(&records) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let (true, Ok(contents)) = (name.ends_with(".json"), std::fs::read(entry.path()))
                {
                    files.push(NodeFile {
                        path: format!("bootstrap/services/{name}"),
                        contents,
                        mtime: None,
                    });
                }
            }
        }
        Err(err) => notes.push(format!("{}: {err}", records.display())),
    }
    let assets = root.join("opt/openshift");
    if let Ok(entries) = std::fs::read_dir(&assets) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".done") {
                let mtime = entry.metadata().ok().as_ref().and_then(mtime_of);
                files.push(NodeFile {
                    path: format!("rendered-assets/openshift/{name}"),
                    contents: Vec::new(),
                    mtime,
                });
            }
        }
    }
    // What cluster-bootstrap's failure handler dumped from the API (CSRs, nodes, operators).
    let dump = root.join("tmp/artifacts-api-server-temp");
    if let Ok(entries) = std::fs::read_dir(&dump) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let (true, Ok(contents)) = (name.ends_with(".yaml"), std::fs::read(entry.path())) {
                files.push(NodeFile {
                    path: format!("resources/{name}"),
                    contents,
                    mtime: None,
                });
            }
        }
    }
    collect_api(&root, &mut files, &mut notes);
    collect_journals(&mut files, &mut notes);
    if let Some(failed) = output_of(
        "systemctl",
        &["list-units", "--state=failed", "--no-pager", "--plain"],
    ) {
        files.push(NodeFile {
            path: "failed-units.txt".into(),
            contents: failed,
            mtime: None,
        });
    }
    collect_containers(&mut files, &mut notes);
    let carried = root.join("var/log/log-bundle-bootstrap.tar.gz");
    if carried.exists() {
        notes.push(format!(
            "this single node carries its pre-reboot bundle: bootgen diagnose {}",
            carried.display()
        ));
    }
    (NodeState { files }, notes)
}

/// The resources of the live API that the gather script takes (fresher than cluster-bootstrap's
/// dump, so read after it and named alike): the CSRs waiting for approval, the nodes that have
/// joined. Asked with the bootstrap's admin kubeconfig, only when the API answers.
fn collect_api(root: &std::path::Path, files: &mut Vec<NodeFile>, notes: &mut Vec<String>) {
    let kubeconfig = root.join("opt/openshift/auth/kubeconfig");
    if !kubeconfig.exists() {
        return;
    }
    let kubeconfig = format!("--kubeconfig={}", kubeconfig.display());
    let ask = |args: &[&str]| {
        let mut all = vec![kubeconfig.as_str(), "--request-timeout=10s"];
        all.extend_from_slice(args);
        output_of("oc", &all)
    };
    if ask(&["get", "--raw=/readyz"]).is_none() {
        notes.push("the API does not answer (or oc is missing): its state is left out".into());
        return;
    }
    for resource in ["csr", "nodes"] {
        if let Some(yaml) = ask(&["get", resource, "--output=yaml"]) {
            files.push(NodeFile {
                path: format!("resources/{resource}.yaml"),
                contents: yaml,
                mtime: None,
            });
        }
    }
}

fn collect_journals(files: &mut Vec<NodeFile>, notes: &mut Vec<String>) {
    for unit in UNITS {
        let unit_arg = format!("--unit={unit}.service");
        let args = [
            "--boot",
            "--no-pager",
            "--output=json",
            "--lines",
            TAIL_LINES,
            unit_arg.as_str(),
        ];
        match output_of("journalctl", &args) {
            Some(json) => files.push(NodeFile {
                path: format!("bootstrap/journals/{unit}.log"),
                contents: journal_json_to_text(&json),
                mtime: None,
            }),
            None => {
                notes.push("journalctl is missing or failed: journals are left out".into());
                return;
            }
        }
    }
}

/// (id, name) of each container a runtime lists as JSON.
fn containers(json: &[u8], podman: bool) -> Vec<(String, String)> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(json) else {
        return Vec::new();
    };
    let list = if podman {
        value.as_array().cloned().unwrap_or_default()
    } else {
        value["containers"].as_array().cloned().unwrap_or_default()
    };
    list.iter()
        .filter_map(|c| {
            let (id, name) = if podman {
                (
                    c["Id"].as_str()?,
                    c["Names"][0].as_str().unwrap_or("unnamed"),
                )
            } else {
                (
                    c["id"].as_str()?,
                    c["metadata"]["name"].as_str().unwrap_or("unnamed"),
                )
            };
            let short: String = id.chars().take(12).collect();
            let safe: String = name
                .chars()
                .map(|ch| {
                    if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
                        ch
                    } else {
                        '_'
                    }
                })
                .collect();
            Some((short, safe))
        })
        .collect()
}

fn collect_containers(files: &mut Vec<NodeFile>, notes: &mut Vec<String>) {
    for (tool, list_args, dir, podman) in [
        (
            "crictl",
            &["ps", "--all", "--output=json"][..],
            "bootstrap/containers",
            false,
        ),
        (
            "podman",
            &["ps", "--all", "--format=json"][..],
            "bootstrap/pods",
            true,
        ),
    ] {
        let Some(json) = output_of(tool, list_args) else {
            notes.push(format!(
                "{tool} is missing or failed: its containers are left out"
            ));
            continue;
        };
        for (id, name) in containers(&json, podman) {
            let output = Command::new(tool)
                .args(["logs", "--tail", TAIL_LINES, &id])
                .output();
            if let Ok(output) = output {
                // Containers log to stderr as often as to stdout.
                let mut contents = output.stdout;
                contents.extend_from_slice(&output.stderr);
                files.push(NodeFile {
                    path: format!("{dir}/{name}-{id}.log"),
                    contents,
                    mtime: None,
                });
            }
        }
    }
}

//! Where keyfiles go on a node. A config that serves one host gets its keyfiles in
//! `/etc/NetworkManager/system-connections/` (0600: NetworkManager ignores a keyfile others
//! can read) and its name in `/etc/hostname`. A config that serves several (a single node's
//! live ISO, several bootstrap candidates) gets every host's files staged by host name and a
//! script, run before NetworkManager, that keeps the host whose MAC is on the machine.

use super::{Host, Hosts, Keyfile, Role};
use crate::error::{Error, Result};

/// NetworkManager's directory of keyfiles.
pub const KEYFILE_DIR: &str = "/etc/NetworkManager/system-connections";
/// Where several hosts' files wait for the selection script, one directory per host.
const STAGE_DIR: &str = "/etc/bootgen/network";
/// The selection script's path on the node.
pub const SELECT_SCRIPT: &str = "/usr/local/bin/bootgen-select-network.sh";
/// The unit that runs it before NetworkManager.
pub const SELECT_UNIT: &str = "bootgen-select-network.service";

const SCRIPT: &str = include_str!("select-network.sh");

const UNIT: &str = "[Unit]
Description=Choose this machine's static network among the hosts its config serves
DefaultDependencies=no
After=local-fs.target systemd-udev-trigger.service
Before=NetworkManager.service network-pre.target
Wants=network-pre.target
ConditionPathIsDirectory=/etc/bootgen/network

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/bootgen-select-network.sh

[Install]
WantedBy=multi-user.target
";

/// A file for a node's config.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeFile {
    /// The absolute path on the node.
    pub path: String,
    /// The text.
    pub contents: String,
    /// Unix permission bits.
    pub mode: u32,
}

fn keyfile_at(dir: &str, keyfile: &Keyfile) -> NodeFile {
    NodeFile {
        path: format!("{dir}/{}", keyfile.name),
        contents: keyfile.contents.clone(),
        mode: 0o600,
    }
}

fn hostname_at(path: String, host: &Host) -> NodeFile {
    NodeFile {
        path,
        contents: format!("{}\n", host.hostname),
        mode: 0o644,
    }
}

/// Refuses two keyfiles of one name in one directory: the second would replace the first.
fn refuse_collision(files: &[NodeFile], path: &str, owner: &str) -> Result<()> {
    if files.iter().any(|f| f.path == path) {
        return Err(Error::InvalidField {
            file: owner.to_string(),
            field: path.rsplit('/').next().unwrap_or(path).to_string(),
            line: None,
            message: format!(
                "another keyfile is already placed at {path}: give one of them another name"
            ),
        });
    }
    Ok(())
}

/// One host's files, placed directly: its keyfiles, the user's `extra` keyfiles and its name
/// (with no host, the extra keyfiles alone). Each extra keyfile comes with the file it was
/// read from, for messages.
pub(super) fn host_files(
    host: Option<&Host>,
    extra: &[(String, Keyfile)],
) -> Result<Vec<NodeFile>> {
    let mut files = Vec::new();
    if let Some(host) = host {
        files.extend(host.keyfiles.iter().map(|k| keyfile_at(KEYFILE_DIR, k)));
        files.push(hostname_at("/etc/hostname".into(), host));
    }
    add_extra(&mut files, extra)?;
    Ok(files)
}

/// A control-plane or compute host's own files, for the config it boots from beside its role's
/// pointer config: its keyfiles (0600) and `/etc/hostname`.
pub fn host_config_files(host: &Host) -> Vec<NodeFile> {
    let mut files: Vec<NodeFile> = host
        .keyfiles
        .iter()
        .map(|k| keyfile_at(KEYFILE_DIR, k))
        .collect();
    files.push(hostname_at("/etc/hostname".into(), host));
    files
}

fn add_extra(files: &mut Vec<NodeFile>, extra: &[(String, Keyfile)]) -> Result<()> {
    for (origin, keyfile) in extra {
        let file = keyfile_at(KEYFILE_DIR, keyfile);
        refuse_collision(files, &file.path, origin)?;
        files.push(file);
    }
    Ok(())
}

/// Several hosts' files staged by host name, the user's `extra` keyfiles placed directly, and
/// the selection script; with the unit text that runs it (to be enabled).
pub(super) fn selected_files(
    hosts: &[&Host],
    extra: &[(String, Keyfile)],
    source: &str,
) -> Result<(Vec<NodeFile>, String)> {
    let mut files = Vec::new();
    for host in hosts {
        let dir = format!("{STAGE_DIR}/{}", host.hostname);
        files.extend(host.keyfiles.iter().map(|k| keyfile_at(&dir, k)));
        files.push(hostname_at(format!("{dir}/hostname"), host));
        // `MAC NAME` a line: the script finds the host by MAC and renames NAME to the kernel's.
        let macs: String = host
            .interfaces
            .iter()
            .map(|i| format!("{} {}\n", i.mac_address, i.name))
            .collect();
        files.push(NodeFile {
            path: format!("{dir}/macs"),
            contents: macs,
            mode: 0o644,
        });
        for keyfile in &host.keyfiles {
            // The script copies every host's keyfile under its own name: a user keyfile of the
            // same name would be replaced on the machine that matches.
            if let Some((origin, _)) = extra.iter().find(|(_, k)| k.name == keyfile.name) {
                return Err(Error::InvalidField {
                    file: origin.clone(),
                    field: keyfile.name.clone(),
                    line: None,
                    message: format!("host {} of {source} has a keyfile of this name: give one of them another name", host.hostname),
                });
            }
        }
    }
    add_extra(&mut files, extra)?;
    files.push(NodeFile {
        path: SELECT_SCRIPT.into(),
        contents: SCRIPT.into(),
        mode: 0o755,
    });
    Ok((files, UNIT.to_string()))
}

/// The hosts the config a bootstrap machine (or a single node) boots from serves, in the
/// file's order: the bootstrap hosts, or a single node's control-plane (or role-less) hosts.
pub fn bootstrap_hosts(hosts: Option<&Hosts>, single_node: bool) -> Vec<&Host> {
    hosts
        .map(|h| h.hosts.iter())
        .into_iter()
        .flatten()
        .filter(|h| match h.role {
            Some(Role::Bootstrap) => !single_node,
            Some(Role::Master) | None => single_node,
            Some(Role::Worker) => false,
        })
        .collect()
}

/// The network files of the config a bootstrap machine or a single node boots from, with the
/// selection unit's text when that config serves several hosts. A single node's live ISO may
/// boot on any machine, so its host is always chosen by MAC; a bootstrap config is one host's
/// when the hosts file lists one bootstrap host. `extra` are the user's own keyfiles, each
/// with the file it was read from.
pub fn bootstrap_files(
    hosts: Option<&Hosts>,
    extra: &[(String, Keyfile)],
    single_node: bool,
) -> Result<(Vec<NodeFile>, Option<String>)> {
    let served = bootstrap_hosts(hosts, single_node);
    let source = hosts.map_or("", |h| h.source_name.as_str());
    match served.as_slice() {
        [one] if !single_node => Ok((host_files(Some(one), extra)?, None)),
        [] => Ok((host_files(None, extra)?, None)),
        several => {
            let (files, unit) = selected_files(several, extra, source)?;
            Ok((files, Some(unit)))
        }
    }
}

//! Static networking: each host's network read from a hosts file (the agent installer's
//! `agent-config.yaml`, or a bootgen hosts file of the same shape), converted offline to
//! NetworkManager keyfiles, checked against the cluster before anything boots, and placed in
//! the configs the nodes boot from.
//!
//! ```
//! let text = "hosts:\n- hostname: sno\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 52:54:00:00:00:01\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: true\n";
//! let hosts = bootgen::network::parse_hosts(text, "agent-config.yaml")?;
//! let files = bootgen::network::host_keyfiles(&hosts.hosts[0]);
//! assert_eq!(files[0].0, "eno1.nmconnection");
//! # Ok::<(), bootgen::Error>(())
//! ```

mod agent_keys;
mod cluster;
mod convert;
mod hosts;
mod keyfile;
mod keyfile_rules;
mod keyfile_syntax;
mod placement;
mod settings;
mod source;
#[cfg(test)]
mod tests;
mod time_sources;

pub use agent_keys::{AgentConfigKey, KeyHandling, AGENT_CONFIG_KEYS};
pub use cluster::check_hosts;
pub use convert::{Keyfile, KEYFILE_SUFFIX};
pub(crate) use hosts::is_host_name;
pub use hosts::{HostInterface, Role, RootDeviceHints};
pub use keyfile::read_user_keyfile;
pub(crate) use keyfile_syntax::parse_groups;
pub use placement::{
    bootstrap_files, bootstrap_hosts, host_config_files, NodeFile, KEYFILE_DIR, SELECT_SCRIPT,
    SELECT_UNIT,
};
pub use settings::{HostNetwork, NetInterface, Route, StaticAddress, CONVERTED_KINDS};
pub use time_sources::{chrony_conf, time_source_manifests, CHRONY_CONF};

use crate::config::Warning;
use crate::error::{Error, Result};
use source::Source;
use std::path::Path;

/// A hosts file, read and converted.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Hosts {
    /// The file name shown in messages.
    pub source_name: String,
    /// The hosts, in the file's order.
    pub hosts: Vec<Host>,
    /// The URL the PXE sets are served from (`bootArtifactsBaseURL`), when the file gives one.
    pub boot_artifacts_base_url: Option<String>,
    /// The NTP servers every node takes its time from (`additionalNTPSources`), by name or
    /// address; none when the file lists none (the nodes keep their image's time sources).
    pub time_sources: Vec<String>,
    /// The keys bootgen does not carry out and unknown keys, with their line.
    pub warnings: Vec<Warning>,
    /// The text, for the lines of later messages.
    text: String,
}

/// One host.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Host {
    /// Its host name.
    pub hostname: String,
    /// Its role; `None` when the file leaves it out (a single node's host may).
    pub role: Option<Role>,
    /// Its interfaces by name and MAC.
    pub interfaces: Vec<HostInterface>,
    /// Where media install it, when given.
    pub root_device_hints: Option<RootDeviceHints>,
    /// What its `networkConfig` states (empty without one: DHCP).
    pub network: HostNetwork,
    /// Its keyfiles, converted from `networkConfig`, sorted by name.
    pub keyfiles: Vec<Keyfile>,
    /// Its index in the file's `hosts`, for messages.
    #[serde(skip)]
    index: usize,
}

/// A host's keyfiles as (file name, contents): what goes into
/// `/etc/NetworkManager/system-connections/` on the installed system, or into
/// `/etc/coreos-firstboot-network/` of a live medium.
pub fn host_keyfiles(host: &Host) -> Vec<(String, String)> {
    host.keyfiles
        .iter()
        .map(|k| (k.name.clone(), k.contents.clone()))
        .collect()
}

/// Reads and converts a hosts file.
pub fn load_hosts(path: &Path) -> Result<Hosts> {
    let bytes = crate::config::read_at_most(path, crate::config::INSTALL_CONFIG_LIMIT)?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Parse {
        file: path.display().to_string(),
        line: None,
        message: format!(
            "is not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    parse_hosts(&text, &path.display().to_string())
}

/// Parses and converts hosts-file text (`source_name` is used in messages): every host named,
/// its interfaces with MACs unique across the file, its `networkConfig` converted; what cannot
/// be is refused naming the host and field.
pub fn parse_hosts(text: &str, source_name: &str) -> Result<Hosts> {
    let source = Source {
        name: source_name,
        text,
    };
    let (document, warnings) = hosts::read_document(&source)?;
    let mut out: Vec<Host> = Vec::new();
    for (index, raw) in document.hosts.iter().enumerate() {
        let hostname = hosts::hostname(&source, index, raw)?;
        if out.iter().any(|h| h.hostname == hostname) {
            return Err(source.error(
                &format!("hosts.{index}.hostname"),
                None,
                format!("host {hostname} is listed twice"),
            ));
        }
        let role = hosts::role(&source, index, &hostname, raw)?;
        let interfaces = hosts::interfaces(&source, index, &hostname, raw)?;
        for (k, interface) in interfaces.iter().enumerate() {
            let owner = out.iter().find(|h| h.has_mac(&interface.mac_address));
            if let Some(owner) = owner {
                return Err(source.error(
                    &format!("hosts.{index}.interfaces.{k}.macAddress"),
                    Some(&hostname),
                    format!(
                        "MAC {} is also host {}'s: each MAC belongs to one host",
                        interface.mac_address, owner.hostname
                    ),
                ));
            }
        }
        let root_device_hints = raw
            .root_device_hints
            .clone()
            .filter(|hints| !hints.is_empty());
        if let Some(hints) = &root_device_hints {
            hints.check().map_err(|(key, why)| {
                source.error(
                    &format!("hosts.{index}.rootDeviceHints.{key}"),
                    Some(&hostname),
                    why,
                )
            })?;
        }
        let (network, keyfiles) = match &raw.network_config {
            None => (HostNetwork::default(), Vec::new()),
            Some(config) => {
                let network = settings::read(&source, index, &hostname, config, &interfaces)?;
                let by_mac = convert::matched_by_mac(config, &interfaces, &network);
                let keyfiles = convert::keyfiles(&source, index, &hostname, &by_mac)?;
                (network, keyfiles)
            }
        };
        for (k, interface) in network.interfaces.iter().enumerate() {
            let Some(mac) = &interface.mac_address else {
                continue;
            };
            let owner = out.iter().find(|h| h.has_mac(mac));
            if let Some(owner) = owner {
                return Err(source.error(
                    &format!("hosts.{index}.networkConfig.interfaces.{k}.mac-address"),
                    Some(&hostname),
                    format!(
                        "MAC {mac} is also host {}'s: each MAC belongs to one host",
                        owner.hostname
                    ),
                ));
            }
        }
        out.push(Host {
            hostname,
            role,
            interfaces,
            root_device_hints,
            network,
            keyfiles,
            index,
        });
    }
    if out.is_empty() {
        return Err(source.error("hosts", None, "lists no host"));
    }
    if let Some(url) = &document.boot_artifacts_base_url {
        crate::media::check_base_url(url)
            .map_err(|why| source.error("bootArtifactsBaseURL", None, why))?;
    }
    let time_sources = time_sources::read(&source, &document.additional_ntp_sources)?;
    Ok(Hosts {
        source_name: source_name.to_string(),
        hosts: out,
        boot_artifacts_base_url: document.boot_artifacts_base_url.clone(),
        time_sources,
        warnings,
        text: text.to_string(),
    })
}

impl Host {
    /// True when `mac` (normalized) is one of the host's NICs' or one its networkConfig gives
    /// an interface.
    fn has_mac(&self, mac: &str) -> bool {
        self.interfaces.iter().any(|i| i.mac_address == mac)
            || self
                .network
                .interfaces
                .iter()
                .any(|i| i.mac_address.as_deref() == Some(mac))
    }
}

impl Hosts {
    /// The disk `host`'s own install media install to: its hints (a `deviceName` alone is a
    /// path), else `default` (the disk every install medium of the run installs to, which the
    /// caller calls `default_name`). Given both, the default must be the hints' `deviceName`,
    /// or is added as one: the node then installs only to a disk that is both.
    pub fn install_disk(
        &self,
        host: &Host,
        default: Option<&str>,
        default_name: &str,
    ) -> Result<Option<crate::media::InstallDisk>> {
        use crate::media::InstallDisk;
        let Some(hints) = &host.root_device_hints else {
            return Ok(default.map(|d| InstallDisk::Device(d.to_string())));
        };
        let mut hints = hints.clone();
        match (hints.device_name.as_deref(), default) {
            (Some(written), Some(default)) if written != default => {
                return Err(self.source().error(
                    &format!("hosts.{}.rootDeviceHints.deviceName", host.index),
                    Some(&host.hostname),
                    format!("is {written}, and {default_name} is {default}: the host's install media would install to one of two disks; give the same disk in both, or leave {default_name} out"),
                ));
            }
            (None, Some(default)) => hints.device_name = Some(default.to_string()),
            _ => {}
        }
        Ok(Some(InstallDisk::from_hints(hints)))
    }

    fn source(&self) -> Source<'_> {
        Source {
            name: &self.source_name,
            text: &self.text,
        }
    }
}

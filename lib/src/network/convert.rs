//! nmstate YAML to NetworkManager keyfiles, offline, with the `nmstate` crate's `gen_conf` (the
//! code `nmstatectl gc` runs), so no `nmstatectl` of a matching version is needed on the
//! workstation. Its UUIDs are derived from the interface names, so the same YAML gives the same
//! keyfiles every run.
//!
//! Every NIC of the host's `interfaces` that the YAML uses is matched by its MAC (nmstate's
//! `identifier: mac-address`): the kernel may name it otherwise than the hosts file (`eno1`
//! there, `ens3` on the machine), and a profile bound to a name would then match nothing.

use super::hosts::HostInterface;
use super::settings::HostNetwork;
use super::source::Source;
use crate::error::Result;
use serde_yaml_ng::{Mapping, Value};

/// A NetworkManager connection profile in keyfile syntax.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Keyfile {
    /// The file name, `NAME.nmconnection`.
    pub name: String,
    /// The keyfile text.
    pub contents: String,
}

/// The suffix NetworkManager reads keyfiles by.
pub const KEYFILE_SUFFIX: &str = ".nmconnection";

/// `config` with each NIC it uses matched by MAC: an ethernet interface of the host's
/// `interfaces` gets `identifier: mac-address` and its `mac-address` (unless the user chose an
/// `identifier`, or a `mac-address` other than the NIC's, which nmstate then sets on it), and a
/// NIC that a bond or bridge takes as a port, or a VLAN as its base, without an entry of its own
/// gets one (up, no addresses), so that its profile is matched by MAC and the VLAN's `parent`
/// names that profile's UUID instead of the NIC's name.
pub(super) fn matched_by_mac(
    config: &Value,
    interfaces: &[HostInterface],
    network: &HostNetwork,
) -> Value {
    let mut config = config.clone();
    let Some(items) = config
        .get_mut("interfaces")
        .and_then(Value::as_sequence_mut)
    else {
        return config;
    };
    let mac_of = |name: &str| {
        interfaces
            .iter()
            .find(|i| i.name == name)
            .map(|i| i.mac_address.clone())
    };
    let key = |k: &str| Value::String(k.to_string());
    for item in items.iter_mut() {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("ethernet");
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
        let (Some(mac), "ethernet") = (mac_of(name), kind) else {
            continue;
        };
        let Some(map) = item.as_mapping_mut() else {
            continue;
        };
        let written_mac = map.get("mac-address").and_then(Value::as_str);
        let same_mac = written_mac.is_none_or(|m| m.eq_ignore_ascii_case(&mac));
        if map.contains_key("identifier") || !same_mac {
            continue;
        }
        map.insert(key("identifier"), key("mac-address"));
        map.insert(key("mac-address"), Value::String(mac));
    }
    let declared: Vec<&str> = network.interfaces.iter().map(|i| i.name.as_str()).collect();
    let mut added: Vec<&str> = Vec::new();
    for lower in network.interfaces.iter().flat_map(|i| &i.lower) {
        let Some(mac) = mac_of(lower) else {
            continue;
        };
        if declared.contains(&lower.as_str()) || added.contains(&lower.as_str()) {
            continue;
        }
        added.push(lower);
        let mut entry = Mapping::new();
        entry.insert(key("name"), key(lower));
        entry.insert(key("type"), key("ethernet"));
        entry.insert(key("state"), key("up"));
        entry.insert(key("identifier"), key("mac-address"));
        entry.insert(key("mac-address"), Value::String(mac));
        items.push(Value::Mapping(entry));
    }
    config
}

/// Converts a host's `networkConfig` (at `hosts.<index>.networkConfig`, its NICs already
/// [`matched_by_mac`]) to keyfiles, sorted by name; nmstate's refusal is an error naming the
/// host and the field.
pub(super) fn keyfiles(
    source: &Source<'_>,
    index: usize,
    host: &str,
    config: &Value,
) -> Result<Vec<Keyfile>> {
    let at = format!("hosts.{index}.networkConfig");
    let refuse = |message: String| {
        source.error(
            &at,
            Some(host),
            format!("nmstate cannot convert it: {message}"),
        )
    };
    let yaml = serde_yaml_ng::to_string(config).map_err(|e| refuse(e.to_string()))?;
    // nmstate is another crate's code run on the user's input: a panic in it is reported as a
    // refusal of that input, not a crash.
    let converted = std::panic::catch_unwind(|| {
        nmstate::NetworkState::new_from_yaml(&yaml).and_then(|state| state.gen_conf())
    })
    .map_err(|_| refuse("the conversion failed on this input".into()))?
    .map_err(|e| refuse(without_position(e.msg()).to_string()))?;
    let mut files: Vec<Keyfile> = converted
        .into_iter()
        .filter(|(backend, _)| backend == "NetworkManager")
        .flat_map(|(_, files)| files)
        .map(|(name, contents)| Keyfile { name, contents })
        .collect();
    // Each name becomes a path on the node: nothing but a plain file name will do.
    if let Some(odd) = files.iter().find(|f| {
        f.name.contains('/') || f.name.starts_with('.') || !f.name.ends_with(KEYFILE_SUFFIX)
    }) {
        return Err(refuse(format!("it named a keyfile `{}`", odd.name)));
    }
    // What nmstate writes is held to NetworkManager's rules too: a value the user gave may
    // reach a key NetworkManager would drop.
    for file in &files {
        let groups =
            super::keyfile_syntax::parse_groups(&file.contents).map_err(|(line, why)| {
                refuse(format!(
                    "it wrote {} with line {line} broken: {why}",
                    file.name
                ))
            })?;
        if let Some((group, key, why)) = super::keyfile_rules::first_broken(&groups) {
            return Err(refuse(format!(
                "NetworkManager would not take [{group}] {key} of its {}: {why}",
                file.name
            )));
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// nmstate's message without its line and column: they count lines of the YAML handed to it,
/// not of the hosts file (the error names the host's `networkConfig` and its line instead).
fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => &message[..at],
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(yaml: &str) -> Result<Vec<Keyfile>> {
        let text = format!("hosts:\n- hostname: h\n  networkConfig:\n{}", indent(yaml));
        let source = Source {
            name: "hosts.yaml",
            text: &text,
        };
        let document: Value = serde_yaml_ng::from_str(&text).unwrap();
        keyfiles(&source, 0, "h", &document["hosts"][0]["networkConfig"])
    }

    fn indent(yaml: &str) -> String {
        yaml.lines().map(|l| format!("    {l}\n")).collect()
    }

    #[test]
    fn a_static_ethernet_becomes_one_keyfile_with_its_address_gateway_and_dns() {
        let files = convert(
            "interfaces:\n- name: eno1\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    - ip: 192.168.111.20\n      prefix-length: 24\ndns-resolver:\n  config:\n    server: [192.168.111.1]\nroutes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.168.111.1\n    next-hop-interface: eno1\n",
        )
        .unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(files[0].name, "eno1.nmconnection");
        let text = &files[0].contents;
        assert!(text.contains("address0=192.168.111.20/24"), "{text}");
        assert!(text.contains("192.168.111.1"), "{text}");
        assert!(text.contains("interface-name=eno1"), "{text}");
        // The same input gives the same bytes (UUIDs from names, not random).
        let again = convert(
            "interfaces:\n- name: eno1\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    - ip: 192.168.111.20\n      prefix-length: 24\ndns-resolver:\n  config:\n    server: [192.168.111.1]\nroutes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.168.111.1\n    next-hop-interface: eno1\n",
        )
        .unwrap();
        assert_eq!(files, again);
    }

    #[test]
    fn what_nmstate_refuses_names_the_host_and_field() {
        let error = convert("interfaces:\n- name: eno1\n  type: ethernet\n  colour: red\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("hosts[0].networkConfig"), "{error}");
        assert!(error.contains("host h:"), "{error}");
        assert!(error.contains("colour"), "{error}");
    }
}

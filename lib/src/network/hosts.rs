//! The hosts file as users write it: the agent installer's `agent-config.yaml` shape
//! (`hosts[]` with `hostname`, `role`, `interfaces`, `rootDeviceHints`, `networkConfig`), read
//! with serde, unknown keys warned about with their line.

use super::agent_keys;
use super::source::Source;
use crate::config::Warning;
use crate::error::{Error, Result};
use serde::Deserialize;
use serde_yaml_ng::Value;

pub use crate::media::RootDeviceHints;

/// The document: what bootgen carries out of it (`hosts`, `bootArtifactsBaseURL`,
/// `additionalNTPSources`; the keys that only name the document are read past). Every other key is a row of
/// `agent_keys::AGENT_CONFIG_KEYS`, or unknown.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawDocument {
    #[serde(default)]
    pub hosts: Vec<RawHost>,
    #[serde(rename = "bootArtifactsBaseURL")]
    pub boot_artifacts_base_url: Option<String>,
    /// NTP servers or pools, by name or address.
    #[serde(rename = "additionalNTPSources", default)]
    pub additional_ntp_sources: Vec<String>,
    #[allow(dead_code)]
    api_version: Option<Value>,
    #[allow(dead_code)]
    kind: Option<Value>,
    #[allow(dead_code)]
    metadata: Option<Value>,
}

/// One host as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawHost {
    pub hostname: Option<String>,
    pub role: Option<String>,
    #[serde(default)]
    pub interfaces: Vec<RawInterface>,
    pub root_device_hints: Option<RootDeviceHints>,
    /// nmstate YAML, read by `settings` and converted by `convert`.
    pub network_config: Option<Value>,
}

/// One of a host's interfaces as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawInterface {
    pub name: Option<String>,
    pub mac_address: Option<String>,
}

/// What a host is in the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The bootstrap machine (`role: bootstrap`, bootgen's own word: the agent installer has
    /// none).
    Bootstrap,
    /// A control-plane machine (`role: master`), or the single node.
    Master,
    /// A compute machine (`role: worker`).
    Worker,
}

impl Role {
    /// The word the hosts file uses.
    pub fn name(self) -> &'static str {
        match self {
            Role::Bootstrap => "bootstrap",
            Role::Master => "master",
            Role::Worker => "worker",
        }
    }

    fn parse(word: &str) -> Option<Role> {
        [Role::Bootstrap, Role::Master, Role::Worker]
            .into_iter()
            .find(|role| role.name() == word)
    }
}

/// One network interface of a host: the name `networkConfig` knows it by and its MAC.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct HostInterface {
    /// The interface name used in `networkConfig`.
    pub name: String,
    /// Its MAC address, lowercase, as `/sys/class/net/*/address` shows it.
    pub mac_address: String,
}

/// Reads the document, warning about each key bootgen does not carry out and each unknown key
/// (with their line).
pub(super) fn read_document(source: &Source<'_>) -> Result<(RawDocument, Vec<Warning>)> {
    if let Some(line) = crate::config::depth::too_deep(source.text) {
        return Err(Error::Parse {
            file: source.name.to_string(),
            line: Some(line),
            message: crate::config::depth::too_deep_message(),
        });
    }
    let text = source.text;
    let mut unknown = Vec::new();
    let Some(deserializer) = serde_yaml_ng::Deserializer::from_str(text).next() else {
        return Err(Error::Parse {
            file: source.name.to_string(),
            line: None,
            message: "holds no YAML document".into(),
        });
    };
    let document: RawDocument =
        serde_ignored::deserialize(deserializer, |path| unknown.push(path.to_string())).map_err(
            |e| Error::Parse {
                file: source.name.to_string(),
                line: e.location().map(|l| l.line()),
                message: e.to_string(),
            },
        )?;
    refuse_control_characters(source, &document)?;
    let mut warnings = agent_keys::not_carried_out(source, document.hosts.len())?;
    for path in &unknown {
        let dotted = crate::config::dotted_path(path);
        if agent_keys::row_of(&dotted).is_none() {
            warnings.push(source.warning(
                &dotted,
                "unknown key: a hosts file has no such field, so nothing reads it (check its spelling and indentation)",
            ));
        }
    }
    Ok((document, warnings))
}

/// Refuses a control character in any value (a newline in a DNS search domain or a
/// description would reach a keyfile raw and start lines the user never wrote), naming the
/// host and the field.
fn refuse_control_characters(source: &Source<'_>, document: &RawDocument) -> Result<()> {
    let Some(deserializer) = serde_yaml_ng::Deserializer::from_str(source.text).next() else {
        return Ok(());
    };
    let Ok(tree) = Value::deserialize(deserializer) else {
        return Ok(());
    };
    let Some((field, c)) = crate::config::control_chars::first_control_character(&tree) else {
        return Ok(());
    };
    let host = field
        .strip_prefix("hosts.")
        .and_then(|rest| rest.split('.').next()?.parse::<usize>().ok())
        .and_then(|index| document.hosts.get(index)?.hostname.as_deref());
    Err(source.error(
        &field,
        host,
        format!(
            "holds {}: a value of the hosts file stays on one line, or it would start lines of its own in the node's keyfiles",
            crate::config::control_chars::describe(c)
        ),
    ))
}

/// True for a name a host of a hosts file may have: a DNS name a node can take (lowercase
/// letters, digits, `-` and `.`), at most 63 characters a label and 253 in all.
pub(crate) fn is_host_name(name: &str) -> bool {
    let labels_fit = name.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    });
    labels_fit && name.len() <= 253
}

/// The host's name, checked: required, a DNS name a node can take (lowercase letters, digits,
/// `-` and `.`), at most 63 characters a label.
pub(super) fn hostname(source: &Source<'_>, index: usize, raw: &RawHost) -> Result<String> {
    let at = format!("hosts.{index}.hostname");
    let Some(name) = raw.hostname.as_deref().filter(|n| !n.is_empty()) else {
        return Err(source.error(
            &at,
            None,
            "is required: the name the node takes (/etc/hostname)",
        ));
    };
    if !is_host_name(name) {
        return Err(source.error(
            &at,
            None,
            format!("`{name}` is not a host name: lowercase letters, digits and `-`, in labels separated by `.`"),
        ));
    }
    Ok(name.to_string())
}

/// The host's role; `None` when the file leaves it out (the agent installer then chooses; the
/// cluster checks decide whether bootgen can).
pub(super) fn role(
    source: &Source<'_>,
    index: usize,
    host: &str,
    raw: &RawHost,
) -> Result<Option<Role>> {
    let Some(word) = raw.role.as_deref() else {
        return Ok(None);
    };
    Role::parse(word).map(Some).ok_or_else(|| {
        source.error(
            &format!("hosts.{index}.role"),
            Some(host),
            format!("`{word}` is not a role: write bootstrap, master or worker"),
        )
    })
}

/// The host's interfaces: each with a name and a MAC, neither twice on the host.
pub(super) fn interfaces(
    source: &Source<'_>,
    index: usize,
    host: &str,
    raw: &RawHost,
) -> Result<Vec<HostInterface>> {
    let mut out: Vec<HostInterface> = Vec::new();
    for (k, interface) in raw.interfaces.iter().enumerate() {
        let at = format!("hosts.{index}.interfaces.{k}");
        let Some(name) = interface.name.as_deref().filter(|n| !n.is_empty()) else {
            return Err(source.error(
                &format!("{at}.name"),
                Some(host),
                "is required: the interface name networkConfig uses",
            ));
        };
        if !is_interface_name(name) {
            return Err(source.error(
                &format!("{at}.name"),
                Some(host),
                format!("`{name}` is not an interface name: {INTERFACE_NAME_RULE}"),
            ));
        }
        let Some(mac) = interface.mac_address.as_deref() else {
            return Err(source.error(
                &format!("{at}.macAddress"),
                Some(host),
                format!("is required: the MAC address of {name}, by which the node finds it"),
            ));
        };
        let mac_address = normalize_mac(mac).ok_or_else(|| {
            source.error(
                &format!("{at}.macAddress"),
                Some(host),
                format!("`{mac}` is not a MAC address such as 52:54:00:12:34:56"),
            )
        })?;
        if out.iter().any(|i| i.name == name) {
            return Err(source.error(
                &format!("{at}.name"),
                Some(host),
                format!("interface {name} is listed twice"),
            ));
        }
        out.push(HostInterface {
            name: name.to_string(),
            mac_address,
        });
    }
    Ok(out)
}

/// What [`is_interface_name`] takes, for messages.
pub(super) const INTERFACE_NAME_RULE: &str =
    "at most 15 characters, without `/`, `:`, `=`, `\\` or spaces";

/// The kernel's rule for interface names, and what the selection script can carry: a name
/// becomes a keyfile's file name and a word of the script's `MAC NAME` lines.
pub(super) fn is_interface_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 15
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| "/:=\\".contains(c) || c.is_whitespace() || c.is_control())
}

/// Six two-digit hex octets separated by `:` (or `-`), lowercase with `:`.
pub(super) fn normalize_mac(text: &str) -> Option<String> {
    let octets: Vec<&str> = text.split([':', '-']).collect();
    let valid = octets.len() == 6
        && octets
            .iter()
            .all(|o| o.len() == 2 && o.chars().all(|c| c.is_ascii_hexdigit()));
    valid.then(|| octets.join(":").to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_are_normalized_and_garbage_refused() {
        assert_eq!(
            normalize_mac("52-54-00-AB-cd-01").as_deref(),
            Some("52:54:00:ab:cd:01")
        );
        assert!(normalize_mac("52:54:00:ab:cd").is_none());
        assert!(normalize_mac("52:54:00:ab:cd:0g").is_none());
    }

    #[test]
    fn interface_names_follow_the_kernel_and_fit_a_line_of_the_script() {
        for good in ["eno1", "bond0.300", "enp0s31f6", "br-ex"] {
            assert!(is_interface_name(good), "{good}");
        }
        for bad in [
            "",
            "..",
            "a/b",
            "eno1 x",
            "eno1\nfake",
            "a=b",
            "a\\b",
            "abcdefghijklmnop",
        ] {
            assert!(!is_interface_name(bad), "{bad:?}");
        }
    }
}

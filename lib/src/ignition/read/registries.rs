//! `/etc/containers/registries.conf` read back: the registries bootgen's template can write.

use crate::error::{Error, Result};
use crate::model::mirrors::{matches_source, Mirror, Registry};
use serde::Deserialize;

/// The file on the node.
pub const REGISTRIES_CONF: &str = "/etc/containers/registries.conf";
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfFile {
    #[serde(default)]
    registry: Vec<ConfRegistry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfRegistry {
    location: Option<String>,
    prefix: Option<String>,
    #[serde(default)]
    insecure: bool,
    #[serde(default)]
    blocked: bool,
    #[serde(default)]
    mirror_by_digest_only: bool,
    #[serde(default)]
    mirror: Vec<ConfMirror>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfMirror {
    location: String,
    #[serde(default)]
    insecure: bool,
    pull_from_mirror: Option<String>,
}

fn cannot(message: String) -> Error {
    Error::CannotPatch {
        path: REGISTRIES_CONF.to_string(),
        message,
    }
}

/// Parses registries.conf (version 2) into the registries bootgen's template can write.
/// Anything the template could not write back (search registries, aliases, wildcard
/// prefixes, tag-only mirrors) is an error rather than silently dropped.
pub fn parse_registries_conf(text: &str) -> Result<Vec<Registry>> {
    let file: ConfFile = toml::from_str(text).map_err(|e| {
        cannot(format!(
            "bootgen can only carry over [[registry]] tables with location, insecure, blocked, mirror-by-digest-only and [[registry.mirror]] (location, insecure, pull-from-mirror): {}",
            e.message()
        ))
    })?;
    file.registry.into_iter().map(registry_of).collect()
}

fn registry_of(conf: ConfRegistry) -> Result<Registry> {
    let location = match (conf.location, conf.prefix) {
        (Some(location), None) => location,
        (Some(location), Some(prefix)) if prefix == location => location,
        (None, Some(prefix)) => {
            return Err(cannot(format!(
                "[[registry]] prefix = \"{prefix}\" has no location; bootgen cannot write wildcard or remapped prefixes back"
            )))
        }
        (Some(location), Some(prefix)) => {
            return Err(cannot(format!(
                "[[registry]] prefix = \"{prefix}\" remaps to location = \"{location}\"; bootgen cannot write that back"
            )))
        }
        (None, None) => return Err(cannot("a [[registry]] table has no location".into())),
    };
    // Mirror-level pull-from-mirror, when the same on every mirror, says the same as the
    // registry-level mirror-by-digest-only the template writes.
    let policies: Vec<&str> = conf
        .mirror
        .iter()
        .map(|m| m.pull_from_mirror.as_deref().unwrap_or("all"))
        .collect();
    let mut digest_only = conf.mirror_by_digest_only;
    if conf.mirror.iter().any(|m| m.pull_from_mirror.is_some()) {
        if conf.mirror_by_digest_only {
            return Err(cannot(format!(
                "{location}: pull-from-mirror cannot be combined with mirror-by-digest-only"
            )));
        }
        digest_only = match policies.first().copied() {
            Some("digest-only") if policies.iter().all(|p| *p == "digest-only") => true,
            Some("all") if policies.iter().all(|p| *p == "all") => false,
            _ => {
                return Err(cannot(format!(
                    "{location}: mirrors with pull-from-mirror = {policies:?}; bootgen can only write one digest-only/all policy per source"
                )))
            }
        };
    }
    Ok(Registry {
        location,
        insecure: conf.insecure,
        blocked: conf.blocked,
        mirror_by_digest_only: digest_only,
        mirrors: conf
            .mirror
            .into_iter()
            .map(|m| Mirror {
                location: m.location,
                insecure: m.insecure,
            })
            .collect(),
    })
}

/// The registry whose location is the longest prefix of `image`, as containers/image picks:
/// of two tables at the same location (an installer from 4.21 writes one per source and
/// sourcePolicy), the first.
pub fn registry_for<'a>(registries: &'a [Registry], image: &str) -> Option<&'a Registry> {
    // `max_by_key` keeps the last of equals: walk backwards to keep the first.
    registries
        .iter()
        .rev()
        .filter(|r| matches_source(image, &r.location))
        .max_by_key(|r| r.location.len())
}

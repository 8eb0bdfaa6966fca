//! `/etc/containers/registries.conf`: read what a config already has (bootgen's or another
//! tool's), merge the command line's rules in, and write it back with bootgen's own template,
//! so the file looks the same however it was made.

use super::options::MirrorRule;
use super::render_template;
use crate::error::Result;
use crate::model::mirrors::{host_of, Mirror, Registry};
use crate::release::Switches;

const TEMPLATE: &str = "node/etc/containers/registries.conf.j2";

/// Renders registries with bootgen's registries.conf template, as a release with `switches`
/// has it (a blocked line in every table, or only in a blocked source's).
pub fn render(registries: &[Registry], switches: &Switches) -> Result<String> {
    render_template(
        TEMPLATE,
        &serde_json::json!({ "registries": registries, "release": { "switches": switches } }),
    )
}

/// What the command line adds to the registries.
#[derive(Debug, Clone, Copy)]
pub struct MergeRequest<'a> {
    /// `--mirror` rules, in order.
    pub rules: &'a [MirrorRule],
    /// `--block-source`.
    pub block_sources: bool,
    /// `--insecure-registry` hosts.
    pub insecure_hosts: &'a [String],
}

/// Merges: existing registries first, then the command line's rules; sources and mirrors
/// de-duplicated in first-seen order. `--block-source` blocks every source that has mirrors.
/// An insecure host that is no registry's own location gets a `[[registry]]` of its own, so a
/// direct pull from the mirror (the rewritten release image) may use plain HTTP too.
pub fn merge(existing: Vec<Registry>, request: MergeRequest<'_>) -> Vec<Registry> {
    let mut merged: Vec<Registry> = Vec::new();
    let additions = request.rules.iter().map(|rule| Registry {
        location: rule.source.clone(),
        insecure: false,
        blocked: false,
        mirror_by_digest_only: true,
        mirrors: vec![Mirror {
            location: rule.mirror.clone(),
            insecure: false,
        }],
    });
    for registry in existing.into_iter().chain(additions) {
        match merged.iter_mut().find(|r| r.location == registry.location) {
            Some(known) => {
                known.insecure |= registry.insecure;
                known.blocked |= registry.blocked;
                for mirror in registry.mirrors {
                    match known
                        .mirrors
                        .iter_mut()
                        .find(|m| m.location == mirror.location)
                    {
                        Some(m) => m.insecure |= mirror.insecure,
                        None => known.mirrors.push(mirror),
                    }
                }
            }
            None => merged.push(registry),
        }
    }
    if request.block_sources {
        for registry in merged.iter_mut().filter(|r| !r.mirrors.is_empty()) {
            registry.blocked = true;
        }
    }
    for host in request.insecure_hosts {
        mark_insecure(&mut merged, host);
    }
    merged
}

/// True when the registry host `candidate` (host[:port]) is named by `--insecure-registry
/// wanted`: exactly, or any port of the host when `wanted` has none.
pub fn host_matches(wanted: &str, candidate: &str) -> bool {
    // Host names are case-insensitive (`M.LOCAL:5000` is `m.local:5000`).
    let (wanted, candidate) = (wanted.to_ascii_lowercase(), candidate.to_ascii_lowercase());
    let (wanted, candidate) = (wanted.as_str(), candidate.as_str());
    if wanted == candidate {
        return true;
    }
    let has_port = |h: &str| match h.rfind(':') {
        Some(i) => !h[i..].contains(']'),
        None => false,
    };
    !has_port(wanted)
        && candidate
            .strip_prefix(wanted)
            .is_some_and(|rest| rest.starts_with(':') && !rest.contains(']'))
}

fn mark_insecure(registries: &mut Vec<Registry>, wanted: &str) {
    let mut mirror_hosts: Vec<String> = Vec::new();
    for registry in registries.iter_mut() {
        if host_matches(wanted, host_of(&registry.location)) {
            registry.insecure = true;
        }
        for mirror in &mut registry.mirrors {
            let host = host_of(&mirror.location);
            if host_matches(wanted, host) {
                mirror.insecure = true;
                if !mirror_hosts.iter().any(|h| h == host) {
                    mirror_hosts.push(host.to_string());
                }
            }
        }
    }
    if mirror_hosts.is_empty() {
        mirror_hosts.push(wanted.to_string());
    }
    // A host-wide entry, even where a source under the host has its own (`quay.io/a`): the
    // host's other repositories are pulled insecurely too.
    for host in mirror_hosts {
        if !registries
            .iter()
            .any(|r| r.location.eq_ignore_ascii_case(&host))
        {
            registries.push(Registry {
                location: host,
                insecure: true,
                blocked: false,
                mirror_by_digest_only: true,
                mirrors: Vec::new(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ignition::read::{parse_registries_conf as parse, registry_for, REGISTRIES_CONF};

    const INSTALLER_STYLE: &str = "[[registry]]\nlocation = \"quay.io/openshift-release-dev/ocp-release\"\ninsecure = false\nmirror-by-digest-only = true\n\n[[registry.mirror]]\nlocation = \"mirror.example.com:5000/ocp/release\"\ninsecure = false\n\n\n";

    #[test]
    fn parses_what_the_template_writes_and_writes_it_back_identically() {
        let registries = parse(INSTALLER_STYLE).unwrap();
        assert_eq!(registries.len(), 1);
        assert!(registries[0].mirror_by_digest_only);
        assert_eq!(
            registries[0].mirrors[0].location,
            "mirror.example.com:5000/ocp/release"
        );
        assert_eq!(
            render(&registries, &Switches::default()).unwrap(),
            INSTALLER_STYLE
        );
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(render(&[], &Switches::default()).unwrap(), "");
    }

    #[test]
    fn blocked_round_trips() {
        let mut registries = parse(INSTALLER_STYLE).unwrap();
        registries[0].blocked = true;
        let text = render(&registries, &Switches::default()).unwrap();
        assert!(text.contains("blocked = true\n"), "{text}");
        assert_eq!(parse(&text).unwrap(), registries);
    }

    /// The blocked line as each release's installer writes it: in every table from 4.21 (a
    /// config of that installer written back byte for byte), only a blocked source's before,
    /// and with no release known as before bootgen followed the installers.
    #[test]
    fn the_blocked_line_is_the_releases() {
        let switches = |minor: &str| {
            crate::release::profile_for(minor.parse().unwrap())
                .unwrap()
                .switches(Default::default())
        };
        let from_4_21 = INSTALLER_STYLE.replace(
            "mirror-by-digest-only = true\n",
            "mirror-by-digest-only = true\nblocked = false\n",
        );
        let registries = parse(&from_4_21).unwrap();
        assert_eq!(registries, parse(INSTALLER_STYLE).unwrap());
        for minor in ["4.21", "4.22", "5.0"] {
            assert_eq!(
                render(&registries, &switches(minor)).unwrap(),
                from_4_21,
                "{minor}"
            );
        }
        for minor in ["4.9", "4.20"] {
            assert_eq!(
                render(&registries, &switches(minor)).unwrap(),
                INSTALLER_STYLE,
                "{minor}"
            );
        }
        assert_eq!(
            render(&registries, &Switches::default()).unwrap(),
            INSTALLER_STYLE
        );
    }

    #[test]
    fn pull_from_mirror_becomes_digest_only() {
        let text = "[[registry]]\nlocation = \"a.io/x\"\n[[registry.mirror]]\nlocation = \"m.io/x\"\npull-from-mirror = \"digest-only\"\n";
        assert!(parse(text).unwrap()[0].mirror_by_digest_only);
        let mixed = "[[registry]]\nlocation = \"a.io/x\"\n[[registry.mirror]]\nlocation = \"m.io/x\"\npull-from-mirror = \"tag-only\"\n";
        assert!(parse(mixed).is_err());
    }

    #[test]
    fn refuses_what_it_cannot_write_back() {
        let search = "unqualified-search-registries = [\"docker.io\"]\n";
        let err = parse(search).unwrap_err().to_string();
        assert!(err.contains("unqualified-search-registries"), "{err}");
        assert!(err.contains(REGISTRIES_CONF), "{err}");
        assert!(parse("[[registry]]\nprefix = \"*.example.com\"\n").is_err());
        assert!(parse("[[registry]]\nlocation = [\n").is_err());
    }

    fn rule(source: &str, mirror: &str) -> MirrorRule {
        MirrorRule {
            source: source.into(),
            mirror: mirror.into(),
        }
    }

    /// Location, blocked, and each mirror's location and insecure flag.
    type View<'a> = (&'a str, bool, Vec<(&'a str, bool)>);

    #[test]
    fn merge_keeps_first_seen_order_and_deduplicates() {
        let existing = parse(INSTALLER_STYLE).unwrap();
        let rules = [
            rule(
                "quay.io/openshift-release-dev/ocp-release",
                "mirror.example.com:5000/ocp/release",
            ),
            rule(
                "quay.io/openshift-release-dev/ocp-release",
                "second.example.com/ocp/release",
            ),
            rule("registry.example.org/app", "mirror.example.com:5000/app"),
        ];
        let merged = merge(
            existing,
            MergeRequest {
                rules: &rules,
                block_sources: true,
                insecure_hosts: &["second.example.com".into()],
            },
        );
        let view: Vec<View<'_>> = merged
            .iter()
            .map(|r| {
                (
                    r.location.as_str(),
                    r.blocked,
                    r.mirrors
                        .iter()
                        .map(|m| (m.location.as_str(), m.insecure))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            view,
            vec![
                (
                    "quay.io/openshift-release-dev/ocp-release",
                    true,
                    vec![
                        ("mirror.example.com:5000/ocp/release", false),
                        ("second.example.com/ocp/release", true)
                    ]
                ),
                (
                    "registry.example.org/app",
                    true,
                    vec![("mirror.example.com:5000/app", false)]
                ),
                // Its own entry, not blocked, so a direct pull may use plain HTTP.
                ("second.example.com", false, vec![]),
            ]
        );
        assert!(merged[2].insecure);
    }

    #[test]
    fn insecure_hosts_match_with_or_without_port() {
        assert!(host_matches("m.io", "m.io:5000"));
        assert!(host_matches("m.io:5000", "m.io:5000"));
        assert!(!host_matches("m.io:5000", "m.io:5001"));
        assert!(!host_matches("m.io", "m.iox"));
        assert!(host_matches("[::1]:5000", "[::1]:5000"));
        assert!(host_matches("M.LOCAL:5000", "m.local:5000"));
    }

    /// `--insecure-registry quay.io` with a mirrored source under quay.io: the source's entry
    /// is insecure, and so is the rest of the host, in an entry of its own.
    #[test]
    fn an_insecure_host_gets_its_own_entry_beside_a_source_under_it() {
        let merged = merge(
            vec![],
            MergeRequest {
                rules: &[rule("quay.io/a", "m.local/r")],
                block_sources: false,
                insecure_hosts: &["quay.io".into()],
            },
        );
        let whole = merged.iter().find(|r| r.location == "quay.io").unwrap();
        assert!(whole.insecure && whole.mirrors.is_empty());
        let source = merged.iter().find(|r| r.location == "quay.io/a").unwrap();
        assert!(source.insecure);
    }

    #[test]
    fn longest_source_wins() {
        let registries = merge(
            vec![],
            MergeRequest {
                rules: &[rule("q.io/a", "m.io/a"), rule("q.io/a/b", "n.io/b")],
                block_sources: false,
                insecure_hosts: &[],
            },
        );
        let found = registry_for(&registries, "q.io/a/b@sha256:00").unwrap();
        assert_eq!(found.location, "q.io/a/b");
        assert!(registry_for(&registries, "q.io/ab:1").is_none());
        // Two tables at one location: the first, whose mirrors podman and CRI-O use.
        let twice = parse(
            "[[registry]]\nlocation = \"q.io/a\"\n[[registry.mirror]]\nlocation = \"m.io/a\"\n\
             [[registry]]\nlocation = \"q.io/a\"\n[[registry.mirror]]\nlocation = \"n.io/a\"\n",
        )
        .unwrap();
        let found = registry_for(&twice, "q.io/a/b@sha256:00").unwrap();
        assert_eq!(found.mirrors[0].location, "m.io/a");
    }
}

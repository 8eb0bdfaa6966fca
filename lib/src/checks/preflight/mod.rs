//! The mirror pre-flight: computed from the final config (so `bootgen ignition` and `bootgen
//! patch` check the same thing), before anything is written. For each mirror host: are there
//! credentials in the pull secret, a CA (unless insecure), a host entry or a name that
//! resolves? Is the release image pinned by digest, and would a tag send it past the mirror to
//! a blocked source? Problems that break the boot are errors, the rest warnings.
//!
//! On vSphere it also looks up each vCenter's name (`platform.rs`).
//!
//! Name resolution is the caller's (the library does no network I/O): pass a resolver.

use crate::error::OptionField;
use crate::error::{Error, Result};
use crate::ignition::read::{
    auth_key_for, auth_keys, ca_count, configured_lines, find_release, has_credentials,
    manifest_auth_keys, maps_name, parse_registries_conf, read_text, registry_for,
    ReleaseReference, NODE_PULL_SECRET, PULL_SECRET_MANIFEST, REGISTRIES_CONF,
};
use crate::ignition::IgnitionDoc;
use crate::model::mirrors::{host_of, matches_source, Registry};

mod platform;

pub use platform::VCenterHost;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Worth fixing; the boot may still work. `--strict` makes it an error.
    Warning,
    /// The boot will not work.
    Error,
}

/// Which check a finding comes from, with the host or image it is about: what a program
/// matches on (the message is for people and may be reworded).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// registries.conf could not be read, so nothing was checked.
    Skipped,
    /// The node's pull secret is not a docker config JSON.
    UnreadablePullSecret,
    /// The node's pull secret has no credentials for the mirror host.
    NoCredentials {
        /// `host[:port]`.
        host: String,
    },
    /// The node's pull secret has credentials for some repositories on the mirror host and none
    /// for these: the host asks for a login, and their pulls go without one.
    RepositoriesWithoutCredentials {
        /// `host[:port]`.
        host: String,
        /// The mirror locations (`host[:port]/path`) pulled without credentials.
        repositories: Vec<String>,
    },
    /// The node's pull secret has credentials for the mirror host, the cluster's does not.
    NoClusterCredentials {
        /// `host[:port]`.
        host: String,
    },
    /// No CA certificate for the (secure) mirror host.
    NoCa {
        /// `host[:port]`.
        host: String,
    },
    /// The mirror's name has no /etc/hosts entry and did not resolve.
    Unresolved {
        /// `host[:port]`.
        host: String,
    },
    /// The release-image scripts could not be read.
    ReleaseUnreadable,
    /// The release is a tag under a blocked source: it cannot be pulled.
    TagPastBlockedSource {
        /// The release pull spec.
        reference: String,
    },
    /// The release is a tag under a mirrored source: the mirrors are skipped for it.
    TagSkipsMirrors {
        /// The release pull spec.
        reference: String,
    },
    /// The release is pulled from a mirror by tag, which can move.
    TagOnMirror {
        /// The release pull spec.
        reference: String,
    },
    /// The release lies under no mirrored source.
    ReleaseNotMirrored {
        /// The release pull spec.
        reference: String,
    },
    /// A vCenter's name does not resolve.
    VCenterUnresolved {
        /// The vCenter, as the install-config names it.
        server: String,
    },
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Warning or error.
    pub severity: Severity,
    /// Which check, and about what.
    pub kind: FindingKind,
    /// What is wrong and what to do, naming the host or image (never a credential).
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Where the config's release image is chosen, so that the advice to give it by digest names
/// something the caller can change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseChosenBy {
    /// The [`OptionField::ReleaseImage`] setting of the run that makes the config.
    Setting,
    /// The config itself (it is being patched): only making it again changes the release.
    Config,
}

impl ReleaseChosenBy {
    /// How to give the release as `pinned` (a pull spec ending in `@sha256:...`).
    fn how_to_pin(self, pinned: &str) -> String {
        match self {
            ReleaseChosenBy::Setting => format!("give {} {pinned}", OptionField::ReleaseImage),
            ReleaseChosenBy::Config => format!(
                "the release image is the config's own, so make the config again with it given by digest (bootgen ignition {} {pinned}, or the tool that made it)",
                OptionField::ReleaseImage
            ),
        }
    }
}

/// What a resolver found for a host name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The name has an address.
    Resolved,
    /// It has none (or the lookup failed); the reason.
    Failed(String),
    /// The name was not looked up (no resolver was given).
    NotChecked,
}

/// Whether the CA for a mirror is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaCheck {
    /// The mirror is insecure: no CA is needed.
    NotNeeded,
    /// This many CA certificates the node will trust for it.
    Present(usize),
    /// None.
    Missing,
}

/// How the node will find a mirror's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameCheck {
    /// The mirror is named by address.
    Address,
    /// The config's /etc/hosts maps the name.
    HostsEntry,
    /// The name resolves here (DNS on the node may differ).
    Resolves,
    /// It resolves neither way; the reason.
    Unresolved(String),
    /// It was not looked up (no resolver was given).
    NotChecked,
}

/// The checks for one mirror host.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MirrorHost {
    /// `host[:port]`.
    pub host: String,
    /// The node's pull secret has credentials for it.
    pub credentials: bool,
    /// Its CA.
    pub ca: CaCheck,
    /// Its name.
    pub name: NameCheck,
}

/// The whole pre-flight report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// The release image the config pulls, when found.
    pub release: Option<ReleaseReference>,
    /// One entry per mirror host, in registries.conf order.
    pub hosts: Vec<MirrorHost>,
    /// One entry per vCenter of a vSphere cluster, in the install-config's order.
    pub vcenters: Vec<VCenterHost>,
    /// Problems, in the order found.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when there was nothing to check (no mirrors, no vCenters).
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.vcenters.is_empty() && self.findings.is_empty()
    }

    /// One line per mirror host and one for the release: what was found.
    pub fn summary(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .hosts
            .iter()
            .map(|h| {
                let ca = match &h.ca {
                    CaCheck::NotNeeded => "not needed (insecure)".to_string(),
                    CaCheck::Present(n) => format!("{n} certificate(s) in the config"),
                    CaCheck::Missing => "none".to_string(),
                };
                let name = name_check_summary(&h.name);
                format!(
                    "mirror {}: credentials {}, CA {ca}, name {name}",
                    h.host,
                    if h.credentials { "yes" } else { "none" }
                )
            })
            .collect();
        lines.extend(
            self.vcenters
                .iter()
                .map(|v| format!("vCenter {}: name {}", v.server, name_check_summary(&v.name))),
        );
        if let Some(release) = &self.release {
            lines.push(format!(
                "release image {}: by {}",
                release.reference,
                if release.is_digest() { "digest" } else { "tag" }
            ));
        }
        lines
    }

    /// The findings that stop the run: errors, and warnings too under `strict`.
    pub fn blocking(&self, strict: bool) -> Vec<&Finding> {
        self.findings
            .iter()
            .filter(|f| strict || f.severity == Severity::Error)
            .collect()
    }

    /// `Err(Error::Preflight)` when anything blocks.
    pub fn verdict(&self, strict: bool) -> Result<()> {
        let blocking = self.blocking(strict);
        match blocking.first() {
            None => Ok(()),
            Some(first) => Err(Error::Preflight {
                count: blocking.len(),
                first: first.message.clone(),
            }),
        }
    }

    fn warn(&mut self, kind: FindingKind, message: String) {
        self.findings.push(Finding {
            severity: Severity::Warning,
            kind,
            message,
        });
    }

    fn error(&mut self, kind: FindingKind, message: String) {
        self.findings.push(Finding {
            severity: Severity::Error,
            kind,
            message,
        });
    }
}

/// Checks the final config, whose release image `chosen_by` chooses. `resolve` is asked only
/// about names with no /etc/hosts entry and that are not addresses; a failure there is a
/// warning, never an error.
pub fn check(
    doc: &IgnitionDoc,
    chosen_by: ReleaseChosenBy,
    resolve: &mut dyn FnMut(&str) -> Resolution,
) -> Report {
    let mut report = check_mirrors(doc, chosen_by, resolve);
    platform::check_vcenters(doc, resolve, &mut report);
    report
}

/// How a name was found, in a few words.
fn name_check_summary(name: &NameCheck) -> &'static str {
    match name {
        NameCheck::Address => "an IP address",
        NameCheck::HostsEntry => "/etc/hosts entry",
        NameCheck::Resolves => "resolves here",
        NameCheck::Unresolved(_) => "unresolved",
        NameCheck::NotChecked => "not looked up",
    }
}

fn check_mirrors(
    doc: &IgnitionDoc,
    chosen_by: ReleaseChosenBy,
    resolve: &mut dyn FnMut(&str) -> Resolution,
) -> Report {
    let mut report = Report::default();
    let registries = match read_text(doc, REGISTRIES_CONF)
        .and_then(|t| parse_registries_conf(&t.unwrap_or_default()))
    {
        Ok(registries) => registries,
        Err(e) => {
            report.warn(
                FindingKind::Skipped,
                format!("mirror pre-flight skipped: {e}"),
            );
            return report;
        }
    };
    let mirrored: Vec<Registry> = registries
        .iter()
        .filter(|r| !r.mirrors.is_empty())
        .cloned()
        .collect();
    if mirrored.is_empty() {
        return report;
    }
    check_hosts(doc, &mirrored, resolve, &mut report);
    check_release(doc, &mirrored, chosen_by, &mut report);
    report
}

fn check_hosts(
    doc: &IgnitionDoc,
    mirrored: &[Registry],
    resolve: &mut dyn FnMut(&str) -> Resolution,
    report: &mut Report,
) {
    let node_keys = match auth_keys(read_text(doc, NODE_PULL_SECRET).ok().flatten()) {
        Ok(keys) => keys,
        Err(m) => {
            report.error(
                FindingKind::UnreadablePullSecret,
                format!("{NODE_PULL_SECRET}: {m}: the node cannot pull anything"),
            );
            Vec::new()
        }
    };
    let cluster_keys = manifest_auth_keys(doc);
    let hosts_lines = configured_lines(doc);
    let mut seen: Vec<String> = Vec::new();
    for mirror in mirrored.iter().flat_map(|r| &r.mirrors) {
        let host = host_of(&mirror.location).to_string();
        if seen.contains(&host) {
            continue;
        }
        seen.push(host.clone());
        let locations: Vec<&str> = mirrored
            .iter()
            .flat_map(|r| &r.mirrors)
            .filter(|m| host_of(&m.location) == host)
            .map(|m| m.location.as_str())
            .collect();
        let insecure = mirrored
            .iter()
            .flat_map(|r| &r.mirrors)
            .any(|m| host_of(&m.location) == host && m.insecure);
        // The `auths` keys the host's repositories are pulled with, and those pulled with none.
        let mut with: Vec<&str> = Vec::new();
        let mut bare: Vec<String> = Vec::new();
        for location in &locations {
            match auth_key_for(&node_keys, location) {
                Some(key) => with.push(key),
                None => bare.push(location.to_string()),
            }
        }
        with.sort_unstable();
        with.dedup();
        bare.sort();
        bare.dedup();
        let credentials = !with.is_empty();
        if credentials && !bare.is_empty() {
            report.warn(
                FindingKind::RepositoriesWithoutCredentials {
                    host: host.clone(),
                    repositories: bare.clone(),
                },
                format!(
                    "mirror {host}: {NODE_PULL_SECRET} has credentials for {} but none that {} pulled with, so the mirror, which asks for a login, answers those pulls with `unauthorized: authentication required` (give {} FILE with an `auths` entry for {host} or for each of them)",
                    with.join(", "),
                    match bare.as_slice() {
                        [one] => format!("{one} is"),
                        many => format!("{} are", many.join(", ")),
                    },
                    OptionField::RegistryAuth
                ),
            );
        }
        if !credentials {
            report.warn(FindingKind::NoCredentials { host: host.clone() }, format!(
                "mirror {host}: no credentials for {host} in {NODE_PULL_SECRET}; if the mirror needs a login, pulls fail with `unauthorized: authentication required` (give {} FILE with an `auths` entry for {host})",
                OptionField::RegistryAuth
            ));
        } else if let Some(keys) = &cluster_keys {
            if !has_credentials(keys, &locations) {
                report.warn(FindingKind::NoClusterCredentials { host: host.clone() }, format!(
                    "mirror {host}: the node's pull secret has credentials for it but the cluster's ({PULL_SECRET_MANIFEST}) does not; the control-plane nodes will not be able to pull from it"
                ));
            }
        }
        let ca = if insecure {
            CaCheck::NotNeeded
        } else {
            match ca_count(doc, &host) {
                0 => {
                    report.warn(FindingKind::NoCa { host: host.clone() }, format!(
                        "mirror {host}: no CA certificate in /etc/pki/ca-trust/source/anchors/ or /etc/containers/certs.d/{host}/; unless a public CA signed its certificate, pulls fail with `x509: certificate signed by unknown authority` (give {} FILE, or {} {host} for a plain-HTTP mirror)",
                        OptionField::TrustBundle,
                        OptionField::InsecureRegistry
                    ));
                    CaCheck::Missing
                }
                n => CaCheck::Present(n),
            }
        };
        let name = name_check(&host, &hosts_lines, resolve);
        if let NameCheck::Unresolved(reason) = &name {
            let bare = bare_name(&host);
            report.warn(FindingKind::Unresolved { host: host.clone() }, format!(
                "mirror {host}: {bare} has no /etc/hosts entry in the config and does not resolve here ({reason}); the bootstrap node needs DNS for it, or give {} IP={bare}",
                OptionField::AddHost
            ));
        }
        report.hosts.push(MirrorHost {
            host,
            credentials,
            ca,
            name,
        });
    }
}

fn check_release(
    doc: &IgnitionDoc,
    mirrored: &[Registry],
    chosen_by: ReleaseChosenBy,
    report: &mut Report,
) {
    let release = match find_release(doc) {
        Ok(Some(release)) => release,
        Ok(None) => return,
        Err(e) => {
            report.warn(
                FindingKind::ReleaseUnreadable,
                format!("cannot check the release image: {e}"),
            );
            return;
        }
    };
    let reference = release.reference.clone();
    let digest = release.is_digest();
    report.release = Some(release);
    if let Some(source) = registry_for(mirrored, &reference) {
        if digest || !source.mirror_by_digest_only {
            return;
        }
        let mirror = source
            .mirrors
            .first()
            .map_or("MIRROR", |m| m.location.as_str());
        // The image on the mirror; a mirror that is a host alone holds no repository to name,
        // and the digest is the same at the source.
        let on_mirror = format!(
            "{mirror}{}",
            reference.get(source.location.len()..).unwrap_or_default()
        );
        let inspected = match crate::model::mirrors::repository_of(&on_mirror).contains('/') {
            true => on_mirror.as_str(),
            false => reference.as_str(),
        };
        let advice = format!(
            "give the release by digest instead (`skopeo inspect --format '{{{{.Digest}}}}' docker://{inspected}` prints it): {}",
            chosen_by.how_to_pin(&format!(
                "{}@sha256:...",
                crate::model::mirrors::repository_of(&reference)
            ))
        );
        if source.blocked {
            report.error(FindingKind::TagPastBlockedSource { reference: reference.clone() }, format!(
                "release image {reference} is a tag: mirror-by-digest-only sends tag pulls past the mirrors to {}, which is blocked, so the pull cannot succeed; {advice}",
                source.location
            ));
        } else {
            report.warn(FindingKind::TagSkipsMirrors { reference: reference.clone() }, format!(
                "release image {reference} is a tag: mirror-by-digest-only skips the mirrors for tags, so the node pulls it from {} itself; {advice}",
                source.location
            ));
        }
        return;
    }
    let on_mirror = mirrored
        .iter()
        .flat_map(|r| &r.mirrors)
        .any(|m| matches_source(&reference, &m.location));
    if on_mirror {
        if !digest {
            report.warn(FindingKind::TagOnMirror { reference: reference.clone() }, format!(
                "release image {reference} is pulled from the mirror by tag; a tag can be moved, so pin its digest: {}",
                chosen_by.how_to_pin("...@sha256:...")
            ));
        }
    } else {
        report.warn(FindingKind::ReleaseNotMirrored { reference: reference.clone() }, format!(
            "release image {reference} lies under no mirrored source, so the node pulls it from {} directly; add {} for its repository if that registry is out of reach",
            host_of(&reference),
            OptionField::Mirror
        ));
    }
}

/// The host name without a port (or the bracketed address).
fn bare_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split(']').next().map_or(host, |h| &h[1..]);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn name_check(
    host: &str,
    hosts_lines: &[String],
    resolve: &mut dyn FnMut(&str) -> Resolution,
) -> NameCheck {
    let name = bare_name(host);
    if name.parse::<std::net::IpAddr>().is_ok() {
        return NameCheck::Address;
    }
    if maps_name(hosts_lines, name) {
        return NameCheck::HostsEntry;
    }
    match resolve(name) {
        Resolution::Resolved => NameCheck::Resolves,
        Resolution::Failed(reason) => NameCheck::Unresolved(reason),
        Resolution::NotChecked => NameCheck::NotChecked,
    }
}

//! Every mirror: reached with the trust bundle (or insecure as configured), the pull secret's
//! credentials accepted, the release image's manifest there by digest, and, when the payload
//! can be read from the mirror, every image the release names (its `image-references`, and the
//! OS image streams' node images among them, `payload.rs`).

use super::finding::{Finding, Status};
use super::payload::{image_references, manifest_path, Reference, Unread};
use super::probe::{Asked, Probes};
use super::redirect::Reach;
use super::registry::{RefusalKind, Session};
use super::targets::Plan;
use crate::error::OptionField;
use crate::model::mirrors::{host_of, matches_source, repository_of};
use crate::model::Registry;
use std::collections::BTreeMap;

/// `(host, repository path on it)` of an image's repository moved from `from` to `to`.
fn moved(repository: &str, from: &str, to: &str) -> (String, String) {
    let host = host_of(to).to_string();
    let path = format!("{}{}", &to[host.len()..], &repository[from.len()..])
        .trim_start_matches('/')
        .to_string();
    (host, path)
}

/// Where an image is pulled from, in the order the node's container tools try: `(host,
/// insecure, repository path on it)`, each mirror of its registry entry, then the image's own
/// place unless the entry blocks it (an image no entry covers: its own place alone).
pub(crate) fn mirrored(registries: &[Registry], image: &str) -> Vec<(String, bool, String)> {
    let repository = repository_of(image);
    let Some(registry) = crate::ignition::read::registry_for(registries, image) else {
        let (host, path) = moved(repository, repository, repository);
        return vec![(host, false, path)];
    };
    let mut places: Vec<(String, bool, String)> = registry
        .mirrors
        .iter()
        .map(|mirror| {
            let (host, path) = moved(repository, &registry.location, &mirror.location);
            (host, mirror.insecure, path)
        })
        .collect();
    if !registry.blocked {
        let (host, path) = moved(repository, repository, repository);
        places.push((host, registry.insecure, path));
    }
    places
}

/// Where the release is copied from into a mirror: the source repository the mirror entries
/// name for it. A release named by a mirror's pull spec (as a config patched to pull from the
/// mirror names it) comes from the source that mirror stands for, not from itself.
fn release_source(registries: &[Registry], release: &str) -> String {
    let under_mirror = registries
        .iter()
        .flat_map(|registry| {
            registry
                .mirrors
                .iter()
                .map(move |mirror| (registry, mirror.location.as_str()))
        })
        .filter(|(_, mirror)| matches_source(release, mirror))
        .max_by_key(|(_, mirror)| mirror.len());
    match under_mirror {
        Some((registry, mirror)) => format!("{}{}", registry.location, &release[mirror.len()..]),
        None => release.to_string(),
    }
}

fn refusal_fix(kind: RefusalKind, host: &str) -> String {
    match kind {
        RefusalKind::Name => {
            let (name, _) = super::registry::name_and_port(host);
            format!("add a DNS record for {name}, or give the nodes /etc/hosts entries: bootgen patch {} <ip>={name}", OptionField::AddHost)
        }
        RefusalKind::Unreachable => format!("check that the registry runs and that this machine and the nodes reach {host}"),
        RefusalKind::NoCertificate => format!("check that the registry runs and serves TLS on {host} (a registry that speaks plain HTTP needs bootgen patch {} {host})", OptionField::InsecureRegistry),
        RefusalKind::Trust => format!("bootgen patch {} <the CA that signed {host}'s certificate>   # or, for a test registry only, {} {host}", OptionField::TrustBundle, OptionField::InsecureRegistry),
        RefusalKind::NoCredentials => format!("bootgen patch {} <auth.json with an entry for {host}>", OptionField::RegistryAuth),
        RefusalKind::Refused => format!("check the user and password in the pull secret's entry for {host} (podman login {host}), then bootgen patch {} <auth.json>", OptionField::RegistryAuth),
        RefusalKind::ForeignTokenService => format!("check by hand: podman login {host} && skopeo inspect docker://{host}/<repository>"),
    }
}

/// Tests each mirror host and the release on them; `Date` headers go to `dates`.
pub(crate) fn check_mirrors(
    plan: &Plan,
    probes: &dyn Probes,
    roots: &[Vec<u8>],
    findings: &mut Vec<Finding>,
    dates: &mut Vec<(String, String)>,
) {
    // Each mirror host: insecure when any of its mirrors is, and the repositories pulled there.
    let mut hosts: BTreeMap<String, (bool, Vec<String>)> = BTreeMap::new();
    for registry in &plan.registries {
        for mirror in &registry.mirrors {
            let (host, path) = moved(&mirror.location, &mirror.location, &mirror.location);
            let (insecure, repositories) = hosts.entry(host).or_default();
            *insecure |= mirror.insecure;
            if !repositories.contains(&path) {
                repositories.push(path);
            }
        }
    }
    let mut sessions = BTreeMap::new();
    let mut failed: Vec<String> = Vec::new();
    for (host, (insecure, repositories)) in &hosts {
        let (name, _) = super::registry::name_and_port(host);
        let pinned = plan
            .node_hosts
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, ip)| *ip);
        let opened = Session::open(
            probes,
            host,
            repositories,
            pinned,
            *insecure,
            roots,
            &plan.credentials,
            dates,
        );
        match opened {
            Ok(session) => {
                let how = if session.scheme != super::registry::Scheme::Open {
                    "accepts the pull secret's credentials"
                } else {
                    "answers without credentials"
                };
                let tls = match session.transport {
                    super::probe::Transport::Verified(_) => "TLS verified against the trust bundle",
                    super::probe::Transport::Unverified => {
                        "TLS not verified (insecure, as configured)"
                    }
                    super::probe::Transport::Plain => "plain HTTP (insecure, as configured)",
                };
                let reached = match pinned {
                    Some(ip) => format!(", at {ip} from the config's /etc/hosts"),
                    None => String::new(),
                };
                findings.push(Finding::pass(
                    "mirror",
                    host.clone(),
                    format!("{how} ({tls}{reached})"),
                ));
                sessions.insert(host.clone(), session);
            }
            Err(refusal) => {
                findings.push(Finding::problem(
                    Status::Fail,
                    "mirror",
                    host.clone(),
                    refusal.what,
                    refusal.evidence,
                    refusal_fix(refusal.kind, host),
                ));
                failed.push(host.clone());
            }
        }
    }
    if let Some(release) = &plan.release {
        let reach = Reach {
            roots,
            node_hosts: &plan.node_hosts,
        };
        let mirrors = Mirrors {
            sessions: &mut sessions,
            failed: &failed,
        };
        check_release(plan, release, probes, reach, mirrors, findings);
    }
}

/// The mirror hosts: a session with each that answered, and those that failed.
struct Mirrors<'a, 's> {
    sessions: &'a mut BTreeMap<String, Session<'s>>,
    failed: &'a [String],
}

fn check_release(
    plan: &Plan,
    release: &str,
    probes: &dyn Probes,
    reach: Reach,
    mirrors: Mirrors<'_, '_>,
    findings: &mut Vec<Finding>,
) {
    let Mirrors { sessions, failed } = mirrors;
    let places = mirrored(&plan.registries, release);
    let not_reached: Vec<&(String, bool, String)> = places
        .iter()
        .filter(|(host, _, _)| failed.contains(host))
        .collect();
    for (host, _, path) in &not_reached {
        findings.push(Finding::skipped(
            "mirror",
            format!("{host}/{path}"),
            "not tested: the release image and the images it names were not looked up here".into(),
            format!("{host} failed above"),
        ));
    }
    // A release pulled from a host that is no mirror is not the mirrors' business.
    if !places
        .iter()
        .any(|(host, _, _)| sessions.contains_key(host))
    {
        return;
    }
    let Some((_, digest)) = release.split_once('@') else {
        findings.push(Finding::problem(
            Status::Fail,
            "mirror",
            release.to_string(),
            "the release image is named by tag, and mirrors serve digests only".into(),
            release.to_string(),
            format!("bootgen ignition {} <repository>@sha256:<digest> ...   # pin the release image by digest", OptionField::ReleaseImage),
        ));
        return;
    };
    // Tried in order as the node tries them: a mirror that lacks it only warns when a later
    // one serves it.
    let mut misses: Vec<Finding> = Vec::new();
    for (host, _, path) in places {
        let Some(session) = sessions.get_mut(&host) else {
            continue;
        };
        let target = format!("{host}/{path}@{digest}");
        let response = session.get(
            probes,
            &manifest_path(&path, digest),
            &path,
            Asked::Manifest,
        );
        let miss = match response {
            Ok(response) if response.status == 200 => {
                let what = match misses.len() {
                    0 => "holds the release image's manifest".to_string(),
                    n => format!("holds the release image's manifest (the nodes pull it from here: the {n} mirror(s) tried before lack it)"),
                };
                for mut miss in misses {
                    miss.status = Status::Warn;
                    miss.what = format!(
                        "{}: the nodes try it first, then pull it from {target}",
                        miss.what
                    );
                    findings.push(miss);
                }
                findings.push(Finding::pass("mirror", target, what));
                check_images(
                    plan,
                    release,
                    &response.body,
                    (&host, &path),
                    probes,
                    reach,
                    sessions,
                    findings,
                );
                return;
            }
            Ok(response) => Finding::problem(
                Status::Fail,
                "mirror",
                target,
                "does not hold the release image".into(),
                format!("HTTP {}: {}", response.status, response.body_excerpt()),
                format!(
                    "oc adm release mirror --from={} --to={host}/{path}",
                    release_source(&plan.registries, release)
                ),
            ),
            Err(error) => Finding::problem(
                Status::Fail,
                "mirror",
                target,
                "stopped answering when asked for the release image".into(),
                error,
                format!("check that the registry runs and that this machine reaches {host}"),
            ),
        };
        misses.push(miss);
    }
    let lacking = misses.len();
    findings.extend(misses);
    if lacking > 0 {
        findings.push(Finding::skipped(
            "mirror",
            release.to_string(),
            "not tested: the images the release names".into(),
            "no mirror tried holds the release image, whose payload names them".into(),
        ));
    }
}

/// Every image the payload names, looked up through the mirrors.
#[allow(clippy::too_many_arguments)]
fn check_images(
    plan: &Plan,
    release: &str,
    manifest: &[u8],
    (host, path): (&str, &str),
    probes: &dyn Probes,
    reach: Reach,
    sessions: &mut BTreeMap<String, Session>,
    findings: &mut Vec<Finding>,
) {
    let target = format!("{host}/{path}");
    let images = {
        let Some(session) = sessions.get_mut(host) else {
            return;
        };
        match image_references(session, probes, reach, path, manifest) {
            Ok(payload) => {
                for other in &payload.served_from {
                    findings.push(Finding::pass(
                        "mirror",
                        other.clone(),
                        format!("serves the blobs of {host} (its redirect, which the nodes follow: they must reach {other} too)"),
                    ));
                }
                payload.references
            }
            Err(Unread::Redirected {
                host: other,
                location,
                error,
            }) => {
                findings.push(Finding::problem(
                    Status::Fail,
                    "mirror",
                    other.clone(),
                    format!("{host} redirects the release's blobs here, and it does not serve them: the nodes cannot pull the release"),
                    format!("{location}: {error}"),
                    format!("let this machine and the nodes reach {other} (its name, firewall and proxy), with a certificate the trust bundle trusts, or serve the blobs from {host} itself"),
                ));
                return;
            }
            Err(Unread::Mirror(why)) => {
                findings.push(Finding::problem(
                    Status::Warn,
                    "mirror",
                    target,
                    "the release's image references could not be read from the mirror, so its images were not checked".into(),
                    why,
                    format!("oc adm release info {release}   # lists the images the release names"),
                ));
                return;
            }
        }
    };
    let mut missing: Vec<&Reference> = Vec::new();
    for reference in &images {
        let Some((_, digest)) = reference.image.split_once('@') else {
            continue;
        };
        let found = mirrored(&plan.registries, &reference.image)
            .into_iter()
            .any(|(h, _, p)| {
                sessions.get_mut(&h).is_some_and(|session| {
                    session
                        .get(probes, &manifest_path(&p, digest), &p, Asked::Manifest)
                        .is_ok_and(|r| r.status == 200)
                })
            });
        if !found {
            missing.push(reference);
        }
    }
    let streams = images.iter().filter(|r| r.os_stream).count();
    let (missing_streams, missing_others): (Vec<&Reference>, Vec<&Reference>) =
        missing.iter().partition(|r| r.os_stream);
    if missing.is_empty() {
        let included = match streams {
            0 => String::new(),
            n => format!(", the {n} node images of its OS image streams included"),
        };
        findings.push(Finding::pass(
            "mirror",
            target,
            format!(
                "holds all {} images the release names{included}",
                images.len()
            ),
        ));
        return;
    }
    if !missing_others.is_empty() {
        let shown: Vec<&str> = missing_others
            .iter()
            .take(5)
            .map(|r| r.image.as_str())
            .collect();
        let others = images.len() - streams;
        findings.push(Finding::problem(
            Status::Fail,
            "mirror",
            target.clone(),
            format!("lacks {} of the {others} images the release names", missing_others.len()),
            format!("not found through the mirrors: {}{}", shown.join(", "), if missing_others.len() > 5 { ", ..." } else { "" }),
            format!("oc adm release mirror --from={} --to={target}   # and mirror every image the release names, the OS image stream's included", release_source(&plan.registries, release)),
        ));
    }
    if !missing_streams.is_empty() {
        findings.push(os_stream_finding(plan, &target, &missing_streams, streams));
    }
}

/// The OS image streams' node images the mirror lacks: `node-image-pull.service` waits for them
/// (for an hour, before 5.0's bootstrap gives up). Each is named with its tag, and the fix says
/// where it must go: a repository the configs mirror, or a mirror entry for its own.
fn os_stream_finding(plan: &Plan, target: &str, missing: &[&Reference], streams: usize) -> Finding {
    let named: Vec<String> = missing
        .iter()
        .map(|r| format!("{} ({})", r.name, r.image))
        .collect();
    let fixes: Vec<String> = missing
        .iter()
        .map(|r| {
            let repository = repository_of(&r.image);
            match crate::ignition::read::registry_for(&plan.registries, &r.image) {
                Some(_) => {
                    let (host, _, path) = mirrored(&plan.registries, &r.image)
                        .into_iter()
                        .next()
                        .unwrap_or_default();
                    format!("oc image mirror {} {host}/{path}", r.image)
                }
                None => format!(
                    "oc image mirror {} {target}-os && bootgen patch {} {repository}={target}-os",
                    r.image,
                    OptionField::Mirror
                ),
            }
        })
        .collect();
    Finding::problem(
        Status::Fail,
        "mirror",
        target.to_string(),
        format!(
            "lacks {} of the {streams} node images of the release's OS image streams, which node-image-pull.service pulls",
            missing.len()
        ),
        format!("not found through the mirrors: {}", named.join(", ")),
        fixes.join("; "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mirrors::Mirror;

    #[test]
    fn a_release_named_by_its_mirror_is_copied_from_its_source() {
        let registries = vec![Registry {
            location: "quay.io/openshift-release-dev/ocp-release".into(),
            insecure: false,
            blocked: true,
            mirror_by_digest_only: true,
            mirrors: vec![Mirror {
                location: "mirror.lab:8443/ocp4/openshift4".into(),
                insecure: false,
            }],
        }];
        let digest = format!("@sha256:{}", "b".repeat(64));
        assert_eq!(
            release_source(
                &registries,
                &format!("mirror.lab:8443/ocp4/openshift4{digest}")
            ),
            format!("quay.io/openshift-release-dev/ocp-release{digest}")
        );
        let source = format!("quay.io/openshift-release-dev/ocp-release{digest}");
        assert_eq!(release_source(&registries, &source), source);
        // A name that only begins like the mirror is no image of it.
        let other = format!("mirror.lab:8443/ocp4/openshift4-extra{digest}");
        assert_eq!(release_source(&registries, &other), other);
    }
}

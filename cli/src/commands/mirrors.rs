//! The disconnected-install flags shared by `ignition` and `patch`: checked by the library,
//! and the mirror pre-flight printed before anything is written.

use crate::args::PassArgs;
use crate::report::{notice, warn};
use bootgen::ignition::IgnitionDoc;
use bootgen::passes::mirrors::preflight::{self, Resolution, Severity};
use bootgen::passes::mirrors::{
    parse_insecure_registry, HostEntry, MirrorOptions, MirrorRule, RegistryAuth, TrustBundle,
};
use std::net::ToSocketAddrs;
use std::sync::mpsc;
use std::time::Duration;

/// How long one name lookup may take before the pre-flight gives up on it.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);

impl PassArgs {
    /// The library's view of the mirror flags; reads `--registry-auth` and `--trust-bundle`.
    pub fn mirror_options(&self) -> anyhow::Result<MirrorOptions> {
        Ok(MirrorOptions {
            mirrors: self
                .mirrors
                .iter()
                .map(|m| MirrorRule::parse(m))
                .collect::<Result<_, _>>()?,
            block_sources: self.block_source,
            insecure_registries: self
                .insecure_registries
                .iter()
                .map(|h| parse_insecure_registry(h))
                .collect::<Result<_, _>>()?,
            hosts: self
                .add_hosts
                .iter()
                .map(|h| HostEntry::parse(h))
                .collect::<Result<_, _>>()?,
            registry_auth: self
                .registry_auth
                .as_deref()
                .map(RegistryAuth::read)
                .transpose()?,
            trust_bundle: self
                .trust_bundle
                .as_deref()
                .map(TrustBundle::read)
                .transpose()?,
        })
    }
}

/// Prints the mirror pre-flight of the final config; an error when it found problems that
/// would break the boot (or any warning under `strict`). Call it before writing anything.
pub fn preflight(doc: &IgnitionDoc, strict: bool) -> anyhow::Result<()> {
    let report = preflight::check(doc, &mut resolve);
    if report.is_empty() {
        return Ok(());
    }
    for line in report.summary() {
        notice(format!("pre-flight: {line}"));
    }
    for finding in &report.findings {
        match finding.severity {
            Severity::Warning => warn(format!("pre-flight: {finding}")),
            Severity::Error => eprintln!("error: pre-flight: {finding}"),
        }
    }
    report.verdict(strict)?;
    Ok(())
}

/// Resolves a name with the system resolver, giving up after [`RESOLVE_TIMEOUT`] (the lookup
/// thread is left to finish on its own).
fn resolve(name: &str) -> Resolution {
    let (send, receive) = mpsc::channel();
    let owned = name.to_string();
    std::thread::spawn(move || {
        let answer = (owned.as_str(), 443)
            .to_socket_addrs()
            .map(|mut addresses| addresses.next().is_some());
        let _ = send.send(answer);
    });
    match receive.recv_timeout(RESOLVE_TIMEOUT) {
        Ok(Ok(true)) => Resolution::Resolved,
        Ok(Ok(false)) => Resolution::Failed("no address".into()),
        Ok(Err(e)) => Resolution::Failed(e.to_string()),
        Err(_) => Resolution::Failed(format!("no answer within {} s", RESOLVE_TIMEOUT.as_secs())),
    }
}

//! `bootgen check`: tests the environment the configs need before the nodes boot. Exit 0 when
//! every test passes (warnings allowed), 1 when one fails or the configs cannot be read.

use crate::args::CheckArgs;
use bootgen::check::{check, CheckOptions, NetProbes, Plan};
use std::process::ExitCode;
use std::time::Duration;

/// Where Debian, Fedora and their kin keep the system's CA bundle: a mirror with a certificate
/// from a public CA is trusted by the node's system store too.
const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

fn system_roots() -> Vec<Vec<u8>> {
    SYSTEM_CA_BUNDLES
        .iter()
        .find_map(|path| std::fs::read(path).ok())
        .and_then(|bytes| pem::parse_many(bytes).ok())
        .map(|blocks| blocks.into_iter().map(|b| b.into_contents()).collect())
        .unwrap_or_default()
}

/// Runs `bootgen check`.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let plan = Plan::read(&args.input)?;
    let mut options = CheckOptions::at(crate::clock::present(args.now.as_deref())?);
    options.api_port = args.api_port;
    options.config_port = args.machine_config_port;
    options.system_roots = system_roots();
    let probes = NetProbes::new(args.dns_server, Duration::from_secs(args.timeout.max(1)));
    let mut report = check(&plan, &probes, &options);
    // The library names bootgen's settings; the fix a person runs names the flags.
    report.map_text(crate::options::with_flags);
    if args.json {
        crate::report::emit_json(&report)?;
    } else {
        let mut text = String::new();
        if args.verbose {
            for contact in &report.contacts {
                text.push_str(&format!(
                    "contacted: {} {} ({})\n",
                    contact.kind, contact.address, contact.about
                ));
            }
        }
        text.push_str(&report.to_string());
        crate::report::emit(text)?;
    }
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_INPUT)
    })
}

//! `bootgen check`: tests the environment the configs need before the nodes boot, and with
//! `--watch` follows the install on the bootstrap machine. Exit 0 when every test passes
//! (warnings allowed) and, watching, the bootstrap completes; 1 when a test fails, the bootstrap
//! fails or stalls, or the configs cannot be read.

use crate::args::CheckArgs;
use crate::remote::Remote;
use bootgen::check::{
    api_readiness, check, progress, seen, CheckOptions, Contact, Finding, NetProbes, Plan, Probes,
    Progress, Status,
};
use bootgen::diagnose::{diagnose_path_with, Limits, NodeState};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Where Debian, Fedora and their kin keep the system's CA bundle: a mirror with a certificate
/// from a public CA is trusted by the node's system store too.
const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

/// The id of the log bundle `--watch` gathers.
const GATHER_ID: &str = "bootgen-watch";

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
    // Read as every toolkit command reads an output directory: a half-written one is refused.
    let (bootstrap, name) = crate::input::read_path(&args.input)?;
    let pointer_path = args.input.join("master.ign");
    let pointer = if args.input.is_dir() && pointer_path.exists() {
        Some(crate::input::read_config(&pointer_path)?.0)
    } else {
        None
    };
    let mut plan = Plan::from_configs(&bootstrap, &name, pointer.as_deref())?;
    if args.input.is_dir() {
        plan.add_host_configs(&args.input)?;
    }
    // This machine's clock is what the servers' clocks are compared with; `--now` asks only
    // how long the certificates last.
    let mut options = CheckOptions::at(crate::clock::present(None)?);
    if args.now.is_some() {
        options.certificates_at = crate::clock::present(args.now.as_deref())?;
    }
    options.api_port = args.api_port;
    options.config_port = args.machine_config_port;
    options.ntp_port = args.ntp_port;
    options.system_roots = system_roots();
    let timeout = Duration::from_secs(args.timeout.max(1));
    let probes = NetProbes::new(args.dns_server, timeout);
    let mut report = check(&plan, &probes, &options);
    let remote = args.bootstrap.as_deref().map(|host| {
        let key = output_dir(&args.input).join("auth/bootstrap-ssh-key");
        (host, Remote::new(host, &key, args.timeout.max(1)))
    });
    if let Some((host, remote)) = &remote {
        report.contacts.push(Contact {
            kind: "ssh",
            address: format!("{host}:22"),
            about: "core".into(),
        });
        report.add(ssh_finding(host, remote));
    }
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
    if args.watch {
        if let Some((host, remote)) = &remote {
            return watch(&args, host, remote, &plan, &probes);
        }
    }
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_INPUT)
    })
}

/// Logs in to the bootstrap machine as `core` with the output's SSH key.
fn ssh_finding(host: &str, remote: &Remote) -> Finding {
    match remote.run("true") {
        Ok(_) => Finding::pass(
            "bootstrap",
            host,
            "ssh core@ logs in with auth/bootstrap-ssh-key".into(),
        ),
        Err(error) => Finding::problem(
            Status::Fail,
            "bootstrap",
            host,
            "ssh core@ with auth/bootstrap-ssh-key does not log in".into(),
            error,
            "check that the machine booted this output's bootstrap.ign (its core user holds auth/bootstrap-ssh-key.pub) and that port 22 is reachable from here".into(),
        ),
    }
}

/// The output directory: the input, or the directory of a bootstrap.ign given as a file.
fn output_dir(input: &Path) -> PathBuf {
    if input.is_dir() {
        input.to_path_buf()
    } else {
        input
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }
}

/// Looks at the bootstrap machine every `--interval` until it completes, fails or stalls.
fn watch(
    args: &CheckArgs,
    host: &str,
    remote: &Remote,
    plan: &Plan,
    probes: &NetProbes,
) -> anyhow::Result<ExitCode> {
    let dir = output_dir(&args.input);
    let started = Instant::now();
    let mut said = probes.contacts().len();
    // What the last look saw that the bundle may lack (the API's CSRs).
    let mut last_seen = NodeState::default();
    loop {
        let elapsed = started.elapsed().as_secs();
        let api = api_readiness(plan, probes, args.api_port);
        if args.verbose {
            let contacts = probes.contacts();
            for contact in contacts.iter().skip(said) {
                crate::report::notice(format!(
                    "contacted: {} {} ({})",
                    contact.kind, contact.address, contact.about
                ));
            }
            said = contacts.len();
        }
        let look = remote.run(bootgen::check::STATUS_COMMAND).map(|text| {
            let state = seen(&text);
            if !state.files.is_empty() {
                last_seen = state;
            }
            progress(&text)
        });
        match look {
            Ok(Progress::Complete) => {
                crate::report::emit(format!(
                    "watch: the bootstrap on {host} is complete after {elapsed} s ({api}); the bootstrap machine can be removed from the load balancer\n"
                ))?;
                return Ok(ExitCode::SUCCESS);
            }
            Ok(Progress::Failed { units }) => {
                crate::report::emit(format!(
                    "watch: on {host}, {} failed after {elapsed} s; gathering its logs\n",
                    units.join(", ")
                ))?;
                return explain(remote, &dir, &last_seen);
            }
            Ok(waiting) => {
                crate::report::notice(format!("watch {elapsed} s: {waiting}; {api}"));
            }
            Err(error) => crate::report::notice(format!("watch {elapsed} s: {error}; {api}")),
        }
        if elapsed >= args.stall_after {
            crate::report::emit(format!(
                "watch: the bootstrap on {host} did not complete within {} s; gathering its logs\n",
                args.stall_after
            ))?;
            return explain(remote, &dir, &last_seen);
        }
        std::thread::sleep(Duration::from_secs(args.interval));
    }
}

/// Gathers a log bundle on the machine, copies it into `dir` and prints diagnose's report of it
/// and of what the watch saw (`watched`).
fn explain(remote: &Remote, dir: &Path, watched: &NodeState) -> anyhow::Result<ExitCode> {
    let bundle = format!("log-bundle-{GATHER_ID}.tar.gz");
    let fetched = remote
        .run(&format!(
            "sudo /usr/local/bin/installer-gather.sh --id {GATHER_ID}"
        ))
        .and_then(|_| remote.fetch(&bundle, dir));
    let path = match fetched {
        Ok(path) => path,
        Err(error) => {
            crate::report::emit(format!("watch: no log bundle could be gathered: {error}\n"))?;
            return Ok(ExitCode::from(crate::EXIT_INPUT));
        }
    };
    let mut diagnosis = diagnose_path_with(&path, watched, &Limits::default())?;
    if let Some(failure) = &mut diagnosis.failure {
        failure.sentence = crate::options::with_flags(&failure.sentence);
        failure.fix = failure.fix.as_deref().map(crate::options::with_flags);
    }
    crate::report::emit(format!("watch: the log bundle is {}\n", path.display()))?;
    crate::report::emit_display(&diagnosis)?;
    Ok(ExitCode::from(crate::EXIT_INPUT))
}

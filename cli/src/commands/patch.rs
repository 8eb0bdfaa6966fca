//! `bootgen patch`: the same transforms as `bootgen ignition`, on any Ignition config.

use crate::args::PatchArgs;
use crate::input::{is_stdio, read_path};
use crate::report::{notice, warn};
use bootgen::ignition::SplitDoc;
use bootgen::passes::{Change, PassOptions};
use bootgen::report::{CertCollector, CertReport, CertStatus};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

/// Runs `bootgen patch`.
pub fn run(args: PatchArgs) -> anyhow::Result<ExitCode> {
    // Locked before the input is read: patching a file in place from two runs at once must not
    // lose one run's change.
    let _lock = if is_stdio(&args.output) {
        None
    } else {
        Some(crate::lock::hold_file(&args.output, args.wait)?)
    };
    let (bytes, name) = read_path(&args.input)?;
    // Most passes read and change a few well-known files: the config's other file entries stay
    // raw JSON (a JSON tree of a config costs about ten times its size), parsed one at a time
    // when checked and written. The mirror passes and --compress read every file.
    let mut options = args.passes.to_options();
    let keep = |options: &PassOptions| {
        let lean = bootgen::passes::reads_known_files_only(options);
        move |path: &str| !lean || bootgen::passes::reads_file(path)
    };
    let mut split = SplitDoc::parse_checked(&bytes, &name, keep(&options))?;
    // Refuse a config whose data URLs do not decode: patching it would hide the problem. One
    // file at a time, so a large config's contents are never all in memory at once.
    split
        .input_files()
        .enumerate()
        .try_for_each(|(i, file)| bootgen::ignition::decode_file(i, &file?).map(drop))
        .map_err(|e| match e {
            bootgen::Error::Ignition { message, .. } => bootgen::Error::Ignition {
                file: name.clone(),
                message,
            },
            other => other,
        })?;
    options.mirrors = args.passes.mirror_options()?;
    if !options.mirrors.is_empty() {
        split = SplitDoc::parse(&bytes, &name, keep(&options))?;
    }
    let changes = apply(&mut split, &options, args.strict)?;
    // A patch with no transform gives back the input exactly.
    let out = if changes.is_empty() {
        drop(split);
        bytes
    } else {
        let out = split.to_bytes()?;
        drop(split);
        // Whatever we write must still be a config Ignition accepts, and the files stage
        // applies: a change may clash with an entry of the input (a file where a directory of
        // the hold files goes).
        SplitDoc::check(&out, "<patched config>")?;
        refuse_errors_added(&bytes, &out, &name)?;
        drop(bytes);
        out
    };
    warn_expired(&out, &args.input)?;
    crate::report::write_output(&args.output, &out, 0o600)?;
    Ok(ExitCode::SUCCESS)
}

/// Refuses the patched config `out` when it has an error `input` (named `name`) does not.
fn refuse_errors_added(input: &[u8], out: &[u8], name: &str) -> Result<(), bootgen::Error> {
    let added = bootgen::checks::errors_added(input, out);
    if added.is_empty() {
        return Ok(());
    }
    let each: Vec<String> = added.iter().map(ToString::to_string).collect();
    Err(bootgen::Error::Ignition {
        file: name.to_string(),
        message: format!(
            "refused, nothing written: the patched config would fail at boot:\n  {}",
            each.join("\n  ")
        ),
    })
}

/// Applies the passes and prints what they changed and what the checks of the result say.
fn apply(
    split: &mut SplitDoc<'_>,
    options: &PassOptions,
    strict: bool,
) -> anyhow::Result<Vec<Change>> {
    let changes = bootgen::passes::apply(&mut split.doc, options)?;
    for change in &changes {
        notice(change);
    }
    if changes.is_empty() {
        notice(if options.is_empty() {
            "no transform requested: output equals input"
        } else {
            // --compress where nothing shrinks, a pass whose change is already there.
            "the transforms asked for changed nothing: output equals input"
        });
    }
    crate::checks::preflight_of_patched(&split.doc, strict)?;
    let paths = split.paths()?;
    let files: BTreeSet<&str> = paths.iter().map(String::as_str).collect();
    crate::checks::print_unit_lint_with_files(&split.doc, &files);
    Ok(changes)
}

/// Names shown of the expired certificates; the rest are counted.
const EXPIRED_SHOWN: usize = 3;

/// Warns when the config holds expired certificates: the patched config would boot a node whose
/// services refuse them, which `validate` would say only later. Where the input sits in a bootgen
/// output directory with its CAs (`tls/`), `--renew-expired` re-issues them.
fn warn_expired(config: &[u8], input: &Path) -> anyhow::Result<()> {
    let mut found = CertCollector::default();
    if found.scan_config_bytes(config, "<patched config>").is_err() {
        return Ok(());
    }
    let report = CertReport::new(found, crate::clock::now(None)?, time::Duration::ZERO);
    let expired: Vec<&str> = report
        .certificates
        .iter()
        .filter(|line| line.status == CertStatus::Expired)
        // Where it is says more than its subject: the bootstrap's leaves share subjects.
        .map(|line| {
            let at = line.cert.found_in.first().unwrap_or(&line.cert.subject);
            at.strip_suffix(" (base64)").unwrap_or(at)
        })
        .collect();
    if expired.is_empty() {
        return Ok(());
    }
    let mut names = expired[..expired.len().min(EXPIRED_SHOWN)].join(", ");
    if expired.len() > EXPIRED_SHOWN {
        names.push_str(&format!(" and {} more", expired.len() - EXPIRED_SHOWN));
    }
    let dir = input
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let authority_expired = report
        .certificates
        .iter()
        .any(|line| line.status == CertStatus::Expired && line.cert.is_ca);
    let way = if !is_stdio(input) && dir.join("tls").is_dir() {
        if authority_expired {
            "a certificate authority among them expired, and everything it signed with it: make a new PKI (bootgen ignition into a new output directory), then patch again".to_string()
        } else {
            format!(
                "re-issue them under the CAs in {}: bootgen ignition -o {} --renew-expired --force (with the install-config it was made from), then patch again",
                dir.join("tls").display(),
                dir.display()
            )
        }
    } else {
        "bootgen does not hold this config's CAs: make the config again with the tool that made it (openshift-install create ignition-configs)".to_string()
    };
    warn(format!(
        "{} {} in this config expired (the node's services will refuse {}): {names}; {way}",
        expired.len(),
        if expired.len() == 1 {
            "certificate"
        } else {
            "certificates"
        },
        if expired.len() == 1 { "it" } else { "them" },
    ));
    Ok(())
}

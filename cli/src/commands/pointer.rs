//! `bootgen pointer`: a small config that replaces itself with IN.ign fetched from a URL.

use crate::args::PointerArgs;
use crate::input::load;
use crate::report::warn;
use bootgen::ignition::{classify, decoded_files, IgnitionDoc};
use bootgen::report::SizeBudget;
use std::process::ExitCode;

/// Runs `bootgen pointer`.
pub fn run(args: PointerArgs) -> anyhow::Result<ExitCode> {
    if crate::lock::same_file(&args.input, &args.output) {
        anyhow::bail!(
            "{} is the config the pointer points to: write the pointer to another file (-o)",
            args.output.display()
        );
    }
    let to_stdout = crate::input::is_stdio(&args.output);
    if !to_stdout && !args.force && std::fs::symlink_metadata(&args.output).is_ok() {
        anyhow::bail!(
            "{} already exists; use --force to replace it",
            args.output.display()
        );
    }
    let (bytes, config) = load(&args.input)?;
    warn_plain_text(&args.url, &config);
    let ca = match &args.ca {
        Some(path) => Some((
            String::from_utf8_lossy(&bootgen::config::read_at_most(
                path,
                bootgen::config::INSTALL_CONFIG_LIMIT,
            )?)
            .into_owned(),
            path.display().to_string(),
        )),
        None => None,
    };
    let doc = bootgen::ignition::replace_pointer(
        &args.url,
        &bytes,
        ca.as_ref().map(|(pem, name)| (pem.as_str(), name.as_str())),
    )?;
    let out = doc.to_bytes();
    // A URL with credentials makes the pointer a secret too: a user and password, or a
    // signature or token in its query (a pre-signed URL reads the whole config). Whatever the
    // redaction of messages hides is one.
    let mode = if bootgen::report::hide_secrets(&args.url) != args.url {
        0o600
    } else {
        0o644
    };
    crate::report::write_output(&args.output, &out, mode)?;
    let said = format!(
        "replaces itself with {} ({} bytes, sha512 verified)",
        // A URL may carry credentials (`https://user:token@host/...`).
        bootgen::report::hide_secrets(&args.url),
        bytes.len()
    );
    if to_stdout {
        // Standard output holds the pointer: what is said goes to standard error.
        crate::report::notice(format!(
            "wrote the pointer config to standard output: {said}"
        ));
        return Ok(ExitCode::SUCCESS);
    }
    crate::report::emit(format!("wrote {}: {said}", args.output.display()) + "\n")?;
    crate::report::emit_budget(&SizeBudget::of_config(&out, None), &args.output)?;
    Ok(ExitCode::SUCCESS)
}

/// Warns when the URL is fetched in plain text and the config it serves holds secrets: the
/// digest stops a changed config, not a reader on the way, and a bootstrap config holds every
/// key of the cluster.
fn warn_plain_text(url: &str, config: &IgnitionDoc) {
    let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "tftp") {
        return;
    }
    let secrets: Vec<String> = decoded_files(config)
        .filter_map(Result::ok)
        .filter(|file| classify(&file.path, file.contents.as_deref()).is_secret())
        .map(|file| file.path)
        .collect();
    let Some(first) = secrets.first() else {
        return;
    };
    let url = bootgen::report::hide_secrets(url);
    warn(format!(
        "--url: {url} is fetched in plain text, and the config it serves holds {} secret file(s) ({first}{}): anyone on the network path can read them, for a bootstrap config every key of the cluster; serve it over https (--ca for a private CA)",
        secrets.len(),
        if secrets.len() > 1 { ", ..." } else { "" }
    ));
}

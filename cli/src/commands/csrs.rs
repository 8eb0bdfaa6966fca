//! `bootgen csrs`: which pending certificate requests are the hosts file's machines'. Their
//! names go to standard output, one a line, for `xargs oc adm certificate approve`; what each
//! is, and why every other request is left out, to standard error.

use crate::args::CsrsArgs;
use crate::report::emit;
use bootgen::node_requests::{judge, RequestKind, Verdict, INPUT_LIMIT};
use std::process::ExitCode;

/// Runs `bootgen csrs`.
pub fn run(args: CsrsArgs) -> anyhow::Result<ExitCode> {
    let hosts = bootgen::network::load_hosts(&args.hosts)?;
    for warning in &hosts.warnings {
        crate::report::warn(warning);
    }
    let (bytes, source) = if crate::input::is_stdio(&args.input) {
        let bytes = bootgen::config::read_stream_at_most(std::io::stdin(), INPUT_LIMIT, "<stdin>")?;
        (bytes, "<stdin>".to_string())
    } else {
        let bytes = bootgen::config::read_at_most(&args.input, INPUT_LIMIT)?;
        (bytes, args.input.display().to_string())
    };
    let judged = judge(&bytes, &source, &hosts)?;
    let mut listed = 0;
    for request in &judged {
        match &request.verdict {
            Verdict::Listed { host, kind } => {
                listed += 1;
                let what = match kind {
                    RequestKind::Client => "client",
                    RequestKind::Serving => "serving",
                };
                say(&format!(
                    "{}: host {host}'s kubelet {what} request",
                    request.name
                ));
                emit(format!("{}\n", request.name))?;
            }
            Verdict::Shown(why) => say(&format!("not listed: {}: {why}", request.name)),
        }
    }
    say(&format!(
        "{} of {} listed",
        bootgen::report::counted(listed, "request"),
        judged.len()
    ));
    Ok(ExitCode::SUCCESS)
}

/// A line for the person on standard error, which the names on standard output stay apart from.
fn say(line: &str) {
    eprintln!("{}", bootgen::report::terminal_safe(line));
}

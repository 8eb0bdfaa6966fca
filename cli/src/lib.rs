//! The bootgen command line: argument parsing and dispatch to the `bootgen` library. Every
//! decision lives in the library; this crate only parses, prints and picks the exit code.

mod args;
mod checks;
mod clock;
mod commands;
mod input;
mod lock;
mod media;
mod node;
mod options;
mod pack;
mod remote;
mod report;
mod resolver;

use clap::Parser;
use std::process::ExitCode;

/// Exit code for bad input (the user can fix it).
pub const EXIT_INPUT: u8 = 1;
/// Exit code for an internal failure (a bug in bootgen or its environment).
pub const EXIT_INTERNAL: u8 = 2;

/// What `bootgen --version` prints: the version, the commit it was built from (recorded by
/// build.rs; `unknown` outside a git checkout and a published package), and the OpenShift
/// releases it makes bootstraps for.
pub fn version_text() -> String {
    format!(
        "bootgen {} (commit {})\nOpenShift releases: {}{}\n",
        env!("CARGO_PKG_VERSION"),
        env!("BOOTGEN_COMMIT"),
        bootgen::release::supported_list(),
        bootgen::release::default_minor().map_or_else(String::new, |m| format!(" (default {m})"))
    )
}

/// Exit code of `diff` and `diagnose` when they cannot answer (unreadable input, bad usage).
const EXIT_NO_ANSWER: u8 = 2;

/// The exit code of a command line clap refuses: 1 (bad input), but 2 for the commands whose
/// 1 is an answer (`diff`: different, `diagnose`: a failure found), so a usage error never
/// looks like one; 2 is their "could not answer".
fn usage_error_code(command: Option<&str>) -> u8 {
    match command {
        Some("diff" | "diagnose") => EXIT_NO_ANSWER,
        _ => EXIT_INPUT,
    }
}

/// Prints clap's error for the process arguments. An argument holding a control character
/// (an escape sequence pasted or planted in a value) would reach the terminal raw in clap's
/// message, or be stripped from it when the output is not a terminal, and one holding a
/// registry's `user:password@` would be quoted with it: the arguments are parsed again with
/// each such character written as a visible escape (`\x1b`) and the user info hidden, and that
/// error, which names the same mistake, is printed instead.
fn print_usage_error(error: &clap::Error) {
    let arguments: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let shown: Vec<String> = arguments
        .iter()
        // A line break in an argument is shown too: clap quotes the value on one line.
        .map(|a| bootgen::report::terminal_safe(&without_user_info(a)).replace('\n', "\\x0a"))
        .collect();
    if shown == arguments {
        let _ = error.print();
        return;
    }
    match args::Cli::try_parse_from(shown) {
        Err(again) if again.use_stderr() => {
            let _ = again.print();
        }
        _ => eprint!(
            "{}",
            bootgen::report::terminal_safe(&error.render().to_string())
        ),
    }
}

/// `argument` with the user info of each registry or URL in it hidden (`user:pw@host`, also
/// after a scheme or a `SOURCE=` prefix), since clap quotes a refused value whole.
fn without_user_info(argument: &str) -> String {
    argument
        .split('=')
        .map(bootgen::release::without_credentials)
        .collect::<Vec<_>>()
        .join("=")
}

/// Runs the CLI with the process arguments and returns the exit code.
pub fn main_entry() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        // Worked out only when asked for: the release list is read from the release table.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => {
            let _ = report::emit(version_text());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let command = std::env::args_os().nth(1);
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            print_usage_error(&e);
            return ExitCode::from(usage_error_code(command.as_ref().and_then(|c| c.to_str())));
        }
    };
    match commands::run(cli) {
        Ok(code) => code,
        Err(error) => {
            report::print_error(&error);
            ExitCode::from(report::exit_code_for(&error))
        }
    }
}

//! The bootgen command line: argument parsing and dispatch to the `bootgen` library. Every
//! decision lives in the library; this crate only parses, prints and picks the exit code.

mod args;
mod checks;
mod clock;
mod commands;
mod input;
mod node;
mod options;
mod pack;
mod report;

use clap::Parser;
use std::process::ExitCode;

/// Exit code for bad input (the user can fix it).
pub const EXIT_INPUT: u8 = 1;
/// Exit code for an internal failure (a bug in bootgen or its environment).
pub const EXIT_INTERNAL: u8 = 2;

/// Runs the CLI with the process arguments and returns the exit code.
pub fn main_entry() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
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

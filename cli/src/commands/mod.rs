//! One module per subcommand.

mod check;
mod completions;
mod csrs;
mod diagnose;
mod diff;
mod extract;
mod ignition;
mod inspect;
mod iso;
mod package;
mod patch;
mod pointer;
mod pxe;
mod recover;
mod releases;
mod validate;

use crate::args::{Cli, Command};
use std::process::ExitCode;

/// Dispatches a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Ignition(args) => ignition::run(*args),
        Command::Patch(args) => patch::run(*args),
        Command::Inspect(args) => inspect::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Pointer(args) => pointer::run(args),
        Command::Iso(args) => iso::run(*args),
        Command::Pxe(args) => pxe::run(*args),
        Command::Package(args) => package::run(args),
        Command::Recover(args) => recover::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => completions::run_man(args),
        Command::Releases(args) => releases::run(args),
        Command::Diagnose(args) => diagnose::run(args),
        Command::Check(args) => check::run(args),
        Command::Csrs(args) => csrs::run(args),
    }
}

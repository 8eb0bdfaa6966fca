//! One module per subcommand.

mod clock;
pub(crate) mod completions;
pub(crate) mod diff;
pub(crate) mod extract;
mod ignition;
pub(crate) mod inspect;
mod mirrors;
pub(crate) mod package;
mod patch;
pub(crate) mod pointer;
pub(crate) mod validate;

use crate::args::{Cli, Command, PassArgs};
use bootgen::passes::PassOptions;
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
        Command::Package(args) => package::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => completions::run_man(args),
    }
}

impl PassArgs {
    /// The library's view of the unit transforms.
    pub fn to_options(&self) -> PassOptions {
        PassOptions {
            hold_units: self.disable_units.clone(),
            mask_units: self.mask_units.clone(),
            debug: self.debug,
            compress: self.compress,
            ..PassOptions::default()
        }
    }
}

//! One module per subcommand.

mod clock;
mod ignition;
mod patch;

use crate::args::{Cli, Command, PassArgs};
use bootgen::passes::PassOptions;
use std::process::ExitCode;

/// Dispatches a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Ignition(args) => ignition::run(*args),
        Command::Patch(args) => patch::run(args),
    }
}

impl PassArgs {
    /// The library's view of the unit transforms.
    pub fn to_options(&self) -> PassOptions {
        PassOptions {
            hold_units: self.disable_units.clone(),
            mask_units: self.mask_units.clone(),
            debug: self.debug,
        }
    }
}

//! `bootgen completions SHELL` and `bootgen man`: generated from the CLI definition itself.

use crate::args::{Cli, CompletionsArgs, ManArgs};
use anyhow::Context;
use clap::CommandFactory;
use std::process::ExitCode;

/// Runs `bootgen completions`.
pub fn run(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "bootgen", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

fn render(command: clap::Command) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut out)
        .context("cannot render the man page")?;
    Ok(out)
}

/// Runs `bootgen man`.
pub fn run_man(args: ManArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    // Built, as the page renderer builds it: then the subcommands walked below are those
    // bootgen.1 lists, clap's own `help` included, and each listed page is written.
    command.build();
    let Some(dir) = args.output else {
        use std::io::Write as _;
        std::io::stdout()
            .write_all(&render(command)?)
            .context("cannot write standard output")?;
        return Ok(ExitCode::SUCCESS);
    };
    crate::input::refuse_stdout(
        &dir,
        "a directory of man pages",
        "a directory, or leave -o out to print bootgen.1 to standard output",
    )?;
    std::fs::create_dir_all(&dir).map_err(|e| bootgen::Error::io("cannot create", &dir, e))?;
    let mut pages = vec![("bootgen.1".to_string(), render(command.clone())?)];
    for sub in command.get_subcommands() {
        let name = format!("bootgen-{}", sub.get_name());
        pages.push((
            format!("{name}.1"),
            render(
                sub.clone()
                    .display_name(name.clone())
                    .bin_name(format!("bootgen {}", sub.get_name())),
            )?,
        ));
    }
    for (file, bytes) in &pages {
        bootgen::output::write_atomic(&dir.join(file), bytes, 0o644)?;
    }
    crate::report::emit(format!("wrote {} man pages into {}", pages.len(), dir.display()) + "\n")?;
    Ok(ExitCode::SUCCESS)
}

//! The `bootgen` binary: see the `bootgen_cli` crate.
fn main() -> std::process::ExitCode {
    bootgen_cli::main_entry()
}

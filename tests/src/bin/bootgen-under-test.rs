//! The bootgen CLI, built inside the conformance crate so its tests can run the real binary.
fn main() -> std::process::ExitCode {
    bootgen_cli::main_entry()
}

//! How errors and warnings reach the terminal: `error: ...` then one `caused by: ...` line per
//! source in the chain.

use crate::{EXIT_INPUT, EXIT_INTERNAL};

/// Prints an error and its causes to stderr.
pub fn print_error(error: &anyhow::Error) {
    eprintln!("error: {error}");
    for cause in error.chain().skip(1) {
        eprintln!("caused by: {cause}");
    }
}

/// 1 for input the user can fix, 2 for bootgen's own failures.
pub fn exit_code_for(error: &anyhow::Error) -> u8 {
    match error.downcast_ref::<bootgen::Error>() {
        Some(e) if !e.is_input_error() => EXIT_INTERNAL,
        _ => EXIT_INPUT,
    }
}

/// Prints a warning to stderr.
pub fn warn(message: impl std::fmt::Display) {
    eprintln!("warning: {message}");
}

/// Prints a notice to stderr (something the user should know, not a problem).
pub fn notice(message: impl std::fmt::Display) {
    eprintln!("note: {message}");
}

//! A line of a bundle file that shows something: what a cause rests on, what a person reads.

use serde::Serialize;

/// A line of a bundle file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The file, relative to the bundle's top directory.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (trimmed, and cut at 400 characters).
    pub text: String,
}

//! The hosts file's name and text, so every error and warning names the file, the field, its
//! line and the host.

use crate::config::{display_path, line_of, parse_dotted, Warning};
use crate::error::Error;

/// A hosts file as read.
#[derive(Debug, Clone, Copy)]
pub(super) struct Source<'a> {
    /// The name shown in messages.
    pub name: &'a str,
    /// The text, for line look-ups.
    pub text: &'a str,
}

impl Source<'_> {
    /// The line of `dotted`, else of its nearest written parent.
    fn line_near(&self, dotted: &str) -> Option<usize> {
        let mut path = dotted;
        loop {
            if let Some(line) = line_of(self.text, &parse_dotted(path)) {
                return Some(line);
            }
            path = path.rsplit_once('.')?.0;
        }
    }

    /// True when `dotted` is written in the file.
    pub fn has(&self, dotted: &str) -> bool {
        line_of(self.text, &parse_dotted(dotted)).is_some()
    }

    /// An [`Error::InvalidField`] for `dotted` (`hosts.0.interfaces.1.name`), saying which host
    /// when one is known.
    pub fn error(&self, dotted: &str, host: Option<&str>, message: impl Into<String>) -> Error {
        let message = message.into();
        Error::InvalidField {
            file: self.name.to_string(),
            field: display_path(dotted),
            line: self.line_near(dotted),
            message: match host {
                Some(host) => format!("host {host}: {message}"),
                None => message,
            },
        }
    }

    /// A warning for `dotted`.
    pub fn warning(&self, dotted: &str, message: impl Into<String>) -> Warning {
        Warning {
            file: self.name.to_string(),
            field: display_path(dotted),
            line: self.line_near(dotted),
            message: message.into(),
        }
    }
}

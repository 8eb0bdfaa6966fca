//! The verdict on what a walk found: a bootstrap log bundle, or something else (an empty
//! directory, an unrelated archive), or one too damaged to call healthy. Every bundle the
//! installer's gather script writes holds service records (`bootstrap/services/*.json`),
//! journals (`bootstrap/journals/`) and `failed-units.txt`.

use crate::analysis::{classify, FileKind};
use crate::error::{Error, Result};

/// What a walk saw of what every bootstrap log bundle holds, and of damage: whether it is one.
#[derive(Default)]
pub(crate) struct Walked {
    /// Service record files found, readable or not (garbage, links).
    pub(crate) records_seen: u64,
    /// Journals and `failed-units.txt` read.
    pub(crate) logs_read: u64,
    /// Why the walk ended early (the archive cut short or unreadable, a limit), or the first
    /// file of a directory that could not be read.
    pub(crate) stopped: Option<String>,
}

impl Walked {
    /// Counts `path`, which was `read` (or skipped, or failed).
    pub(crate) fn saw(&mut self, path: &str, read: bool) {
        match classify(path) {
            FileKind::Records(_) => self.records_seen += 1,
            FileKind::FailedUnits => self.logs_read += u64::from(read),
            FileKind::Text | FileKind::GzipText if path.contains("journals/") => {
                self.logs_read += u64::from(read)
            }
            _ => {}
        }
    }

    /// Refuses what is no bundle, or a damaged one in which no failure was found: "no failure
    /// found" there would read as success. `records_read` is how many record files parsed.
    pub(crate) fn verdict(
        &self,
        name: &str,
        records_read: usize,
        failure_found: bool,
    ) -> Result<()> {
        let refuse = |message: String| {
            Err(Error::UnreadableBundle {
                file: name.to_string(),
                message,
            })
        };
        let damaged = |why: &str| {
            refuse(format!(
                "damaged: {why}; no failure was found in what could be read"
            ))
        };
        if failure_found {
            return Ok(());
        }
        if let Some(why) = &self.stopped {
            return damaged(why);
        }
        if self.records_seen > 0 && records_read == 0 {
            return damaged(&format!(
                "none of its {} service records (bootstrap/services/*.json) can be read",
                self.records_seen
            ));
        }
        if records_read == 0 && self.logs_read == 0 {
            return refuse("not a bootstrap log bundle: it holds no service record (bootstrap/services/*.json), no journal (bootstrap/journals/) and no failed-units.txt".into());
        }
        Ok(())
    }
}

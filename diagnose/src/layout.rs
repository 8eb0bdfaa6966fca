//! Where things sit in a log bundle, for the modules that read paths of it.

/// Where a single node's pre-reboot bundle sits inside the bundle of the installed node (and
/// the top directory of that bundle itself, kept as it is).
pub(crate) const PRE_REBOOT: &str = "log-bundle-bootstrap/";

/// The unit whose own journal the bundle file `path` is (`bootstrap/journals/UNIT.log`, as the
/// gather script writes one for every bootstrap unit), without `.service`; `None` for any other
/// file, the whole journal (`journal.log.gz`) included.
pub(crate) fn journal_of(path: &str) -> Option<&str> {
    let path = path.strip_prefix(PRE_REBOOT).unwrap_or(path);
    path.strip_prefix("bootstrap/journals/")?
        .strip_suffix(".log")
        .filter(|unit| !unit.contains('/'))
}

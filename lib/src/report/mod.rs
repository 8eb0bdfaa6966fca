//! Reports on a config for a person: the summary `bootgen inspect` prints (never contents, so
//! it is safe to paste), the size budget against the user-data limits, the certificate report
//! with time left, and the semantic diff of two configs; and [`terminal_safe`], which every text
//! printed for a person passes through.

mod budget;
mod certs;
mod diff;
pub(crate) mod network;
mod objects;
mod summary;
mod terminal;

pub use crate::ignition::read::{release_of, ReleaseGuess};
pub use budget::{
    channels_for, compressed_size, human_size, xz_cpio_size, BudgetLine, Carriage, Channel,
    SizeBudget, WayOut, CHANNELS, XZ_ESTIMATE_LIMIT, XZ_EXACT_LIMIT,
};
pub use certs::{
    human_duration, parse_duration, CertCollector, CertLine, CertReport, CertStatus, FoundCert,
};
pub use diff::{diff, diff_file, diff_split, ChangeKind, ConfigDiff, DiffItem};
pub use network::NetworkSummary;
pub use objects::{
    diff_objects, object_view, object_view_with, BasicConstraintsFacts, CertificateFacts, Fetched,
    FileObject, ObjectChange, ObjectDiff, ObjectView, PemFacts, UnitObject, UserObject,
};
pub use summary::{
    architecture_of, bootkube_stages, fetches_of, installation_disk, mirrors_of, summarize,
    summarize_split, summary_reads, ArchGuess, FetchSummary, FileSummary, MirrorSummary, Summary,
    UnitSummary, UserSummary,
};
pub use terminal::{is_terminal_unsafe, terminal_safe};

/// `n` of a thing in words, `1 warning` or `3 warnings`: `noun` is the singular, whose plural
/// takes an `s` (`ies` after a consonant's `y`: `2 directories`).
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    match noun.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// `text` with the secrets `diff` and `inspect` hide shown as `<redacted hmac:1a2b>`
/// (credentials in URLs, tokens, password hashes, values under secret keys), for a caller that
/// prints something a user gave (a pointer config's URL).
pub fn hide_secrets(text: &str) -> String {
    crate::ignition::redact::Redact::WithDigest.secrets(text)
}

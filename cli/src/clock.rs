//! The one place the CLI reads the clock and `SOURCE_DATE_EPOCH`: `--now`, else
//! `SOURCE_DATE_EPOCH`, else the time.

use anyhow::anyhow;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// `SOURCE_DATE_EPOCH` in seconds, when it is set.
fn source_date_epoch() -> anyhow::Result<Option<(i64, String)>> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => {
            let seconds = text
                .trim()
                .parse()
                .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is not a number of seconds"))?;
            Ok(Some((seconds, text)))
        }
        Err(_) => Ok(None),
    }
}

/// Resolves the generation time.
pub fn now(flag: Option<&str>) -> anyhow::Result<OffsetDateTime> {
    if let Some(text) = flag {
        // One message: the parse error's own source repeats it.
        return OffsetDateTime::parse(text, &Rfc3339).map_err(|e| {
            anyhow!("--now: `{text}` is not an RFC 3339 time such as 2026-01-01T00:00:00Z ({e})")
        });
    }
    if let Some((seconds, text)) = source_date_epoch()? {
        return OffsetDateTime::from_unix_timestamp(seconds)
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is out of range"));
    }
    Ok(OffsetDateTime::now_utc())
}

/// The present time for judging a live system (`bootgen check`): `--now`, else the time;
/// never `SOURCE_DATE_EPOCH`, which would make a correct clock look skewed.
pub fn present(flag: Option<&str>) -> anyhow::Result<OffsetDateTime> {
    match flag {
        Some(_) => now(flag),
        None => Ok(OffsetDateTime::now_utc()),
    }
}

/// Times of archive entries: `SOURCE_DATE_EPOCH`, else 0, so two runs give the same bytes.
pub fn entry_mtime() -> anyhow::Result<u64> {
    match source_date_epoch()? {
        Some((seconds, text)) => u64::try_from(seconds)
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is before 1970")),
        None => Ok(0),
    }
}

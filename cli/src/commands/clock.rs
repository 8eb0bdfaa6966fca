//! The one place the CLI reads the clock: `--now`, else `SOURCE_DATE_EPOCH`, else the time.

use anyhow::{anyhow, Context};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Resolves the generation time.
pub fn now(flag: Option<&str>) -> anyhow::Result<OffsetDateTime> {
    if let Some(text) = flag {
        return OffsetDateTime::parse(text, &Rfc3339).with_context(|| {
            format!("--now: `{text}` is not an RFC 3339 time such as 2026-01-01T00:00:00Z")
        });
    }
    if let Ok(text) = std::env::var("SOURCE_DATE_EPOCH") {
        let seconds: i64 = text
            .trim()
            .parse()
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is not a number of seconds"))?;
        return OffsetDateTime::from_unix_timestamp(seconds)
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is out of range"));
    }
    Ok(OffsetDateTime::now_utc())
}

//! Service records: the JSON arrays `bootstrap-service-record.sh` writes to
//! `/var/log/openshift/SERVICE.json` (the installer's and bootgen's scripts write the same
//! fields), and `.done` markers, read into timeline events.

use serde::Deserialize;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// One entry of a service record file, as the scripts write it (`errorLine` and
/// `errorMessage` are read as text, for their evidence, not as fields).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub(crate) timestamp: Option<String>,
    pub(crate) phase: Option<String>,
    pub(crate) result: Option<String>,
    pub(crate) stage: Option<String>,
    pub(crate) pre_command: Option<String>,
    pub(crate) post_command: Option<String>,
}

impl Record {
    /// Whether this entry ends something with a failure.
    pub(crate) fn failed(&self) -> bool {
        self.result.as_deref() == Some("failure")
    }
}

/// Parses a service record file; the error says what is wrong with it, naming no content.
pub(crate) fn parse(bytes: &[u8]) -> Result<Vec<Record>, String> {
    serde_json::from_slice::<Vec<Record>>(bytes)
        .map_err(|err| format!("not a JSON array of service records ({err})"))
}

/// A timestamp in UTC, `YYYY-MM-DDTHH:MM:SSZ`, from RFC 3339 (the records), `ls
/// --time-style=full-iso` (`2026-01-01 01:02:03.000000000 +0000`) or journalctl's `short-iso`
/// (`2026-01-01T01:02:03+0000`). `None` when it is none of these.
pub(crate) fn normalize_time(text: &str) -> Option<String> {
    let parsed = OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .or_else(|| {
            let format = format_description!(
                "[year]-[month]-[day] [hour]:[minute]:[second].[subsecond] [offset_hour sign:mandatory][offset_minute]"
            );
            OffsetDateTime::parse(text, format).ok()
        })
        .or_else(|| {
            let format = format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second][offset_hour sign:mandatory][offset_minute]"
            );
            OffsetDateTime::parse(text, format).ok()
        })?;
    Some(utc_text(parsed))
}

/// A time as the timeline shows it.
pub(crate) fn utc_text(time: OffsetDateTime) -> String {
    let utc = time.to_offset(UtcOffset::UTC);
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    utc.format(format).unwrap_or_default()
}

/// A time from seconds since the epoch (a tar entry's or a file's mtime).
pub(crate) fn time_of_epoch(seconds: i64) -> Option<String> {
    OffsetDateTime::from_unix_timestamp(seconds)
        .ok()
        .map(utc_text)
}

/// The `.done` markers in an `ls -la --time-style=full-iso` listing: (name, time).
pub(crate) fn done_marker_in_listing(line: &str) -> Option<(String, Option<String>)> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let name = fields.last()?;
    if !name.ends_with(".done") || fields.len() < 9 {
        return None;
    }
    let n = fields.len();
    let time = normalize_time(&format!(
        "{} {} {}",
        fields[n - 4],
        fields[n - 3],
        fields[n - 2]
    ));
    Some((name.to_string(), time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_the_scripts_write() {
        let records = parse(
            br#"[{"timestamp":"2026-01-01T01:00:00Z","phase":"service start"},
                 {"timestamp":"2026-01-01T01:00:05Z","phase":"stage end","stage":"etcd-bootstrap",
                  "result":"failure","errorLine":"12 main bootkube.sh","errorMessage":"boom"}]"#,
        )
        .unwrap();
        assert_eq!(records.len(), 2);
        assert!(records[1].failed());
        assert_eq!(records[1].stage.as_deref(), Some("etcd-bootstrap"));
    }

    #[test]
    fn garbage_is_an_error_naming_the_shape() {
        let err = parse(b"{\"phase\": 3").unwrap_err();
        assert!(err.contains("not a JSON array"), "{err}");
    }

    #[test]
    fn times_from_every_format_become_utc() {
        assert_eq!(
            normalize_time("2026-01-01T01:02:03Z").unwrap(),
            "2026-01-01T01:02:03Z"
        );
        assert_eq!(
            normalize_time("2026-01-01 02:02:03.123456789 +0100").unwrap(),
            "2026-01-01T01:02:03Z"
        );
        let listing =
            "-rw-r--r--. 1 root root 0 2026-01-01 01:02:03.000000000 +0000 etcd-bootstrap.done";
        assert_eq!(
            done_marker_in_listing(listing).unwrap(),
            (
                "etcd-bootstrap.done".to_string(),
                Some("2026-01-01T01:02:03Z".to_string())
            )
        );
        assert!(done_marker_in_listing("total 12").is_none());
    }
}

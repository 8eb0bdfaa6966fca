//! The node's own state, collected by the caller (the CLI runs journalctl, crictl and podman and
//! reads `/var/log/openshift` and `/opt/openshift`) and named as in a log bundle, so one analysis
//! serves both.

use serde_json::Value;

use crate::analysis::Analysis;
use crate::bundle::offer_file;
use crate::limits::Limits;
use crate::records::time_of_epoch;

/// One file of the node's state, at its place in a bundle's layout.
#[derive(Debug, Clone)]
pub struct NodeFile {
    /// The bundle path: `bootstrap/services/bootkube.json`, `bootstrap/journals/crio.log`,
    /// `bootstrap/containers/etcd-ID.log`, `failed-units.txt`,
    /// `rendered-assets/openshift/NAME.done` for a marker,
    /// `rendered-assets/openshift/manifests/cluster-infrastructure-02-config.yml` (names api-int),
    /// or `bootstrap/host/date.txt` for the present time (RFC 3339), which says how long the
    /// node has waited.
    pub path: String,
    /// Its contents.
    pub contents: Vec<u8>,
    /// Its modification time, seconds since the epoch (dates `.done` markers).
    pub mtime: Option<i64>,
}

/// Everything collected on the node.
#[derive(Debug, Clone, Default)]
pub struct NodeState {
    /// The files, in any order.
    pub files: Vec<NodeFile>,
}

pub(crate) fn read_node(state: &NodeState, limits: &Limits, analysis: &mut Analysis) {
    for file in &state.files {
        offer_file(
            analysis,
            &file.path,
            &mut file.contents.as_slice(),
            file.mtime,
            limits,
        );
    }
}

/// Turns `journalctl --output=json` (one object a line) into journal text as `--output=short-iso`
/// prints it (`TIME HOST IDENTIFIER[PID]: MESSAGE`), so its lines read like a bundle's. Lines that
/// are not journal objects are kept as they are.
pub fn journal_json_to_text(json_lines: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json_lines.len() / 2);
    for line in json_lines.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let Ok(Value::Object(entry)) = serde_json::from_slice::<Value>(line) else {
            out.extend_from_slice(line);
            out.push(b'\n');
            continue;
        };
        let field = |name: &str| entry.get(name).and_then(Value::as_str).unwrap_or("");
        let time = field("__REALTIME_TIMESTAMP")
            .parse::<i64>()
            .ok()
            .and_then(|micros| time_of_epoch(micros / 1_000_000))
            .map(|t| t.replace('Z', "+0000"))
            .unwrap_or_else(|| "-".into());
        let ident = match field("SYSLOG_IDENTIFIER") {
            "" => field("_COMM"),
            ident => ident,
        };
        let message = match entry.get("MESSAGE") {
            Some(Value::String(text)) => text.clone(),
            // journald gives messages that are not UTF-8 as arrays of bytes.
            Some(Value::Array(bytes)) => {
                let bytes: Vec<u8> = bytes
                    .iter()
                    .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
            _ => String::new(),
        };
        let pid = match field("_PID") {
            "" => String::new(),
            pid => format!("[{pid}]"),
        };
        out.extend_from_slice(
            format!("{time} {} {ident}{pid}: {message}\n", field("_HOSTNAME")).as_bytes(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_json_becomes_short_iso_lines() {
        let json = br#"{"__REALTIME_TIMESTAMP":"1767229323000000","_HOSTNAME":"bootstrap","SYSLOG_IDENTIFIER":"podman","_PID":"42","MESSAGE":"Error: unauthorized"}
{"__REALTIME_TIMESTAMP":"1767229324000000","_HOSTNAME":"bootstrap","_COMM":"crio","MESSAGE":[104,105]}
not json
"#;
        let text = String::from_utf8(journal_json_to_text(json)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "2026-01-01T01:02:03+0000 bootstrap podman[42]: Error: unauthorized"
        );
        assert_eq!(lines[1], "2026-01-01T01:02:04+0000 bootstrap crio: hi");
        assert_eq!(lines[2], "not json");
    }
}

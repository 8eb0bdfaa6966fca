//! The certificate report (bootstrap certificates live 24 hours, so a config made yesterday
//! may no longer boot): every certificate in a config or an output directory
//! (PEM anywhere in any file, and base64-encoded PEM inside kubeconfigs and Secret manifests),
//! with subject, issuer, SANs, validity and time left, flagging the expired and those expiring
//! soon. The clock is the caller's.

use crate::error::{Error, OptionField, Result};
use crate::ignition::IgnitionDoc;
use crate::pki::rfc3339;
use base64::Engine as _;
use serde::{Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::Path;
use time::{Duration, OffsetDateTime};
use x509_parser::prelude::{FromDer as _, GeneralName, X509Certificate};

fn as_rfc3339<S: Serializer>(t: &OffsetDateTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&rfc3339(*t))
}

/// One certificate, wherever it was found (each distinct certificate once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FoundCert {
    /// SHA-256 of the DER, hex.
    pub sha256: String,
    /// Subject, e.g. `CN=admin, O=system:masters`.
    pub subject: String,
    /// Issuer.
    pub issuer: String,
    /// Subject alternative names (DNS names and IP addresses).
    pub sans: Vec<String>,
    /// Whether it is a CA.
    pub is_ca: bool,
    /// Start of validity.
    #[serde(serialize_with = "as_rfc3339")]
    pub not_before: OffsetDateTime,
    /// End of validity.
    #[serde(serialize_with = "as_rfc3339")]
    pub not_after: OffsetDateTime,
    /// Every file it was found in (with ` (base64)` when it was encoded there).
    pub found_in: Vec<String>,
}

/// The certificates of a config or directory, in the order found.
#[derive(Debug, Clone, Default)]
pub struct CertCollector {
    /// The distinct certificates.
    pub certs: Vec<FoundCert>,
    /// PEM blocks labelled CERTIFICATE that do not parse, by where they were found.
    pub unreadable: Vec<String>,
}

const BEGIN: &str = "-----BEGIN CERTIFICATE-----";
const END: &str = "-----END CERTIFICATE-----";

impl CertCollector {
    /// Looks for certificates in `bytes`, found at `location`.
    pub fn scan(&mut self, bytes: &[u8], location: &str) {
        self.scan_depth(bytes, location, 0);
    }

    fn scan_depth(&mut self, bytes: &[u8], location: &str, depth: usize) {
        let text = String::from_utf8_lossy(bytes);
        let mut rest: &str = &text;
        while let Some(start) = rest.find(BEGIN) {
            let body = &rest[start + BEGIN.len()..];
            let Some(end) = body.find(END) else { break };
            // PEM inside a JSON string has `\n` escapes rather than newlines.
            let b64: String = body[..end]
                .replace("\\n", "\n")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || "+/=".contains(*c))
                .collect();
            match base64::engine::general_purpose::STANDARD.decode(b64) {
                Ok(der) => self.add_der(&der, location),
                Err(_) => self.unreadable.push(location.to_string()),
            }
            rest = &body[end + END.len()..];
        }
        if depth >= 2 {
            return;
        }
        // base64 of PEM: kubeconfig `certificate-authority-data`, Secret `tls.crt`, ...
        for token in text.split(|c: char| !(c.is_ascii_alphanumeric() || "+/=".contains(c))) {
            if token.len() < 64 || !token.starts_with("LS0t") {
                continue;
            }
            if let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(token) {
                let inner = format!("{location} (base64)");
                self.scan_depth(&decoded, &inner, depth + 1);
            }
        }
    }

    fn add_der(&mut self, der: &[u8], location: &str) {
        let sha256 = hex(&Sha256::digest(der));
        if let Some(known) = self.certs.iter_mut().find(|c| c.sha256 == sha256) {
            if !known.found_in.iter().any(|l| l == location) {
                known.found_in.push(location.to_string());
            }
            return;
        }
        let Ok((_, cert)) = X509Certificate::from_der(der) else {
            self.unreadable.push(location.to_string());
            return;
        };
        let sans = cert
            .subject_alternative_name()
            .ok()
            .flatten()
            .map(|ext| {
                ext.value
                    .general_names
                    .iter()
                    .map(|name| match name {
                        GeneralName::DNSName(dns) => (*dns).to_string(),
                        GeneralName::IPAddress(bytes) => ip_text(bytes),
                        other => other.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.certs.push(FoundCert {
            sha256,
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
            sans,
            is_ca: cert.is_ca(),
            not_before: cert.validity().not_before.to_datetime(),
            not_after: cert.validity().not_after.to_datetime(),
            found_in: vec![location.to_string()],
        });
    }

    /// Every file of a config, by its path on the node.
    pub fn scan_config(&mut self, doc: &IgnitionDoc) -> Result<()> {
        self.scan_files(crate::ignition::read::file_entries(doc).into_iter().map(Ok))?;
        self.scan_authorities(&doc.value);
        Ok(())
    }

    /// [`CertCollector::scan_config`] for a config's bytes (`name` names it in errors),
    /// checked as [`IgnitionDoc::parse`] checks it, one file entry decoded at a time: a large
    /// config is never a JSON tree whole.
    pub fn scan_config_bytes(&mut self, bytes: &[u8], name: &str) -> Result<()> {
        let split = crate::ignition::SplitDoc::parse_checked(bytes, name, |_| false)?;
        self.scan_files(split.input_files())?;
        // The split keeps everything but the file list as a tree.
        self.scan_authorities(&split.doc.value);
        Ok(())
    }

    /// [`CertCollector::scan_config`] for a config whose file entries are `files` (read one at
    /// a time; the rest of the config is read from `config`).
    pub(crate) fn scan_entries(
        &mut self,
        config: &serde_json::Value,
        files: crate::ignition::files::FileList<'_>,
    ) -> Result<()> {
        self.scan_files(files.iter())?;
        self.scan_authorities(config);
        Ok(())
    }

    fn scan_files<V: std::borrow::Borrow<serde_json::Value>>(
        &mut self,
        entries: impl Iterator<Item = Result<V>>,
    ) -> Result<()> {
        for (i, entry) in entries.enumerate() {
            let entry = entry?;
            if !may_hold_certificates(entry.borrow()) {
                continue;
            }
            let file = crate::ignition::decode_file(i, entry.borrow())?;
            for bytes in file.contents.iter().chain(&file.append) {
                self.scan(bytes, &file.path);
            }
        }
        Ok(())
    }

    /// The CAs Ignition itself trusts to fetch configs (a pointer config's root CA).
    fn scan_authorities(&mut self, config: &serde_json::Value) {
        let authorities = config
            .pointer("/ignition/security/tls/certificateAuthorities")
            .and_then(serde_json::Value::as_array);
        for (i, ca) in authorities.into_iter().flatten().enumerate() {
            let Some(source) = ca.get("source").and_then(serde_json::Value::as_str) else {
                continue;
            };
            let compression = ca.get("compression").and_then(serde_json::Value::as_str);
            // Only data URLs carry the certificate; a fetched one is not in the config.
            if let Ok(bytes) = crate::ignition::dataurl::decode(source, compression) {
                self.scan(
                    &bytes,
                    &format!("$.ignition.security.tls.certificateAuthorities[{i}]"),
                );
            }
        }
    }

    /// An output directory: `bootstrap.ign` (every file inside), `tls/` and `auth/kubeconfig`.
    pub fn scan_output_dir(&mut self, dir: &Path) -> Result<()> {
        let config = dir.join("bootstrap.ign");
        if config.is_file() {
            let bytes = std::fs::read(&config).map_err(|e| Error::io("cannot read", &config, e))?;
            self.scan_config_bytes(&bytes, &config.display().to_string())?;
        }
        let mut extra: Vec<std::path::PathBuf> = Vec::new();
        let tls = dir.join("tls");
        if tls.is_dir() {
            for entry in std::fs::read_dir(&tls).map_err(|e| Error::io("cannot read", &tls, e))? {
                let path = entry.map_err(|e| Error::io("cannot read", &tls, e))?.path();
                if path.is_file() && path.extension().is_some_and(|x| x == "crt") {
                    extra.push(path);
                }
            }
        }
        extra.sort();
        extra.push(dir.join("auth/kubeconfig"));
        for path in extra.iter().filter(|p| p.is_file()) {
            let bytes = std::fs::read(path).map_err(|e| Error::io("cannot read", path, e))?;
            let relative = path.strip_prefix(dir).unwrap_or(path);
            self.scan(&bytes, &relative.display().to_string());
        }
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    base16ct::lower::encode_string(bytes)
}

fn ip_text(bytes: &[u8]) -> String {
    match bytes.len() {
        4 => std::net::Ipv4Addr::from([bytes[0], bytes[1], bytes[2], bytes[3]]).to_string(),
        16 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(bytes);
            std::net::Ipv6Addr::from(octets).to_string()
        }
        _ => hex(bytes),
    }
}

/// Where a certificate stands at the report's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CertStatus {
    /// Valid for longer than the warning window.
    Valid,
    /// Valid, but expires within the warning window and has used half its life.
    Expiring,
    /// Past its not-after time.
    Expired,
    /// Before its not-before time.
    NotYetValid,
}

/// One certificate in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertLine {
    /// The certificate.
    #[serde(flatten)]
    pub cert: FoundCert,
    /// Its status.
    pub status: CertStatus,
    /// Seconds until not-after (negative once expired).
    pub seconds_left: i64,
}

/// The certificate report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertReport {
    /// The clock.
    #[serde(serialize_with = "as_rfc3339")]
    pub now: OffsetDateTime,
    /// The warning window in seconds.
    pub warn_within_seconds: i64,
    /// Certificates, soonest expiry first.
    pub certificates: Vec<CertLine>,
    /// Where unreadable certificate blocks were found.
    pub unreadable: Vec<String>,
}

impl CertReport {
    /// Builds the report at `now`, warning for certificates expiring within `warn_within` that
    /// have used half their life. A certificate that has not is fresh whatever its length: the
    /// bootstrap's one-day certificates of a config made a minute ago are not "expiring"; twelve
    /// hours later they are (the rule `validate` applies too).
    pub fn new(found: CertCollector, now: OffsetDateTime, warn_within: Duration) -> CertReport {
        let mut certificates: Vec<CertLine> = found
            .certs
            .into_iter()
            .map(|cert| {
                let left = cert.not_after - now;
                let status = if cert.not_after <= now {
                    CertStatus::Expired
                } else if cert.not_before > now {
                    CertStatus::NotYetValid
                } else if left <= warn_within
                    && now - cert.not_before >= (cert.not_after - cert.not_before) / 2
                {
                    CertStatus::Expiring
                } else {
                    CertStatus::Valid
                };
                CertLine {
                    cert,
                    status,
                    seconds_left: left.whole_seconds(),
                }
            })
            .collect();
        certificates.sort_by(|a, b| {
            (a.cert.not_after, &a.cert.subject, &a.cert.sha256).cmp(&(
                b.cert.not_after,
                &b.cert.subject,
                &b.cert.sha256,
            ))
        });
        CertReport {
            now,
            warn_within_seconds: warn_within.whole_seconds(),
            certificates,
            unreadable: found.unreadable,
        }
    }

    /// How many certificates have `status`.
    pub fn count(&self, status: CertStatus) -> usize {
        self.certificates
            .iter()
            .filter(|c| c.status == status)
            .count()
    }
}

/// `2d 3h`, `5h 12m`, `40m`, `30s`.
pub fn human_duration(seconds: i64) -> String {
    let s = seconds.unsigned_abs();
    let (d, h, m) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, m) => format!("{h}h {m}m"),
        (d, h, _) => format!("{d}d {h}h"),
    }
}

/// Parses `24h`, `90m`, `7d`, `30s`, `1w` (a number and one unit).
pub fn parse_duration(text: &str) -> Result<Duration> {
    let err = || Error::InvalidOption {
        option: OptionField::WarnWithin,
        message: format!("`{text}` is not a duration such as 24h, 90m, 7d"),
    };
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().map_err(|_| err())?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(err()),
    };
    n.checked_mul(seconds)
        .map(Duration::seconds)
        .ok_or_else(err)
}

impl fmt::Display for CertReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} certificate(s) at {} ({} expired, {} expiring within {}, {} not yet valid)",
            self.certificates.len(),
            rfc3339(self.now),
            self.count(CertStatus::Expired),
            self.count(CertStatus::Expiring),
            human_duration(self.warn_within_seconds),
            self.count(CertStatus::NotYetValid),
        )?;
        for line in &self.certificates {
            let c = &line.cert;
            let (flag, left) = match line.status {
                CertStatus::Expired => (
                    "EXPIRED ",
                    format!("expired {} ago", human_duration(line.seconds_left)),
                ),
                CertStatus::Expiring => (
                    "EXPIRING",
                    format!("{} left", human_duration(line.seconds_left)),
                ),
                CertStatus::NotYetValid => ("NOT YET ", "not valid yet".to_string()),
                CertStatus::Valid => (
                    "ok      ",
                    format!("{} left", human_duration(line.seconds_left)),
                ),
            };
            let ca = if c.is_ca { " (CA)" } else { "" };
            writeln!(f, "\n{flag} {}{ca}", c.subject)?;
            writeln!(f, "         issuer:   {}", c.issuer)?;
            if !c.sans.is_empty() {
                writeln!(f, "         SANs:     {}", c.sans.join(", "))?;
            }
            writeln!(
                f,
                "         valid:    {} .. {} ({left})",
                rfc3339(c.not_before),
                rfc3339(c.not_after)
            )?;
            writeln!(f, "         found in: {}", c.found_in.join(", "))?;
        }
        for location in &self.unreadable {
            writeln!(f, "\nunreadable certificate block in {location}")?;
        }
        Ok(())
    }
}

/// False for a file whose every source is compressed and shows no PEM (nor base64 of PEM) in
/// its first MiB: such a file is not decompressed at all, so a compressed file that expands to
/// gigabytes costs the certificate report nothing.
fn may_hold_certificates(entry: &serde_json::Value) -> bool {
    let contents = entry.get("contents").into_iter();
    let appended = entry.get("append").and_then(serde_json::Value::as_array);
    let mut sources = contents.chain(appended.into_iter().flatten()).peekable();
    if sources.peek().is_none() {
        return true;
    }
    sources.any(|resource| {
        let compression = resource
            .get("compression")
            .and_then(serde_json::Value::as_str);
        let Some(source) = resource.get("source").and_then(serde_json::Value::as_str) else {
            return false;
        };
        if compression != Some("gzip") {
            return true;
        }
        crate::ignition::dataurl::peek(source, compression, 1 << 20).map_or(true, |head| {
            let head = String::from_utf8_lossy(&head);
            head.contains(BEGIN) || head.contains("LS0t")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CA: &str = include_str!("../../../fixtures/trust/mirror-ca.crt");

    #[test]
    fn finds_pem_base64_and_json_escaped_certificates_once_each() {
        let mut found = CertCollector::default();
        found.scan(CA.as_bytes(), "/a.crt");
        let b64 = base64::engine::general_purpose::STANDARD.encode(CA);
        found.scan(
            format!("certificate-authority-data: {b64}\n").as_bytes(),
            "/kubeconfig",
        );
        let escaped = serde_json::to_string(CA).unwrap();
        found.scan(format!("{{\"ca\": {escaped}}}").as_bytes(), "/x.json");
        found.scan(
            b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
            "/bad.crt",
        );
        assert_eq!(found.certs.len(), 1);
        let cert = found.certs[0].clone();
        assert_eq!(cert.found_in, ["/a.crt", "/kubeconfig (base64)", "/x.json"]);
        assert!(
            cert.subject.contains("CN=bootgen fixture mirror CA"),
            "{}",
            cert.subject
        );
        assert!(cert.is_ca);
        assert_eq!(found.unreadable, ["/bad.crt"]);
        let before = cert.not_before - Duration::days(1);
        let report = CertReport::new(found.clone(), before, Duration::hours(24));
        assert_eq!(report.certificates[0].status, CertStatus::NotYetValid);
        let late = cert.not_after - Duration::hours(1);
        let report = CertReport::new(found.clone(), late, Duration::hours(24));
        assert_eq!(report.certificates[0].status, CertStatus::Expiring);
        let report = CertReport::new(found, cert.not_after, Duration::hours(24));
        assert_eq!(report.count(CertStatus::Expired), 1);
        assert!(report.to_string().contains("EXPIRED"));
    }

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration("24h").unwrap(), Duration::hours(24));
        assert_eq!(parse_duration("90m").unwrap(), Duration::minutes(90));
        assert_eq!(parse_duration("7d").unwrap(), Duration::days(7));
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("12").is_err());
        assert!(parse_duration("3y").is_err());
        assert_eq!(human_duration(90_000), "1d 1h");
        assert_eq!(human_duration(-3_700), "1h 1m");
    }

    /// inspect --certs and validate agree: a one-day certificate is fresh while it has more
    /// than half its life left, even inside a 24-hour warning window, and expiring after.
    #[test]
    fn young_certificates_are_not_expiring() {
        let mut found = CertCollector::default();
        found.scan(CA.as_bytes(), "/a.crt");
        let mut cert = found.certs[0].clone();
        cert.not_after = cert.not_before + Duration::hours(24);
        found.certs = vec![cert.clone()];
        let at = |hours: i64| {
            CertReport::new(
                found.clone(),
                cert.not_before + Duration::hours(hours),
                Duration::hours(24),
            )
            .certificates[0]
                .status
        };
        assert_eq!(at(0), CertStatus::Valid);
        assert_eq!(at(11), CertStatus::Valid);
        assert_eq!(at(13), CertStatus::Expiring);
        assert_eq!(at(25), CertStatus::Expired);
    }
}

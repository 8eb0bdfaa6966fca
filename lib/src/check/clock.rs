//! Time: this machine's clock against the `Date` the mirror or the machine-config server sent,
//! and the time the cluster's certificates have left (the bootstrap certificates last a day, so
//! configs made too early expire before the install finishes).

use super::finding::{Finding, Status};
use super::targets::CertificateTime;
use crate::error::OptionField;
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

/// Below this much time left the bootstrap cannot finish: a failure.
const TOO_LITTLE: Duration = Duration::hours(1);
/// Below this, half of the day is gone: a warning.
const RUNNING_LOW: Duration = Duration::hours(12);

/// HTTP's date format (IMF-fixdate: `Fri, 27 Nov 2026 02:31:18 GMT`).
const HTTP_DATE: &[time::format_description::BorrowedFormatItem<'static>] = time::macros::format_description!(
    "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
);

/// An HTTP `Date`.
pub(crate) fn parse_http_date(text: &str) -> Option<OffsetDateTime> {
    PrimitiveDateTime::parse(text.trim(), HTTP_DATE)
        .ok()
        .map(PrimitiveDateTime::assume_utc)
}

/// A time as HTTP writes it (in UTC), so two can be compared by eye.
pub(crate) fn http_date(at: OffsetDateTime) -> String {
    at.to_offset(time::UtcOffset::UTC)
        .format(HTTP_DATE)
        .unwrap_or_else(|_| at.to_string())
}

/// A duration to the nearest minute, as `2 h 5 min`.
fn hours_minutes(duration: Duration) -> String {
    let minutes = (duration.whole_seconds().abs() + 30) / 60;
    format!("{} h {} min", minutes / 60, minutes % 60)
}

/// Each server's `Date` (`(server, header)`) against `now`; more than `max_skew` apart fails.
pub(crate) fn check_clock(
    dates: &[(String, String)],
    now: OffsetDateTime,
    max_skew: Duration,
    findings: &mut Vec<Finding>,
) {
    for (server, header) in dates {
        let Some(theirs) = parse_http_date(header) else {
            continue;
        };
        let skew = now - theirs;
        let evidence = format!(
            "{server} sent Date: {header}; this machine's clock read {}",
            http_date(now)
        );
        if skew.abs() > max_skew {
            let direction = if skew.is_positive() {
                "ahead of"
            } else {
                "behind"
            };
            findings.push(Finding::problem(
                Status::Fail,
                "time",
                server.clone(),
                format!("this machine's clock is {} {direction} the server's", hours_minutes(skew)),
                evidence,
                format!("chronyc tracking   # sync this machine and the nodes to the same NTP servers, then make the configs again: bootgen ignition {} {} <dir>", OptionField::RenewExpired, OptionField::OutputDir),
            ));
        } else {
            findings.push(Finding::pass(
                "time",
                server.clone(),
                format!(
                    "the server's clock agrees with this machine's (within {} s)",
                    skew.whole_seconds().abs()
                ),
            ));
        }
    }
}

/// The certificate that expires first at `at`, and any not valid yet by this machine's clock
/// (`(clock, at)`: the two are the same unless the caller asks about a later time).
pub(crate) fn check_certificates(
    certificates: &[CertificateTime],
    (clock, at): (OffsetDateTime, OffsetDateTime),
    findings: &mut Vec<Finding>,
) {
    let now = clock;
    let renew = format!(
        "bootgen ignition {} {} <dir>   # new certificates, the same keys; then boot the new bootstrap.ign",
        OptionField::RenewExpired,
        OptionField::OutputDir
    );
    if let Some(early) = certificates.iter().find(|c| c.not_before > now) {
        findings.push(Finding::problem(
            Status::Fail,
            "time",
            early.file.clone(),
            format!(
                "the certificate is not valid yet, for {}: it was made on a clock ahead of this one",
                hours_minutes(early.not_before - now)
            ),
            format!("{}: notBefore {}", early.subject, http_date(early.not_before)),
            format!("sync the clocks (chronyc tracking), then {renew}"),
        ));
    }
    let Some(first) = certificates.iter().min_by_key(|c| c.not_after) else {
        return;
    };
    let left = first.not_after - at;
    // Said with the time it was judged at when that is not this machine's present.
    let when = if at == clock {
        String::new()
    } else {
        format!("at {}, ", http_date(at))
    };
    let evidence = format!("{}: notAfter {}", first.subject, http_date(first.not_after));
    let target = first.file.clone();
    // A CA is never re-issued in place (`--renew-expired` refuses it): only a new PKI,
    // in a new output directory, renews it.
    let fix = if first.authority {
        format!(
            "bootgen ignition {} <new dir>   # a certificate authority is never renewed in place: a new directory makes a new PKI; boot its configs",
            OptionField::OutputDir
        )
    } else {
        renew
    };
    if left < TOO_LITTLE {
        let what = if left.is_negative() {
            format!("{when}the certificate expired {} ago", hours_minutes(left))
        } else {
            format!(
                "{when}the certificate expires in {}, too soon for the bootstrap to finish",
                hours_minutes(left)
            )
        };
        findings.push(Finding::problem(
            Status::Fail,
            "time",
            target,
            what,
            evidence,
            fix,
        ));
    } else if left < RUNNING_LOW {
        findings.push(Finding::problem(
            Status::Warn,
            "time",
            target,
            format!(
                "{when}the first certificate expires in {}: more than half of its day is gone",
                hours_minutes(left)
            ),
            evidence,
            fix,
        ));
    } else {
        findings.push(Finding::pass(
            "time",
            target,
            format!(
                "{when}the first certificate to expire has {} left",
                hours_minutes(left)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn certificate(authority: bool, not_after: OffsetDateTime) -> CertificateTime {
        CertificateTime {
            file: "/opt/openshift/tls/x.crt".into(),
            subject: "CN=x".into(),
            not_before: not_after - Duration::days(1),
            not_after,
            authority,
        }
    }

    /// An expired leaf is renewed in place; an expired CA only by a new PKI, which the fix
    /// says, since `renew_expired` refuses a CA.
    #[test]
    fn the_fix_of_an_expired_certificate_is_one_bootgen_carries_out() {
        let now = OffsetDateTime::now_utc();
        for (authority, says) in [(false, "renew_expired"), (true, "new directory")] {
            let mut findings = Vec::new();
            check_certificates(
                &[certificate(authority, now - Duration::hours(1))],
                (now, now),
                &mut findings,
            );
            let fix = format!("{:?}", findings[0]);
            assert!(fix.contains(says), "{authority}: {fix}");
        }
    }

    /// A later horizon is a question about the certificates alone: one valid now is judged at
    /// that time, and said so, while "not valid yet" is still judged by this machine's clock.
    #[test]
    fn a_later_horizon_judges_the_certificates_not_the_clock() {
        let now = OffsetDateTime::now_utc();
        let later = now + Duration::hours(20);
        let fresh = CertificateTime {
            not_before: now - Duration::minutes(5),
            ..certificate(false, now + Duration::minutes(20 * 60 + 30))
        };
        let mut findings = Vec::new();
        check_certificates(&[fresh], (now, later), &mut findings);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].status, Status::Fail, "{findings:?}");
        assert!(
            findings[0].what.starts_with(&format!(
                "at {}, the certificate expires in 0 h 30 min",
                http_date(later)
            )),
            "{findings:?}"
        );
    }

    #[test]
    fn http_dates_are_read() {
        let date = parse_http_date("Fri, 27 Nov 2026 02:31:18 GMT").unwrap();
        assert_eq!(date.unix_timestamp(), 1_795_746_678);
        assert!(parse_http_date("yesterday").is_none());
        assert_eq!(http_date(date), "Fri, 27 Nov 2026 02:31:18 GMT");
        assert_eq!(
            hours_minutes(Duration::seconds(-(2 * 3600 - 20))),
            "2 h 0 min"
        );
    }
}

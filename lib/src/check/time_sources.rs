//! The nodes' NTP servers (the bootstrap config's `/etc/chrony.conf`, which bootgen writes from
//! the hosts file's `additionalNTPSources`): each is resolved and asked for the time, with a
//! deadline; one that does not answer fails (a disconnected cluster has no other time source,
//! and its certificates fail on a clock that drifts), and each time received is compared with
//! this machine's clock, which made the certificates.

use super::finding::{Finding, Status};
use super::probe::{Lookup, Probes};
use std::net::SocketAddr;

/// Asks each of the plan's time sources for the time: a finding each, and the time received
/// (as a `Date`) for the clock's comparison.
pub(crate) fn check_time_sources(
    plan: &super::Plan,
    probes: &dyn Probes,
    port: u16,
    findings: &mut Vec<Finding>,
    notes: &mut Vec<String>,
    dates: &mut Vec<(String, String)>,
) {
    if plan.time_sources.is_empty() {
        notes.push("the configs set no NTP server (no /etc/chrony.conf): the nodes keep their image's time sources, and none was tested".into());
        return;
    }
    let why_it_matters = "the nodes take their time from it (the bootstrap's /etc/chrony.conf and the 50-*-chrony-configuration MachineConfigs): without an answer their clocks drift, and the cluster's short-lived certificates fail";
    for name in &plan.time_sources {
        let target = format!("NTP server {name}");
        let addresses = match probes.resolve(name) {
            Lookup::Addresses(addresses) => addresses,
            Lookup::NoSuchName { answer } | Lookup::Failed(answer) => {
                findings.push(Finding::problem(
                    Status::Fail,
                    "time",
                    target,
                    format!("{name} has no address, so no node can ask it the time"),
                    answer,
                    format!("add {name} to DNS, or list its address in the hosts file's additionalNTPSources: {why_it_matters}"),
                ));
                continue;
            }
        };
        let mut failures = Vec::new();
        let mut answered = None;
        for ip in &addresses {
            let address = SocketAddr::new(*ip, port);
            match probes.ntp_time(address) {
                Ok(time) => {
                    answered = Some((address, time));
                    break;
                }
                Err(why) => failures.push(format!("{address}: {why}")),
            }
        }
        match answered {
            Some((address, time)) => {
                findings.push(Finding::pass(
                    "time",
                    target,
                    format!("{address} answered with the time"),
                ));
                dates.push((
                    format!("NTP server {name} ({address})"),
                    super::clock::http_date(time),
                ));
            }
            None => findings.push(Finding::problem(
                Status::Fail,
                "time",
                target,
                format!("{name} did not answer an NTP request"),
                failures.join("; "),
                format!("chronyd -Q 'server {name} iburst'   # asks it once, as the nodes will; open UDP port {port} to it from the nodes' network: {why_it_matters}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::probe::Answers;

    /// One NTP server at 192.0.2.5 that answers; `down.lab` resolves and stays silent;
    /// anything else has no address.
    fn servers() -> Answers {
        let ip = |s: &str| s.parse().unwrap();
        Answers {
            names: vec![
                ("ntp.lab", Lookup::Addresses(vec![ip("192.0.2.5")])),
                (
                    "down.lab",
                    Lookup::Addresses(vec![ip("192.0.2.6"), ip("192.0.2.7")]),
                ),
            ],
            ntp: vec![(
                "192.0.2.5:123",
                time::macros::datetime!(2026-01-01 00:00:30 UTC),
            )],
        }
    }

    #[test]
    fn each_source_is_asked_at_each_address_and_a_silent_one_fails() {
        let plan = super::super::Plan {
            time_sources: vec!["ntp.lab".into(), "down.lab".into(), "gone.lab".into()],
            ..Default::default()
        };
        let (mut findings, mut notes, mut dates) = (Vec::new(), Vec::new(), Vec::new());
        check_time_sources(
            &plan,
            &servers(),
            123,
            &mut findings,
            &mut notes,
            &mut dates,
        );
        let verdicts: Vec<(&str, Status)> = findings
            .iter()
            .map(|f| (f.target.as_str(), f.status))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("NTP server ntp.lab", Status::Pass),
                ("NTP server down.lab", Status::Fail),
                ("NTP server gone.lab", Status::Fail),
            ]
        );
        assert_eq!(
            findings[1].evidence.as_deref(),
            Some("192.0.2.6:123: no answer within 5 s; 192.0.2.7:123: no answer within 5 s")
        );
        assert_eq!(
            dates,
            [(
                "NTP server ntp.lab (192.0.2.5:123)".to_string(),
                "Thu, 01 Jan 2026 00:00:30 GMT".to_string()
            )]
        );
        assert!(notes.is_empty());
    }
}

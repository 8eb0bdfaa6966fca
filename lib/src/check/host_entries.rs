//! Which machines get each name of the bootstrap config's `/etc/hosts` (bootgen's
//! `--add-host`): the bootstrap from its own config; the control-plane and compute machines
//! from bootgen's MachineConfigs `99-{master,worker}-bootgen-hosts`, or else from DNS, which is
//! then asked as they will ask it.

use super::finding::{Finding, Status};
use super::probe::{Lookup, Probes};

/// A finding for each name the bootstrap's `/etc/hosts` maps.
pub(crate) fn check_host_entries(
    plan: &super::Plan,
    probes: &dyn Probes,
    findings: &mut Vec<Finding>,
) {
    for (name, ip) in &plan.node_hosts {
        let target = format!("{name} ({ip})");
        let given = plan
            .machine_hosts
            .iter()
            .any(|(n, i)| n.eq_ignore_ascii_case(name) && i == ip);
        if given {
            findings.push(Finding::pass(
                "hosts",
                target,
                "every machine gets it in /etc/hosts: the bootstrap from its config, the control-plane and compute machines from the MachineConfigs 99-master-bootgen-hosts and 99-worker-bootgen-hosts".into(),
            ));
            continue;
        }
        let why = "the bootstrap gets it from its /etc/hosts only: the control-plane and compute machines ask DNS";
        match probes.resolve(name) {
            Lookup::Addresses(addresses) if addresses.contains(ip) => findings.push(Finding::pass(
                "hosts",
                target,
                format!("{why}, which gives them {ip} too"),
            )),
            Lookup::Addresses(addresses) => {
                let listed: Vec<String> = addresses.iter().map(ToString::to_string).collect();
                findings.push(Finding::problem(
                    Status::Warn,
                    "hosts",
                    target,
                    format!("{why}, which gives them another address than the bootstrap's"),
                    format!("DNS: {name} is {}", listed.join(", ")),
                    format!("make the DNS record of {name} {ip}, or give the --add-host entry to bootgen ignition, whose MachineConfigs give it to every machine"),
                ))
            }
            Lookup::NoSuchName { answer } | Lookup::Failed(answer) => findings.push(Finding::problem(
                Status::Fail,
                "hosts",
                target,
                format!("{why}, which does not resolve it"),
                answer,
                format!("add the DNS record {name} IN A {ip} to the DNS server the nodes use, or give --add-host {ip}={name} to bootgen ignition, whose MachineConfigs give it to every machine (all but api-int, which they resolve before any config of theirs arrives)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::probe::Answers;

    /// DNS knows `lb.lab` (at .20) and `dns.lab` (at .21); nothing else.
    fn dns() -> Answers {
        let ip = |s: &str| s.parse().unwrap();
        Answers {
            names: vec![
                ("lb.lab", Lookup::Addresses(vec![ip("192.0.2.20")])),
                ("dns.lab", Lookup::Addresses(vec![ip("192.0.2.21")])),
            ],
            ntp: Vec::new(),
        }
    }

    #[test]
    fn each_name_says_which_machines_get_it() {
        let ip = |s: &str| s.parse().unwrap();
        let plan = super::super::Plan {
            node_hosts: vec![
                ("mirror.lab".into(), ip("192.0.2.9")),
                ("lb.lab".into(), ip("192.0.2.10")),
                ("dns.lab".into(), ip("192.0.2.21")),
                ("api-int.ocp.lab".into(), ip("192.0.2.30")),
            ],
            machine_hosts: vec![("mirror.lab".into(), ip("192.0.2.9"))],
            ..Default::default()
        };
        let mut findings = Vec::new();
        check_host_entries(&plan, &dns(), &mut findings);
        let verdicts: Vec<(&str, Status)> = findings
            .iter()
            .map(|f| (f.target.as_str(), f.status))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("mirror.lab (192.0.2.9)", Status::Pass),
                ("lb.lab (192.0.2.10)", Status::Warn),
                ("dns.lab (192.0.2.21)", Status::Pass),
                ("api-int.ocp.lab (192.0.2.30)", Status::Fail),
            ]
        );
        assert!(findings[0].what.contains("99-master-bootgen-hosts"));
        assert_eq!(
            findings[3].evidence.as_deref(),
            Some("NXDOMAIN from 127.0.0.1:53")
        );
    }
}

//! The platform's part of the pre-flight: what the cluster needs from its infrastructure that
//! the config cannot give. On vSphere the control plane's cloud provider, storage driver and
//! machine API sign in to each vCenter by the name the install-config gives, through the
//! cluster's DNS: a name that does not resolve leaves the cluster without them.

use super::{name_check, NameCheck, Report, Resolution};
use crate::ignition::read::vcenter_servers;
use crate::ignition::IgnitionDoc;

/// The checks for one vCenter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VCenterHost {
    /// The vCenter's name or address, as the install-config gives it.
    pub server: String,
    /// How its name was found (an /etc/hosts entry of the bootstrap config does not count:
    /// the nodes that talk to the vCenter do not get it).
    pub name: NameCheck,
}

/// Looks up every vCenter of a vSphere config; adds a warning for each that does not resolve.
pub(super) fn check_vcenters(
    doc: &IgnitionDoc,
    resolve: &mut dyn FnMut(&str) -> Resolution,
    report: &mut Report,
) {
    for server in vcenter_servers(doc) {
        let name = name_check(&server, &[], resolve);
        if let NameCheck::Unresolved(reason) = &name {
            report.warn(
                super::FindingKind::VCenterUnresolved {
                    server: server.clone(),
                },
                format!(
                    "vCenter {server}: the name does not resolve here ({reason}); the control-plane \
                     nodes sign in to it by this name (cloud provider, storage driver, machine \
                     API), so the cluster's DNS must answer for it, or give platform.vsphere \
                     the vCenter's address"
                ),
            );
        }
        report.vcenters.push(VCenterHost { server, name });
    }
}

//! Which form of `platform.vsphere` a release's installer takes: the `vcenters` and
//! `failureDomains` form, and the VIP lists, arrived after the single-vCenter fields.

use crate::config::LoadedConfig;
use crate::error::Result;
use crate::release::{first_with, Profile, Switch, Switches};

/// Refuses the vSphere fields of a later form than the release takes: `vcenters` and
/// `failureDomains` before 4.13 (4.12's installer took them only with TechPreviewNoUpgrade and
/// required the single-vCenter fields), `apiVIPs` and `ingressVIPs` before 4.12 (one VIP of each
/// kind then). 4.9's and 4.12's installers pass over `vcenters` and then find no vCenter, so
/// bootgen names `vCenter` as they do; 4.10's and 4.11's refuse unknown fields, which
/// `unknown_fields::refuse_first_unknown` has done before this runs.
pub(crate) fn check_form(
    loaded: &LoadedConfig,
    profile: &Profile,
    switches: &Switches,
) -> Result<()> {
    let written = |key: &&str| loaded.line_of(&format!("platform.vsphere.{key}")).is_some();
    let arrived = |what: &str, switch: Switch, then: &str| {
        first_with(switch).map_or_else(
            || format!("{what} are not in any supported release{then}"),
            |minor| format!("{what} arrived in {minor}{then}"),
        )
    };
    let mut later: Vec<(&str, String)> = Vec::new();
    if !switches.has(Switch::VsphereFailureDomains) {
        let why = arrived(
            "vcenters and failureDomains",
            Switch::VsphereFailureDomains,
            "",
        );
        later.extend([("vcenters", why.clone()), ("failureDomains", why)]);
    }
    if !switches.has(Switch::VsphereVipLists) {
        let why = arrived(
            "apiVIPs and ingressVIPs",
            Switch::VsphereVipLists,
            " (write apiVIP and ingressVIP)",
        );
        later.extend([("apiVIPs", why.clone()), ("ingressVIPs", why)]);
    }
    later.retain(|(key, _)| written(key));
    let Some((key, arrived)) = later.first() else {
        return Ok(());
    };
    if matches!(*key, "vcenters" | "failureDomains") {
        // The installer passes over the fields it does not take, finds no vCenter, and says so.
        return Err(loaded.field_error(
            "platform.vsphere.vCenter",
            format!(
                "is required: the OpenShift {} installer reads vSphere's single-vCenter fields \
                 (vCenter, username, password, datacenter, defaultDatastore, cluster, network, \
                 apiVIP, ingressVIP), not `{key}`; {arrived}",
                profile.minor
            ),
        ));
    }
    Err(loaded.field_error(
        &format!("platform.vsphere.{key}"),
        format!(
            "the OpenShift {} installer takes vSphere's single-vCenter fields (vCenter, \
             username, password, datacenter, defaultDatastore, cluster, network, apiVIP, \
             ingressVIP); {arrived}",
            profile.minor
        ),
    ))
}

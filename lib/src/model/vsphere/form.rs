//! Which form of `platform.vsphere` a release's installer takes: the `vcenters` and
//! `failureDomains` form, and the VIP lists, arrived after the single-vCenter fields.

use super::VSpherePlatform;
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::model::unknown_fields::{ignored_by_release, NotInRelease};
use crate::release::{first_with, Profile, Switch, Switches};

/// A failure domain's compute cluster, datastore, resource pool and template paths as the
/// release's installer cleans them while it checks them (from 4.16): `/dc1/host/c1/` is
/// `/dc1/host/c1`, so the machines' pool is `/dc1/host/c1/Resources`, not `...c1//Resources`.
pub(crate) fn clean_paths(vsphere: &mut VSpherePlatform, switches: &Switches) {
    if !switches.has(Switch::VspherePathsCleaned) {
        return;
    }
    for domain in &mut vsphere.failure_domains {
        let topology = &mut domain.topology;
        for path in [
            &mut topology.compute_cluster,
            &mut topology.datastore,
            &mut topology.resource_pool,
            &mut topology.template,
        ] {
            *path = super::paths::cleaned(path);
        }
    }
}

/// A failure domain's `topology.template` where the release's installer does not know it
/// (4.13): ignored with a warning, as that installer ignores it, so the machines name the
/// template the installer would have made.
pub(crate) fn ignore_unknown_template(
    loaded: &LoadedConfig,
    vsphere: &mut VSpherePlatform,
    profile: &Profile,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) {
    if switches.has(Switch::VsphereTemplate) {
        return;
    }
    for (i, domain) in vsphere.failure_domains.iter_mut().enumerate() {
        if domain.topology.template.is_empty() {
            continue;
        }
        let field = format!("platform.vsphere.failureDomains.{i}.topology.template");
        let what = NotInRelease {
            field: &field,
            arrived: first_with(Switch::VsphereTemplate),
            consequence: ", so the machines are cloned from the installer's own template name",
        };
        ignored_by_release(loaded, profile.minor, &what, warnings);
        domain.topology.template.clear();
    }
}

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

//! The vSphere rules that need more than the platform's own fields: the VIPs against the
//! machine networks, the machines' architectures, and more than one vCenter or network where
//! the release's feature set allows it.

use super::{VSpherePlatform, AT};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::model::CustomFeatureGates;
use crate::release::{
    Profile, Switch, Switches, CUSTOM_FEATURE_SET, VSPHERE_MULTI_NETWORKS_OPT_IN,
    VSPHERE_MULTI_VCENTERS_OPT_IN,
};
use std::net::IpAddr;

/// The installer's VIP rules: both kinds or neither, one address or two (an IPv4 and an IPv6
/// one), and the API's apart from the ingress'; on a dual-stack cluster the pair in the order
/// the release takes it. A VIP outside every machine network is only a warning, as the
/// installer checks none: the nodes cannot hold it, so the cluster will not come up.
pub(crate) fn settle_vips(
    loaded: &LoadedConfig,
    vsphere: &mut VSpherePlatform,
    networks: &crate::model::Networks,
    switches: &Switches,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let machine_networks = networks.machine.as_slice();
    let api = format!("{AT}.apiVIPs");
    let ingress = format!("{AT}.ingressVIPs");
    let both = "give both, or neither when a load balancer of your own serves the API and ingress";
    match (vsphere.api_vips.is_empty(), vsphere.ingress_vips.is_empty()) {
        (true, true) => return Ok(()),
        (false, true) => {
            return Err(loaded.field_error(&ingress, format!("is required with apiVIPs: {both}")))
        }
        (true, false) => {
            return Err(loaded.field_error(&api, format!("is required with ingressVIPs: {both}")))
        }
        (false, false) => {}
    }
    for (field, vips) in [(&api, &vsphere.api_vips), (&ingress, &vsphere.ingress_vips)] {
        if vips.len() > 2 {
            return Err(loaded.field_error(
                field,
                "takes one address, or two (one IPv4 and one IPv6) on a dual-stack cluster",
            ));
        }
        let ips: Vec<IpAddr> = vips.iter().filter_map(|v| v.parse().ok()).collect();
        if let [a, b] = ips.as_slice() {
            if a.is_ipv4() == b.is_ipv4() {
                return Err(loaded.field_error(
                    &format!("{field}.1"),
                    "must be of the other IP family than the first: a dual-stack cluster has one \
                     IPv4 and one IPv6 VIP",
                ));
            }
        }
        for (i, ip) in ips.iter().enumerate() {
            if !machine_networks.iter().any(|n| n.contains(ip)) {
                let networks: Vec<String> =
                    machine_networks.iter().map(ToString::to_string).collect();
                warnings.push(loaded.warning(
                    &format!("{field}.{i}"),
                    format!(
                        "`{ip}` is outside every machine network ({}): the control-plane nodes \
                         cannot hold it",
                        networks.join(", ")
                    ),
                ));
            }
        }
    }
    for (i, vip) in vsphere.api_vips.iter().enumerate() {
        if vsphere.ingress_vips.contains(vip) {
            return Err(loaded.field_error(
                &format!("{api}.{i}"),
                format!(
                    "`{vip}` is also an ingress VIP: the API and ingress need their own addresses"
                ),
            ));
        }
    }
    if switches.has(Switch::VipsReorderedIpv4First) {
        for vips in [&mut vsphere.api_vips, &mut vsphere.ingress_vips] {
            if let [first, second] = vips.as_mut_slice() {
                if is_ipv6(first) && !is_ipv6(second) {
                    std::mem::swap(first, second);
                }
            }
        }
    }
    if switches.has(Switch::VipFamilyMatchesNetworks) {
        for (field, vips) in [(&api, &vsphere.api_vips), (&ingress, &vsphere.ingress_vips)] {
            check_primary_family(loaded, field, vips, networks)?;
        }
    }
    Ok(())
}

fn is_ipv6(address: &str) -> bool {
    address.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6())
}

/// On a dual-stack cluster, the first VIP is of the family each network list gives first.
fn check_primary_family(
    loaded: &LoadedConfig,
    field: &str,
    vips: &[String],
    networks: &crate::model::Networks,
) -> Result<()> {
    let Some(first) = vips.first() else {
        return Ok(());
    };
    let lists: [(&str, Vec<bool>); 3] = [
        (
            "clusterNetwork",
            networks
                .cluster
                .iter()
                .map(|c| c.cidr.addr().is_ipv6())
                .collect(),
        ),
        (
            "machineNetwork",
            networks
                .machine
                .iter()
                .map(|n| n.addr().is_ipv6())
                .collect(),
        ),
        (
            "serviceNetwork",
            networks
                .service
                .iter()
                .map(|n| n.addr().is_ipv6())
                .collect(),
        ),
    ];
    let families: Vec<bool> = lists
        .iter()
        .flat_map(|(_, v6)| v6.iter().copied())
        .collect();
    let dual_stack = families.contains(&true) && families.contains(&false);
    let family = |v6: bool| if v6 { "IPv6" } else { "IPv4" };
    let vip_v6 = is_ipv6(first);
    for (list, v6) in &lists {
        match v6.first() {
            Some(primary) if dual_stack && *primary != vip_v6 => {
                return Err(loaded.field_error(
                    &format!("{field}.0"),
                    format!(
                        "`{first}` is {}, but networking.{list} lists {} first: a dual-stack \
                         cluster's first VIP is of its primary family; list the {} VIP first",
                        family(vip_v6),
                        family(*primary),
                        family(*primary)
                    ),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// vSphere runs amd64 machines only: RHCOS has no vSphere image for other architectures.
pub(crate) fn check_architectures(
    loaded: &LoadedConfig,
    control_plane: &crate::model::Pool,
    compute: &[crate::model::Pool],
) -> Result<()> {
    let pools = std::iter::once(("controlPlane".to_string(), control_plane)).chain(
        compute
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("compute.{i}"), p)),
    );
    for (at, pool) in pools {
        if pool.architecture != crate::model::Arch::Amd64 && pool.replicas > 0 {
            return Err(loaded.field_error(
                &format!("{at}.architecture"),
                format!(
                    "`{}`: vSphere machines are amd64 only (RHCOS has no vSphere image for {})",
                    pool.architecture, pool.architecture
                ),
            ));
        }
    }
    Ok(())
}

/// More than one vCenter, or more than one network in a failure domain, as the release's
/// installer takes them: refused outright (one vCenter until 4.16, one network per failure
/// domain in 4.16 and 4.17), or taken only with the cluster's feature gate on
/// (`VSphereMultiVCenters` in 4.17 and 4.18, `VSphereMultiNetworks` from 4.18: the release
/// table's opt-ins say which feature sets turn each on, so a CustomNoUpgrade cluster must list
/// it), with at most ten networks from 4.19.
pub(crate) fn check_multiples(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    profile: &Profile,
    switches: &Switches,
    feature_set: &str,
    custom_gates: &CustomFeatureGates,
) -> Result<()> {
    // Whether the feature gate behind `opt_in` is on; `Err`: how to turn it on.
    let gate = |opt_in: &str| match profile.opt_ins.iter().find(|o| o.name == opt_in) {
        Some(o) if o.chosen_by(feature_set, &custom_gates.enabled) => Ok(()),
        Some(o) if feature_set == CUSTOM_FEATURE_SET => Err(format!(
            "the {0} feature gate on, which featureGates leaves off: add {0}=true",
            o.feature_gates.join(" or ")
        )),
        Some(o) => Err(format!(
            "the {} feature gate on, which this feature set leaves off: set {}",
            o.feature_gates.join(" or "),
            o.chosen_with()
        )),
        None => Err(format!(
            "a feature gate this release does not have ({opt_in})"
        )),
    };
    // The first release that takes several, from the release table.
    let first_taking = |switch: Switch| {
        let vsphere = crate::release::Dimensions {
            platform: crate::release::Platform::VSphere,
            ..Default::default()
        };
        crate::release::first_release(|p| p.switches(vsphere).has(switch)).map_or_else(
            || "a later release".to_string(),
            |m| format!("OpenShift {m} or later"),
        )
    };
    let vcenters = vsphere.vcenters.len();
    if vcenters > 1 {
        let field = format!("{AT}.vcenters");
        if switches.has(Switch::VsphereOneVcenter) {
            return Err(loaded.field_error(
                &field,
                format!("lists {vcenters} vCenters, and this release's installer takes one: list one, or choose {}", first_taking(Switch::VsphereMultiVcentersGated)),
            ));
        }
        if switches.has(Switch::VsphereMultiVcentersGated) {
            if let Err(how) = gate(VSPHERE_MULTI_VCENTERS_OPT_IN) {
                return Err(loaded.field_error(
                    &field,
                    format!("lists {vcenters} vCenters, which this release's installer takes only with {how}"),
                ));
            }
        }
    }
    for (i, domain) in vsphere.failure_domains.iter().enumerate() {
        let networks = domain.topology.networks.len();
        let field = format!("{AT}.failureDomains[{i}].topology.networks");
        if networks > 1 && switches.has(Switch::VsphereOneNetwork) {
            return Err(loaded.field_error(
                &field,
                format!("lists {networks} networks, and this release's installer takes one a failure domain: list one, or choose {}", first_taking(Switch::VsphereMultiNetworksGated)),
            ));
        }
        if networks > 1 && switches.has(Switch::VsphereMultiNetworksGated) {
            if let Err(how) = gate(VSPHERE_MULTI_NETWORKS_OPT_IN) {
                return Err(loaded.field_error(
                    &field,
                    format!("lists {networks} networks, which this release's installer takes only with {how}"),
                ));
            }
        }
        if networks > MAX_NETWORKS && switches.has(Switch::VsphereMultiNetworks) {
            return Err(loaded.field_error(
                &field,
                format!("lists {networks} networks; a machine takes at most {MAX_NETWORKS}"),
            ));
        }
    }
    Ok(())
}

/// The installer's checks between failure domains, each where the release's installer makes it
/// (switches): a name used once, a zone used once within its region, and the topology's
/// datacenter one its vCenter lists.
pub(crate) fn check_failure_domains(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    switches: &Switches,
) -> Result<()> {
    let domains = &vsphere.failure_domains;
    for (i, domain) in domains.iter().enumerate() {
        let at = format!("{AT}.failureDomains.{i}");
        let earlier = &domains[..i];
        if switches.has(Switch::VsphereDomainNamesOnce)
            && earlier.iter().any(|d| d.name == domain.name)
        {
            return Err(loaded.field_error(
                &format!("{at}.name"),
                format!(
                    "`{}` names an earlier failure domain too: give each failure domain its own name",
                    domain.name
                ),
            ));
        }
        // The installer compares a zone with the region of its first failure domain only.
        let first_with_zone = earlier.iter().find(|d| d.zone == domain.zone);
        if switches.has(Switch::VsphereZoneOncePerRegion)
            && first_with_zone.is_some_and(|d| d.region == domain.region)
        {
            return Err(loaded.field_error(
                &format!("{at}.zone"),
                format!(
                    "`{}` is a zone of region `{}` in an earlier failure domain too: a zone is used once in its region",
                    domain.zone, domain.region
                ),
            ));
        }
        let vcenter = vsphere.vcenters.iter().find(|v| v.server == domain.server);
        let datacenter = &domain.topology.datacenter;
        if let Some(vcenter) = vcenter.filter(|v| !v.datacenters.contains(datacenter)) {
            if switches.has(Switch::VsphereDatacenterListed) {
                return Err(loaded.field_error(
                    &format!("{at}.topology.datacenter"),
                    format!(
                        "`{datacenter}` is not one of vCenter {}'s datacenters ({}): add it there, or name one of those",
                        vcenter.server,
                        vcenter.datacenters.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A vCenter reached by an IPv6 address, refused where the release's installer cannot parse it
/// (switch): from 5.0 it reads `https://` and the server as a URL under Go's rule that a host of
/// several colons must be bracketed, and every installer refuses the brackets.
pub(crate) fn check_vcenter_servers(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    switches: &Switches,
) -> Result<()> {
    if !switches.has(Switch::VsphereServerIpv6Refused) {
        return Ok(());
    }
    let single = vsphere.single_vcenter_fields.iter().any(|f| f == "vCenter");
    for (i, vcenter) in vsphere.vcenters.iter().enumerate() {
        if vcenter.server.contains(':') {
            let field = match single {
                true => format!("{AT}.vCenter"),
                false => format!("{AT}.vcenters.{i}.server"),
            };
            return Err(loaded.field_error(
                &field,
                format!(
                    "`{}`: this release's installer cannot reach a vCenter by an IPv6 address (it reads `https://{}` as a host and a port, and takes no brackets): give the vCenter's host name",
                    vcenter.server, vcenter.server
                ),
            ));
        }
    }
    Ok(())
}

/// The networks a failure domain may list where several are allowed.
const MAX_NETWORKS: usize = 10;

/// The single-vCenter `cluster` and `network`, which machines the user makes may do without
/// (the installer's "legacy UPI"): installers from 4.13 (`vsphere_failure_domains`) take both,
/// neither, or a cluster alone (its failure domain then has an empty network), and refuse a
/// network without a cluster; earlier ones take any of them.
pub(crate) fn check_legacy_placement(
    loaded: &LoadedConfig,
    vsphere: &VSpherePlatform,
    switches: &Switches,
) -> Result<()> {
    if !switches.has(Switch::VsphereFailureDomains) {
        return Ok(());
    }
    // Only a failure domain made from the single-vCenter fields can lack a compute cluster.
    let network_without_cluster = vsphere
        .failure_domains
        .iter()
        .any(|fd| fd.topology.compute_cluster.is_empty() && !fd.topology.networks.is_empty());
    if network_without_cluster {
        return Err(loaded.field_error(
            &format!("{AT}.cluster"),
            format!("is required with `network` by this release's installer (which reports it as {AT}.failureDomains.topology.computeCluster, of the failure domain it makes from these fields): name the compute cluster, or leave out both for machines you make yourself"),
        ));
    }
    Ok(())
}

/// The single-vCenter `folder` and `resourcePool` as installers until 4.12 take them: absolute
/// paths under the datacenter (`/DC/vm/...`) and the cluster (`/DC/host/CLUSTER/Resources/...`).
/// Later installers join a bare name into that path, as bootgen reads it; these refused it.
pub(crate) fn check_legacy_paths(loaded: &LoadedConfig, switches: &Switches) -> Result<()> {
    if !switches.has(Switch::VsphereLegacyPathsAbsolute) {
        return Ok(());
    }
    let vsphere = loaded
        .config
        .platform
        .as_ref()
        .and_then(|p| p.get("vsphere"))
        .and_then(|v| v.as_object());
    let text = |key: &str| {
        vsphere
            .and_then(|v| v.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or_default()
    };
    let (datacenter, cluster) = (text("datacenter"), text("cluster"));
    for (key, prefix) in [
        ("folder", format!("/{datacenter}/vm/")),
        (
            "resourcePool",
            format!("/{datacenter}/host/{cluster}/Resources/"),
        ),
    ] {
        let value = text(key);
        if !value.is_empty() && !value.starts_with(&prefix) {
            return Err(loaded.field_error(
                &format!("{AT}.{key}"),
                format!("`{value}` is not an absolute path under {prefix}, which this release's installer requires: write {prefix}..."),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::model::model_with_warnings;

    /// The vCenter and failure domain, in the form every release from 4.13 reads.
    const PLACEMENT: &str = "    vcenters:
    - {server: vc.example.com, user: u, password: p, datacenters: [dc1]}
    failureDomains:
    - {name: fd1, region: r, zone: z1, server: vc.example.com, topology: {datacenter: dc1, computeCluster: /dc1/host/c1, networks: [n], datastore: /dc1/datastore/d1}}
";

    /// The same in the single-vCenter form, which 4.12 reads.
    const PLACEMENT_4_12: &str = "    vCenter: vc.example.com
    username: u
    password: p
    datacenter: dc1
    defaultDatastore: d1
    cluster: c1
    network: n
";

    /// A dual-stack vSphere cluster, IPv4 first in every network list, with its VIPs as given.
    fn dual_stack(api: &str, ingress: &str, version: &str) -> String {
        let placement = if version.starts_with("4.12.") {
            PLACEMENT_4_12
        } else {
            PLACEMENT
        };
        format!(
            "apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
networking:
  networkType: OVNKubernetes
  clusterNetwork:
  - cidr: 10.128.0.0/14
    hostPrefix: 23
  - cidr: fd01::/48
    hostPrefix: 64
  serviceNetwork: [172.30.0.0/16, fd02::/112]
  machineNetwork:
  - cidr: 192.0.2.0/24
  - cidr: 2001:db8::/64
platform:
  vsphere:
    apiVIPs: {api}
    ingressVIPs: {ingress}
{placement}pullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'
"
        )
    }

    /// Two networks in a failure domain need the VSphereMultiNetworks gate from 4.18: on in the
    /// preview sets (4.18) and the default one (4.19 on), but with CustomNoUpgrade only when
    /// featureGates lists it, as the installer decides.
    #[test]
    fn two_networks_need_the_gate_a_custom_feature_set_must_list() {
        let config = |tail: &str| {
            format!(
                "apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
platform:
  vsphere:
{}pullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'
{tail}",
                PLACEMENT.replace("networks: [n]", "networks: [n, m]")
            )
        };
        let decide = |version: &str, tail: &str| model_with_warnings(&config(tail), version).err();
        let custom = "featureSet: CustomNoUpgrade\n";
        for version in ["4.19.0", "4.22.0", "5.0.0"] {
            assert_eq!(decide(version, ""), None, "{version}");
            let with_gate = format!("{custom}featureGates: [VSphereMultiNetworks=true]\n");
            assert_eq!(decide(version, &with_gate), None, "{version}");
            let refused = decide(version, custom).unwrap();
            assert!(
                refused.contains("`platform.vsphere.failureDomains[0].topology.networks`")
                    && refused.contains("add VSphereMultiNetworks=true"),
                "{version}: {refused}"
            );
        }
        let refused = decide("4.18.0", "").unwrap();
        assert!(
            refused.contains("set featureSet TechPreviewNoUpgrade or DevPreviewNoUpgrade"),
            "{refused}"
        );
    }

    const V6_FIRST: (&str, &str) = ("[2001:db8::5, 192.0.2.5]", "[2001:db8::6, 192.0.2.6]");

    /// 4.12's and 4.13's installers put a pair written IPv6 first IPv4 first; 4.14 to 4.19
    /// keep it as written; from 4.20 it is refused, as the networks are IPv4 first.
    #[test]
    fn a_dual_stack_pair_follows_the_primary_family_as_each_release_does() {
        let text = |version: &str| dual_stack(V6_FIRST.0, V6_FIRST.1, version);
        let vips = |version: &str| {
            let (model, _) = model_with_warnings(&text(version), version).unwrap();
            (
                model.platform.api_vips().to_vec(),
                model.platform.ingress_vips().to_vec(),
            )
        };
        for version in ["4.12.0", "4.13.0"] {
            let (api, ingress) = vips(version);
            assert_eq!(api, ["192.0.2.5", "2001:db8::5"], "{version}");
            assert_eq!(ingress, ["192.0.2.6", "2001:db8::6"], "{version}");
            let (model, _) = model_with_warnings(&text(version), version).unwrap();
            assert!(
                model
                    .stored_install_config
                    .contains("apiVIPs:\n    - 192.0.2.5\n    - 2001:db8::5"),
                "{}",
                model.stored_install_config
            );
        }
        for version in ["4.14.0", "4.19.0"] {
            assert_eq!(vips(version).0, ["2001:db8::5", "192.0.2.5"], "{version}");
        }
        for version in ["4.20.0", "4.22.0", "5.0.0"] {
            let refused = model_with_warnings(&text(version), version).err().unwrap();
            assert!(
                refused.contains("`platform.vsphere.apiVIPs[0]`")
                    && refused.contains(
                        "`2001:db8::5` is IPv6, but networking.clusterNetwork lists IPv4 first"
                    )
                    && refused.contains("list the IPv4 VIP first"),
                "{version}: {refused}"
            );
        }
        // IPv4 first, as the networks: taken by every release, as written.
        for version in ["4.12.0", "4.16.0", "4.22.0"] {
            let v4_first = dual_stack(
                "[192.0.2.5, 2001:db8::5]",
                "[192.0.2.6, 2001:db8::6]",
                version,
            );
            let (model, _) = model_with_warnings(&v4_first, version).unwrap();
            assert_eq!(model.platform.api_vips(), ["192.0.2.5", "2001:db8::5"]);
        }
        // The ingress pair is held to the same rule.
        let ingress_only = dual_stack("[192.0.2.5, 2001:db8::5]", V6_FIRST.1, "4.22.0");
        let refused = model_with_warnings(&ingress_only, "4.22.0").err().unwrap();
        assert!(
            refused.contains("`platform.vsphere.ingressVIPs[0]`"),
            "{refused}"
        );
    }

    /// 4.13's installer does not know a failure domain's template: it warns, and names its own.
    #[test]
    fn a_template_is_ignored_where_the_release_does_not_know_it() {
        let text = crate::model::MINIMAL_INSTALL_CONFIG.replace(
            "platform:\n  none: {}\n",
            &format!(
                "platform:\n  vsphere:\n{}",
                PLACEMENT.replace(
                    "datastore: /dc1/datastore/d1}",
                    "datastore: /dc1/datastore/d1, template: /dc1/vm/my-rhcos}"
                )
            ),
        );
        let (model, warnings) = model_with_warnings(&text, "4.13.0").unwrap();
        let vsphere = model.platform.vsphere().unwrap();
        assert_eq!(vsphere.failure_domains[0].topology.template, "");
        assert!(!model.stored_install_config.contains("my-rhcos"));
        assert!(
            warnings.iter().any(|w| w
                .contains("platform.vsphere.failureDomains[0].topology.template")
                && w.contains("does not know this field (it arrived in 4.14)")),
            "{warnings:?}"
        );
        let (model, warnings) = model_with_warnings(&text, "4.14.0").unwrap();
        let vsphere = model.platform.vsphere().unwrap();
        assert_eq!(
            vsphere.failure_domains[0].topology.template,
            "/dc1/vm/my-rhcos"
        );
        assert!(model
            .stored_install_config
            .contains("template: /dc1/vm/my-rhcos"));
        assert!(
            !warnings.iter().any(|w| w.contains("template")),
            "{warnings:?}"
        );
    }

    /// Refusals that hold on every platform bootgen makes name the cluster's platform.
    #[test]
    fn platform_refusals_name_the_platform_written() {
        let vsphere = crate::model::MINIMAL_INSTALL_CONFIG.replace(
            "platform:\n  none: {}\n",
            &format!("platform:\n  vsphere:\n{PLACEMENT}"),
        );
        let publish = model_with_warnings(&format!("{vsphere}publish: Internal\n"), "4.22.0")
            .err()
            .unwrap();
        assert!(
            publish.contains("`Internal` is not supported on platform vsphere"),
            "{publish}"
        );
        let edge = model_with_warnings(
            &format!("{vsphere}compute:\n- name: edge\n  replicas: 1\n"),
            "4.22.0",
        )
        .err()
        .unwrap();
        assert!(edge.contains("not on platform vsphere"), "{edge}");
    }
}

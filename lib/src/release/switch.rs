//! The release table's switches, as a type: a row that names a switch the code does not know
//! fails when the table loads, and code can only ask about switches that exist.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Declares [`Switch`] and the list of every switch from one list of names.
macro_rules! switches {
    ($($variant:ident => $name:literal),+ $(,)?) => {
        /// A switch of the release table (`[[switch]]` rows): something a node has from or up
        /// to a release, in some flows, platforms or distributions.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[non_exhaustive]
        pub enum Switch {
            $(
                #[doc = concat!("`", $name, "` (see `releases.toml`).")]
                #[serde(rename = $name)]
                $variant,
            )+
        }

        impl Switch {
            /// Every switch, in declaration order.
            pub const ALL: &'static [Switch] = &[$(Switch::$variant),+];

            /// The name rows and templates use (`release.switches.<name>`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Switch::$variant => $name,)+
                }
            }
        }
    };
}

switches! {
    ReleaseInfo => "release_info",
    KubernetesVersion => "kubernetes_version",
    ImageReferences => "image_references",
    ConfigManifests => "config_manifests",
    FeatureSetFlag => "feature_set_flag",
    PodmanLogDriver => "podman_log_driver",
    NodeImageOverlay => "node_image_overlay",
    KubeletInHyperkube => "kubelet_in_hyperkube",
    KubeletContainerRuntimeRemote => "kubelet_container_runtime_remote",
    KubeletPodInfraImage => "kubelet_pod_infra_image",
    UserDataSecrets => "user_data_secrets",
    CvoOverrides => "cvo_overrides",
    IngressDefaultPlacement => "ingress_default_placement",
    UserCaBundleOwner => "user_ca_bundle_owner",
    HostcryptBypassAnnotation => "hostcrypt_bypass_annotation",
    MetadataFeatureSet => "metadata_feature_set",
    InstallConfigDigestSources => "install_config_digest_sources",
    InstallConfigSourcePolicy => "install_config_source_policy",
    NoProxyAddresses => "no_proxy_addresses",
    VipsReorderedIpv4First => "vips_reordered_ipv4_first",
    VipFamilyMatchesNetworks => "vip_family_matches_networks",
    SmtEnabledOffArgument => "smt_enabled_off_argument",
    RegistriesConfBlockedLine => "registries_conf_blocked_line",
    MirrorBareHost => "mirror_bare_host",
    CpuPartitioningStatus => "cpu_partitioning_status",
    ApiUrlChecks => "api_url_checks",
    WaitForHaApi => "wait_for_ha_api",
    DefaultNetworkOvn => "default_network_ovn",
    TrustBundlePolicy => "trust_bundle_policy",
    UnknownFieldsRefused => "unknown_fields_refused",
    MultiArchPayload => "multi_arch_payload",
    ImageDigestMirrorSet => "image_digest_mirror_set",
    NetworkCrd => "network_crd",
    NetworkCrdMtuMigration => "network_crd_mtu_migration",
    NamespaceManifests => "namespace_manifests",
    McsCa => "mcs_ca",
    McsTlsOwner => "mcs_tls_owner",
    GodebugX509Cn => "godebug_x509_cn",
    Pivot => "pivot",
    PivotScript => "pivot_script",
    OkdPivot => "okd_pivot",
    OkdPivotFromOtherOs => "okd_pivot_from_other_os",
    OkdPivotBeforeKubelet => "okd_pivot_before_kubelet",
    OkdPivotHoldsKubelet => "okd_pivot_holds_kubelet",
    NodeImageTmpfs => "node_image_tmpfs",
    VarTmpfsOptOut => "var_tmpfs_opt_out",
    CustomFeatureGates => "custom_feature_gates",
    Konnectivity => "konnectivity",
    InstallCopyNetwork => "install_copy_network",
    SingleNodeWorkerConfig => "single_node_worker_config",
    BootstrapCompleteConfigmap => "bootstrap_complete_configmap",
    ReleaseBootstrapLeases => "release_bootstrap_leases",
    EtcdMemberDir => "etcd_member_dir",
    ExternalPlatform => "external_platform",
    ExternalCcmFromInstallConfig => "external_ccm_from_install_config",
    VsphereFailureDomains => "vsphere_failure_domains",
    VsphereTemplate => "vsphere_template",
    VsphereLoadBalancer => "vsphere_load_balancer",
    VsphereLoadBalancerNeedsTechPreview => "vsphere_load_balancer_needs_tech_preview",
    VsphereFailureDomainTypes => "vsphere_failure_domain_types",
    VspherePathsCleaned => "vsphere_paths_cleaned",
    VspherePlatformSpec => "vsphere_platform_spec",
    VsphereComputeSizeOfControlPlane => "vsphere_compute_size_of_control_plane",
    VspherePoolCoresRule => "vsphere_pool_cores_rule",
    VspherePoolZones => "vsphere_pool_zones",
    VspherePoolDataDisks => "vsphere_pool_data_disks",
    VspherePoolDataDisksStoredNull => "vsphere_pool_data_disks_stored_null",
    VsphereProviderSpecMachineApi => "vsphere_provider_spec_machine_api",
    ClusterConfigDescription => "cluster_config_description",
    VsphereVipLists => "vsphere_vip_lists",
    VsphereFailureDomainTemplatePath => "vsphere_failure_domain_template_path",
    VsphereInfrastructureNetworks => "vsphere_infrastructure_networks",
    VsphereResourcePoolDoubleSlash => "vsphere_resource_pool_double_slash",
    MetadataVsphereVcenters => "metadata_vsphere_vcenters",
    VsphereVipsInMachineNetworks => "vsphere_vips_in_machine_networks",
    VsphereNodeNetworking => "vsphere_node_networking",
    VsphereStatusDnsRecordsType => "vsphere_status_dns_records_type",
    VsphereDnsRecordsTypeDefault => "vsphere_dns_records_type_default",
    VsphereTemplatePerFailureDomain => "vsphere_template_per_failure_domain",
    VsphereCloudConfigYaml => "vsphere_cloud_config_yaml",
    VsphereCloudConfigCompact => "vsphere_cloud_config_compact",
    VsphereCloudConfigNodes => "vsphere_cloud_config_nodes",
    VsphereControlPlaneMachineSet => "vsphere_control_plane_machine_set",
    VsphereOneVcenter => "vsphere_one_vcenter",
    VsphereLegacyPathsAbsolute => "vsphere_legacy_paths_absolute",
    VsphereMultiVcentersGated => "vsphere_multi_vcenters_gated",
    VsphereOneNetwork => "vsphere_one_network",
    VsphereMultiNetworksGated => "vsphere_multi_networks_gated",
    VsphereMultiNetworks => "vsphere_multi_networks",
    KubeletClientAllServiceAccounts => "kubelet_client_all_service_accounts",
    ShortCertRotationTwoHours => "short_cert_rotation_two_hours",
    NoOpenshiftSdn => "no_openshift_sdn",
    NoKuryr => "no_kuryr",
    SingleNodeOvn => "single_node_ovn",
    MarketplaceNeedsOlmWithNone => "marketplace_needs_olm_with_none",
    MarketplaceNeedsOlm => "marketplace_needs_olm",
    IngressCapabilityRequired => "ingress_capability_required",
    CloudCredentialCapabilityNeeded => "cloud_credential_capability_needed",
    CloudControllerManagerCapabilityNeeded => "cloud_controller_manager_capability_needed",
    OneMirrorList => "one_mirror_list",
    SshKeyLinesEachAKey => "ssh_key_lines_each_a_key",
    Ipv4FirstInDualStack => "ipv4_first_in_dual_stack",
    TwoNodesNeedFencing => "two_nodes_need_fencing",
    OneIpv4HostPrefix => "one_ipv4_host_prefix",
    OvnInternalSubnets => "ovn_internal_subnets",
    SingleReplicaNeedsBootstrapInPlace => "single_replica_needs_bootstrap_in_place",
    SingleReplicaRefused => "single_replica_refused",
    VsphereDomainNamesOnce => "vsphere_domain_names_once",
    VspherePoolZonesOnce => "vsphere_pool_zones_once",
    VsphereServerIpv6Refused => "vsphere_server_ipv6_refused",
    VsphereZoneOncePerRegion => "vsphere_zone_once_per_region",
    VsphereDatacenterListed => "vsphere_datacenter_listed",
    CpuPartitioningMode => "cpu_partitioning_mode",
    CpuPartitioningNeedsTechPreview => "cpu_partitioning_needs_tech_preview",
    OvnKubernetesConfig => "ovn_kubernetes_config",
    InstallConfigPki => "install_config_pki",
}

impl std::fmt::Display for Switch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The switches that are on for one node (a release in one flow, platform and distribution).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Switches(BTreeSet<Switch>);

impl Switches {
    /// Whether `switch` is on.
    pub fn has(&self, switch: Switch) -> bool {
        self.0.contains(&switch)
    }

    pub(crate) fn insert(&mut self, switch: Switch) {
        self.0.insert(switch);
    }

    /// Every switch by name, on or off: the form templates read (`release.switches.<name>`),
    /// where a misspelt name is an undefined variable rather than a silent `false`.
    pub fn by_name(&self) -> std::collections::BTreeMap<&'static str, bool> {
        Switch::ALL
            .iter()
            .map(|f| (f.name(), self.has(*f)))
            .collect()
    }
}

impl Serialize for Switches {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.by_name().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for switch in Switch::ALL {
            let text = format!("\"{}\"", switch.name());
            let back: Switch = serde_json::from_str(&text).unwrap();
            assert_eq!(back, *switch);
        }
        assert!(serde_json::from_str::<Switch>("\"no_such_switch\"").is_err());
    }
}

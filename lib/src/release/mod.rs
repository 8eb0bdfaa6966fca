//! OpenShift releases: versions, and the profile of what each minor's bootstrap node gets.
//!
//! ```
//! use bootgen::release::{select, Minor};
//!
//! let chosen = select(None, Some("quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64"))?;
//! assert_eq!(chosen.profile.minor, Minor::new(4, 16));
//! // 4.16 renders the cluster-config API, but not yet the authentication API.
//! assert!(chosen.profile.stage("api-bootstrap").is_some());
//! assert!(chosen.profile.stage("auth-api-bootstrap").is_none());
//! # Ok::<(), bootgen::Error>(())
//! ```

mod compare;
mod dimensions;
mod node_profile;
mod payload;
mod profile;
mod reference;
mod select;
mod switch;
mod table;
mod version;

pub use compare::{compare, ReleaseDiff};
pub use dimensions::{
    Condition, Dimensions, Distribution, Each, Flow, NodeFile, NodeUnit, Order, Platform,
};
pub use node_profile::NodeProfile;
pub use payload::{distribution_of_reference, is_fedora_okd};
pub(crate) use profile::feature_set_label;
pub use profile::{
    check_table, per_item_row, profile_for, profile_for_patch, z_stream_profiles, Capability,
    CapabilitySet, DistributionFacts, ImageName, OptIn, Profile, Stage, CONFIGURABLE_PKI_OPT_IN,
    CUSTOM_FEATURE_SET, OS_STREAMS_OPT_IN, PROFILES, SHORT_CERT_ROTATION_OPT_IN,
    VSPHERE_MULTI_NETWORKS_OPT_IN, VSPHERE_MULTI_VCENTERS_OPT_IN,
};
pub use reference::{check_registry_host, check_repository, without_credentials, PullSpec};
pub use select::{
    default_minor, first_release, first_with, select, supported_list, SelectedRelease,
};
pub use switch::{Switch, Switches};
pub use version::{version_of_reference, Minor, ReleaseVersion};

//! `additionalTrustBundle` and `additionalTrustBundlePolicy`: the CA certificates the cluster
//! trusts besides its own, and which of its components trust them.

use super::{fields, unknown_fields};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{first_with, Profile, Switch, Switches};
use serde::Serialize;

/// `additionalTrustBundlePolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum TrustBundlePolicy {
    /// Only the proxy's clients trust the bundle (the default).
    #[default]
    Proxyonly,
    /// Every component does.
    Always,
}

impl TrustBundlePolicy {
    /// The install-config's word for it, e.g. `Proxyonly`.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustBundlePolicy::Proxyonly => "Proxyonly",
            TrustBundlePolicy::Always => "Always",
        }
    }
}

/// The additional trust bundle, checked.
pub(crate) struct TrustBundle {
    /// The PEM certificates, as written; empty when none.
    pub pem: String,
    /// Who trusts them.
    pub policy: TrustBundlePolicy,
}

impl TrustBundle {
    /// Reads and checks the bundle and its policy; a release whose installer does not know the
    /// policy ignores it, with a warning.
    pub(crate) fn read(
        loaded: &LoadedConfig,
        profile: &Profile,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<TrustBundle> {
        let ic = &loaded.config;
        let pem = ic.additional_trust_bundle.clone().unwrap_or_default();
        if !pem.trim().is_empty() {
            fields::check_trust_bundle(&pem)
                .map_err(|m| loaded.field_error("additionalTrustBundle", m))?;
        }
        let known = switches.has(Switch::TrustBundlePolicy);
        if ic.additional_trust_bundle_policy.is_some() && !known {
            unknown_fields::ignored_by_release(
                loaded,
                profile.minor,
                &unknown_fields::NotInRelease {
                    field: "additionalTrustBundlePolicy",
                    arrived: first_with(Switch::TrustBundlePolicy),
                    consequence: "",
                },
                warnings,
            );
        }
        let written = ic
            .additional_trust_bundle_policy
            .as_deref()
            .filter(|_| known);
        let policy = match written {
            None | Some("Proxyonly") => TrustBundlePolicy::Proxyonly,
            Some("Always") => TrustBundlePolicy::Always,
            Some(other) => {
                return Err(loaded.field_error(
                    "additionalTrustBundlePolicy",
                    format!("`{other}` must be Proxyonly or Always"),
                ));
            }
        };
        Ok(TrustBundle { pem, policy })
    }
}

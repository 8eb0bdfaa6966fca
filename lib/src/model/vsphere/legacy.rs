//! The single-vCenter fields of installers before 4.13 (`vCenter`, `username`, `datacenter`,
//! `defaultDatastore`, ...), read as one vCenter and one failure domain.

use super::written::{
    Name, Port, Vip, Written, WrittenFailureDomain, WrittenTopology, WrittenVCenter,
};
use super::{AT, LEGACY_KEYS};
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::model::section::{List, Object, Text};

/// `platform.vsphere` in the `vcenters` form, as written or upconverted; not checked yet.
#[derive(Debug, Default)]
pub(super) struct Modern {
    pub vcenters: Vec<WrittenVCenter>,
    pub failure_domains: Vec<WrittenFailureDomain>,
    pub api_vips: Vec<Vip>,
    pub ingress_vips: Vec<Vip>,
}

/// `platform.vsphere` taken in the `vcenters` form.
pub(super) struct Upconverted {
    /// The settings in the `vcenters` form.
    pub settings: Modern,
    /// The single-vCenter fields that were written; empty for the `vcenters` form.
    pub written: Vec<String>,
    /// The one failure domain was made from the single-vCenter fields, which may leave out the
    /// compute cluster and network.
    pub generated_failure_domain: bool,
}

/// The items of a list written, or none.
fn items<T: Clone>(list: &Option<List<Object<T>>>) -> Vec<T> {
    list.iter()
        .flat_map(|l| l.0.iter().map(|o| o.0.clone()))
        .collect()
}

/// The settings in the `vcenters` form: as written, or with the single-vCenter fields read as
/// the installers of 4.13 on read them: a vCenter of their own when `vcenters` is not given
/// (port 443), a failure domain `generated-failure-domain` (region `generated-region`, zone
/// `generated-zone`) when `failureDomains` is not, names joined into paths under the
/// datacenter, and `apiVIP`/`ingressVIP` as one-address lists.
pub(super) fn upconvert_legacy(loaded: &LoadedConfig, written: &Written) -> Result<Upconverted> {
    let keys: Vec<&str> = LEGACY_KEYS
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| written.field(k).is_some())
        .collect();
    let mut modern = Modern {
        vcenters: items(&written.vcenters),
        failure_domains: items(&written.failure_domains),
        api_vips: written.api_vips.clone().unwrap_or_default().0,
        ingress_vips: written.ingress_vips.clone().unwrap_or_default().0,
    };
    if keys.is_empty() {
        return Ok(Upconverted {
            settings: modern,
            written: Vec::new(),
            generated_failure_domain: false,
        });
    }
    let field = |key: &str| written.legacy_text(key);
    let require = |key: &str, what: &str| {
        if field(key).is_empty() {
            return Err(loaded.field_error(&format!("{AT}.{key}"), format!("is required: {what}")));
        }
        Ok(())
    };
    let datacenter = field("datacenter");
    let generated_failure_domain = written.failure_domains.is_none();
    if written.vcenters.is_none() {
        for (key, what) in [
            ("vCenter", "the vCenter's host name"),
            ("username", "the user the cluster signs in as"),
            ("password", "that user's password"),
            ("datacenter", "the datacenter"),
        ] {
            require(key, what)?;
        }
        crate::model::fields::check_vcenter_host(&field("vCenter"), false)
            .map_err(|why| loaded.field_error(&format!("{AT}.vCenter"), why))?;
        modern.vcenters = vec![WrittenVCenter {
            server: Text(field("vCenter")),
            port: Port(443),
            user: Text(field("username")),
            password: Text(field("password")),
            datacenters: List::from(vec![Name(datacenter.clone())]),
        }];
    }
    if written.failure_domains.is_none() {
        let server = modern
            .vcenters
            .first()
            .map(|v| v.server.0.clone())
            .unwrap_or_default();
        let join = |key: &str, kind: &str| {
            let value = field(key);
            if value.is_empty() || value.starts_with('/') {
                value
            } else {
                format!("/{datacenter}/{kind}/{value}")
            }
        };
        // `cluster` and `network` may be left out for machines the user makes (the installer's
        // "legacy UPI"); `check_legacy_placement` holds a release to its rule for the two.
        for (key, what) in [
            ("datacenter", "the datacenter"),
            ("defaultDatastore", "the datastore"),
        ] {
            require(key, what)?;
        }
        let network = field("network");
        modern.failure_domains = vec![WrittenFailureDomain {
            name: Text("generated-failure-domain".into()),
            region: Text("generated-region".into()),
            zone: Text("generated-zone".into()),
            server: Text(server),
            topology: Object::from(WrittenTopology {
                datacenter: Text(datacenter.clone()),
                compute_cluster: Text(join("cluster", "host")),
                networks: List::from(if network.is_empty() {
                    Vec::new()
                } else {
                    vec![Name(network)]
                }),
                datastore: Text(join("defaultDatastore", "datastore")),
                resource_pool: Text(field("resourcePool")),
                folder: Text(join("folder", "vm")),
                template: Text::default(),
            }),
            ..WrittenFailureDomain::default()
        }];
    }
    for (vip, list, modern_list) in [
        ("apiVIP", &written.api_vips, &mut modern.api_vips),
        (
            "ingressVIP",
            &written.ingress_vips,
            &mut modern.ingress_vips,
        ),
    ] {
        let key = vip;
        let vip = field(key);
        match list {
            None if !vip.is_empty() => *modern_list = vec![Vip(vip)],
            // The installer refuses the two disagreeing (it would otherwise keep the list and
            // drop the address the user wrote alone).
            Some(listed) if !vip.is_empty() && !listed.0.iter().any(|v| v.0 == vip) => {
                return Err(loaded.field_error(
                    &format!("{AT}.{key}"),
                    format!("`{vip}` is not in {key}s, which replaces it: write the address in {key}s only, and leave {key} out"),
                ));
            }
            _ => {}
        }
    }
    Ok(Upconverted {
        settings: modern,
        written: keys.iter().map(|k| k.to_string()).collect(),
        generated_failure_domain,
    })
}

/// The warning for a release that takes the `vcenters` form (4.13 on): the single-vCenter
/// fields `written` are deprecated there, and what to write instead of each. Before 4.13 they
/// are the only form, and nothing is said.
pub(crate) fn deprecation_warning(loaded: &LoadedConfig, written: &[String]) -> Option<Warning> {
    let first = written.first()?;
    let instead: Vec<String> = written
        .iter()
        .filter_map(|k| LEGACY_KEYS.iter().find(|(l, _)| l == k))
        .map(|(k, instead)| format!("{k} → {instead}"))
        .collect();
    Some(loaded.warning(
        &format!("{AT}.{first}"),
        format!(
            "the single-vCenter fields are deprecated; read as the installer reads them ({})",
            instead.join(", ")
        ),
    ))
}

//! The install-config's top-level fields that stand alone: `apiVersion`, the cluster's name
//! and base domain, `publish`, the pull secret and the SSH key, each read with its field named
//! in a message.

use super::fields;
use crate::config::{LoadedConfig, Warning};
use crate::error::Result;
use crate::release::{Switch, Switches};

/// The `apiVersion`s the installer reads: `v1`, and the 2019 releases' `v1beta3` and `v1beta4`,
/// which it reads as `v1` (their deprecated fields are converted as in a `v1` document).
const API_VERSIONS: [&str; 3] = ["v1", "v1beta3", "v1beta4"];

/// `apiVersion`: one the installer reads.
pub(crate) fn check_api_version(loaded: &LoadedConfig) -> Result<()> {
    match loaded.config.api_version.as_deref() {
        Some(version) if API_VERSIONS.contains(&version) => Ok(()),
        None => Err(loaded.field_error(
            "apiVersion",
            "is required: begin the install-config with `apiVersion: v1`",
        )),
        Some(version) => Err(loaded.field_error(
            "apiVersion",
            format!(
                "`{version}` is not supported; use v1 (the installer also reads v1beta3 and \
                 v1beta4 as v1)"
            ),
        )),
    }
}

/// The cluster's name and base domain.
pub(crate) struct Names {
    /// `metadata.name`.
    pub cluster_name: String,
    /// `baseDomain`, without a trailing dot.
    pub base_domain: String,
}

impl Names {
    /// `metadata.name` and `baseDomain`, both required and checked.
    pub(crate) fn read(loaded: &LoadedConfig) -> Result<Names> {
        let cluster_name = required(
            loaded,
            loaded.config.metadata.name.as_deref(),
            "metadata.name",
            "the cluster name, e.g. `name: mycluster`",
        )?;
        fields::check_cluster_name(&cluster_name)
            .map_err(|m| loaded.field_error("metadata.name", m))?;
        let base_domain = required(
            loaded,
            loaded.config.base_domain.as_deref(),
            "baseDomain",
            "the DNS domain, e.g. `baseDomain: example.com`",
        )?;
        fields::check_domain(&base_domain).map_err(|m| loaded.field_error("baseDomain", m))?;
        let base_domain = base_domain.trim_end_matches('.').to_string();
        // The installer checks the cluster's domain as a whole: every name of the cluster
        // (api.<name>.<baseDomain>, ...) ends with it.
        let cluster_domain = format!("{cluster_name}.{base_domain}");
        if cluster_domain.len() > fields::MAX_DNS_NAME {
            return Err(loaded.field_error(
                "baseDomain",
                format!(
                    "the cluster's domain `{cluster_name}.{base_domain}` is {} characters, more than the {} a DNS name may have: choose a shorter baseDomain or metadata.name",
                    cluster_domain.len(),
                    fields::MAX_DNS_NAME
                ),
            ));
        }
        Ok(Names {
            cluster_name,
            base_domain,
        })
    }
}

/// What lets the cluster pull its images and a person log in.
pub(crate) struct Access {
    /// `pullSecret`, the registry credentials.
    pub pull_secret: String,
    /// `sshKey`, may be empty.
    pub ssh_key: String,
}

impl Access {
    /// `pullSecret` (required) and `sshKey` (a warning when missing), checked.
    pub(crate) fn read(
        loaded: &LoadedConfig,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<Access> {
        let pull_secret = loaded.config.pull_secret.clone().unwrap_or_default();
        if pull_secret.is_empty() {
            return Err(loaded.field_error(
                "pullSecret",
                "is required: the registry credentials JSON from console.redhat.com",
            ));
        }
        fields::check_pull_secret(&pull_secret).map_err(|m| loaded.field_error("pullSecret", m))?;
        let ssh_key = loaded.config.ssh_key.clone().unwrap_or_default();
        fields::check_ssh_key(&ssh_key).map_err(|m| loaded.field_error("sshKey", m))?;
        let comments = fields::ssh_comment_lines(&ssh_key);
        if comments > 0 && switches.has(Switch::SshKeyLinesEachAKey) {
            return Err(loaded.field_error(
                "sshKey",
                format!("has {comments} `#` comment line(s), which this release's installer refuses (it reads every line as a key): remove them"),
            ));
        }
        if loaded.config.fips == Some(true) {
            fields::check_fips_ssh_key(&ssh_key).map_err(|m| loaded.field_error("sshKey", m))?;
        }
        if ssh_key.trim().is_empty() {
            warnings.push(loaded.warning(
                "sshKey",
                "no SSH key: only the generated bootstrap key can log in",
            ));
        }
        Ok(Access {
            pull_secret,
            ssh_key,
        })
    }
}

fn required(loaded: &LoadedConfig, value: Option<&str>, field: &str, what: &str) -> Result<String> {
    match value.map(str::trim) {
        Some(v) if !v.is_empty() => Ok(v.to_string()),
        _ => Err(loaded.field_error(field, format!("is required: {what}"))),
    }
}

/// `publish`: External, the installer's default and the only strategy platforms none, vSphere
/// and external have (the installer refuses Internal and Mixed there: they need a cloud's
/// private load balancers).
pub(crate) fn check_publish(
    loaded: &LoadedConfig,
    platform: crate::release::Platform,
) -> Result<()> {
    match loaded.config.publish.as_deref() {
        None | Some("External") => Ok(()),
        Some(strategy @ ("Internal" | "Mixed")) => Err(loaded.field_error(
            "publish",
            format!(
                "`{strategy}` is not supported on platform {} (it needs a cloud's private load balancers): write `publish: External` or leave it out",
                platform.name()
            ),
        )),
        Some(other) => Err(loaded.field_error(
            "publish",
            format!("`{other}` is not a publishing strategy: write `External` (or leave it out)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    /// A 2019 document (`v1beta4`, `v1beta3`) is read as the same `v1` document, deprecated
    /// fields and all, and stored as `v1`, in the first release and the last; any other version
    /// is refused naming the field.
    #[test]
    fn v1beta_documents_are_read_as_v1() {
        let text = |version: &str| {
            format!(
                "apiVersion: {version}\nbaseDomain: example.com\nmetadata:\n  name: old\nnetworking:\n  clusterNetworks:\n  - cidr: 10.128.0.0/14\n    hostSubnetLength: 9\n  machineCIDR: 10.0.0.0/16\n  serviceCIDR: 172.30.0.0/16\n  type: OVNKubernetes\nplatform:\n  none: {{}}\npullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'\n"
            )
        };
        let model = |version: &str, release: &str| {
            super::super::model_with_warnings(&text(version), release)
                .unwrap()
                .0
        };
        for release in ["4.9.0", "5.0.0"] {
            let v1 = model("v1", release);
            assert!(v1.stored_install_config.starts_with("apiVersion: v1\n"));
            for old in ["v1beta3", "v1beta4"] {
                let read = model(old, release);
                assert_eq!(
                    read.stored_install_config, v1.stored_install_config,
                    "{old}"
                );
                assert_eq!(format!("{read:?}"), format!("{v1:?}"), "{old}");
                assert_eq!(read.warnings.len(), v1.warnings.len(), "{old}");
            }
        }
        let refused = super::super::refusal(&text("v1beta2"), "4.9.0");
        assert!(
            refused.contains("apiVersion") && refused.contains("`v1beta2` is not supported"),
            "{refused}"
        );
    }

    /// A `#` comment line in sshKey: skipped as sshd skips it until 4.20, whose installer
    /// parsed only the first key; refused from 4.21, whose installer reads every line as a key.
    /// Options before a key (`authorized_keys` style) are taken by every release.
    #[test]
    fn ssh_key_comment_lines_follow_the_release() {
        let key = crate::config::load_default()
            .unwrap()
            .config
            .ssh_key
            .unwrap();
        let text = |ssh_key: &str| {
            format!(
                "{}sshKey: |\n{}",
                super::super::MINIMAL_INSTALL_CONFIG,
                ssh_key
                    .lines()
                    .map(|l| format!("  {l}\n"))
                    .collect::<String>()
            )
        };
        let commented = text(&format!("# the lab's admins\n{}", key.trim()));
        assert_eq!(super::super::refusal(&commented, "4.20.0"), "");
        let refused = super::super::refusal(&commented, "4.21.0");
        assert!(
            refused.contains("`sshKey`") && refused.contains("comment line"),
            "{refused}"
        );
        let with_options = text(&format!("from=\"10.0.0.0/8\" {}", key.trim()));
        for version in ["4.12.0", "4.21.0"] {
            assert_eq!(
                super::super::refusal(&with_options, version),
                "",
                "{version}"
            );
        }
    }
}

//! The release payload the node pulls: its pull spec (given, or the release's for the cluster's
//! architectures), what the spec says of its architectures, and whether they fit the machines.

use super::{arch, distribution, Arch, ModelOptions, PayloadArch, Pool};
use crate::config::Warning;
use crate::error::{Error, OptionField, Result, OPTIONS_SOURCE};
use crate::release::{first_with, Distribution, SelectedRelease, Switch, Switches};

/// The payload and the bootstrap host that runs it.
pub(crate) struct Payload {
    /// The bootstrap host's architecture (normally the control plane's).
    pub bootstrap_arch: Arch,
    /// The payload's pull spec.
    pub release_image: String,
    /// What the pull spec says about its architectures.
    pub arch: PayloadArch,
}

impl Payload {
    /// The payload given by `options`, else the release's for the cluster's architectures (a
    /// multi-architecture one for mixed machines); an error naming the option when it cannot
    /// run on them.
    pub(crate) fn choose(
        options: &ModelOptions,
        (control_plane, compute): (&Pool, &[Pool]),
        distribution: Distribution,
        release: &SelectedRelease,
        switches: &Switches,
        warnings: &mut Vec<Warning>,
    ) -> Result<Payload> {
        let bootstrap_arch = options.bootstrap_arch.unwrap_or(control_plane.architecture);
        let heterogeneous = compute
            .iter()
            .any(|p| p.architecture != control_plane.architecture)
            || bootstrap_arch != control_plane.architecture;
        let release_image = match &options.release_image {
            Some(image) => image.clone(),
            None => {
                let suffix = if heterogeneous {
                    arch::MULTI_SUFFIX
                } else {
                    control_plane.architecture.facts().release_suffix
                };
                distribution::default_release_image(
                    distribution,
                    release.profile,
                    &release.version.to_string(),
                    suffix,
                )?
            }
        };
        let payload_arch = match PayloadArch::from_reference(&release_image) {
            PayloadArch::Unknown if options.multi_arch_payload => PayloadArch::Multi,
            PayloadArch::Single(arch) if options.multi_arch_payload => {
                return Err(Error::InvalidOption {
                    option: OptionField::MultiArchPayload,
                    message: format!(
                        "`{release_image}` is tagged for {arch} only, so it is not a multi-architecture payload"
                    ),
                })
            }
            known => known,
        };
        if payload_arch == PayloadArch::Multi && !switches.has(Switch::MultiArchPayload) {
            let option = if options.multi_arch_payload {
                OptionField::MultiArchPayload
            } else if options.release_image.is_some() {
                OptionField::ReleaseImage
            } else {
                OptionField::ReleaseVersion
            };
            let why = if heterogeneous && options.release_image.is_none() {
                " (mixed architectures need one)"
            } else {
                ""
            };
            return Err(Error::InvalidOption {
                option,
                message: format!(
                    "`{release_image}` is a multi-architecture payload{why}, but release {} has none{}",
                    release.profile.minor,
                    first_with(Switch::MultiArchPayload)
                        .map_or_else(String::new, |minor| format!(": they start with {minor}"))
                ),
            });
        }
        check_payload(
            control_plane,
            compute,
            bootstrap_arch,
            payload_arch,
            &release_image,
            options,
            warnings,
        )?;
        Ok(Payload {
            bootstrap_arch,
            release_image,
            arch: payload_arch,
        })
    }
}

fn check_payload(
    control_plane: &Pool,
    compute: &[Pool],
    bootstrap_arch: Arch,
    payload: PayloadArch,
    image: &str,
    options: &ModelOptions,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let mixed: Vec<String> = compute
        .iter()
        .filter(|p| p.architecture != control_plane.architecture)
        .map(|p| format!("compute pool `{}` is {}", p.name, p.architecture))
        .collect();
    let needs_multi = !mixed.is_empty() || bootstrap_arch != control_plane.architecture;
    if needs_multi && payload != PayloadArch::Multi {
        let mut why = mixed;
        if bootstrap_arch != control_plane.architecture {
            why.push(format!("the bootstrap host is {bootstrap_arch}"));
        }
        let message = if payload == PayloadArch::Unknown {
            format!(
                "the control plane is {} but {}; that needs a multi-architecture payload, and `{image}` does not say it is one: if it is (the digest of a -multi release), say so with {}",
                control_plane.architecture,
                why.join(" and "),
                OptionField::MultiArchPayload
            )
        } else {
            format!(
                "the control plane is {} but {}; that needs a multi-architecture payload (a `-multi` release tag, or a digest with {}), and `{image}` is not one",
                control_plane.architecture,
                why.join(" and "),
                OptionField::MultiArchPayload
            )
        };
        if payload == PayloadArch::Unknown && options.allow_arch_mismatch {
            warnings.push(Warning {
                file: OPTIONS_SOURCE.into(),
                field: OptionField::ReleaseImage.name().into(),
                line: None,
                message,
            });
            return Ok(());
        }
        return Err(Error::InvalidOption {
            option: OptionField::ReleaseImage,
            message,
        });
    }
    if let PayloadArch::Single(payload_arch) = payload {
        if payload_arch != control_plane.architecture {
            let message = format!(
                "release image `{image}` is built for {payload_arch}, but the cluster is {}; use the {} payload or a -multi one",
                control_plane.architecture,
                control_plane.architecture.facts().release_suffix
            );
            if !options.allow_arch_mismatch {
                return Err(Error::InvalidUnlessAllowed {
                    option: OptionField::ReleaseImage,
                    message,
                    allowed_by: OptionField::AllowArchMismatch,
                });
            }
            warnings.push(Warning {
                file: OPTIONS_SOURCE.into(),
                field: OptionField::ReleaseImage.name().into(),
                line: None,
                message,
            });
        }
    }
    Ok(())
}

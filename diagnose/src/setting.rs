//! The settings of bootgen that diagnose's fixes name (`bootgen patch ... <setting> auth.json`).
//! A fix says the setting, not a command-line flag: a front end tells it in its own words (the
//! CLI as its flag). The `bootgen` library maps each to its `OptionField`, whose name each
//! spells out here, and a test there holds the two together.

use std::fmt;

/// A setting of bootgen a fix names. Exhaustive, so that the library's mapping to its own
/// settings is checked by the compiler when one is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setting {
    /// The architecture of the nodes.
    Arch,
    /// The release image.
    ReleaseImage,
    /// Renewing expired certificates with the same keys.
    RenewExpired,
    /// Extra `/etc/hosts` entries.
    AddHost,
    /// Registry credentials added to the pull secret.
    RegistryAuth,
    /// CA certificates added to the trust bundle.
    TrustBundle,
    /// The output directory.
    OutputDir,
}

impl Setting {
    /// Every setting a fix names.
    pub const ALL: [Setting; 7] = [
        Setting::Arch,
        Setting::ReleaseImage,
        Setting::RenewExpired,
        Setting::AddHost,
        Setting::RegistryAuth,
        Setting::TrustBundle,
        Setting::OutputDir,
    ];

    /// The setting as the bootgen library spells it (its `OptionField::name`).
    pub fn name(self) -> &'static str {
        match self {
            Setting::Arch => "model.arch",
            Setting::ReleaseImage => "model.release_image",
            Setting::RenewExpired => "renew_expired",
            Setting::AddHost => "passes.mirrors.hosts",
            Setting::RegistryAuth => "passes.mirrors.registry_auth",
            Setting::TrustBundle => "passes.mirrors.trust_bundle",
            Setting::OutputDir => "output directory",
        }
    }
}

/// As a fix shows it: `` `passes.mirrors.registry_auth` ``, as the library's messages do.
impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.name())
    }
}

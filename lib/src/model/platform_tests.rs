//! The platform as `Model::new` reads it: each platform's settings, and the mistakes named.

use crate::model::{Model, ModelOptions};
use crate::release::Platform;

/// The embedded example with its `platform` replaced by `platform`.
fn with_platform(platform: &str, version: &str) -> crate::error::Result<Model> {
    let text = crate::config::load_default()
        .unwrap()
        .text
        .replace("platform:\n  none: {}\n", platform);
    assert!(
        text.contains(platform),
        "the example's platform is `none: {{}}`"
    );
    let loaded = crate::config::parse(&text, "install-config.yaml").unwrap();
    let options = ModelOptions {
        release_version: Some(version.into()),
        ..ModelOptions::default()
    };
    Model::new(&loaded, &options)
}

#[test]
fn an_external_platform_is_read_with_its_settings() {
    let model = with_platform(
        "platform:\n  external:\n    platformName: oci\n    cloudControllerManager: External\n",
        "4.16.0",
    )
    .unwrap();
    assert_eq!(model.platform.kind(), Platform::External);
    let external = model.platform.external().unwrap();
    assert_eq!(external.platform_name, "oci");
    assert_eq!(
        external.cloud_controller_manager,
        super::platform::CloudControllerManager::External
    );
}

/// 4.14's installer knew platform external but not its cloudControllerManager: the key is
/// ignored with a warning (whatever its value), as that installer does.
#[test]
fn the_4_14_installer_ignores_cloud_controller_manager() {
    let model = with_platform(
        "platform:\n  external:\n    platformName: oci\n    cloudControllerManager: Internal\n",
        "4.14.0",
    )
    .unwrap();
    assert_eq!(
        model.platform.external().unwrap().cloud_controller_manager,
        super::platform::CloudControllerManager::None
    );
    let warning = model
        .warnings
        .iter()
        .find(|w| w.field == "platform.external.cloudControllerManager")
        .unwrap();
    assert!(warning.message.contains("arrived in 4.15"), "{warning:?}");
    assert!(!model
        .stored_install_config
        .contains("cloudControllerManager"));
}

/// Each platform's settings come with it and with no other, and the platforms a message
/// lists are every one the enum has.
#[test]
fn a_platform_carries_only_its_own_settings() {
    let none = with_platform("platform:\n  none: {}\n", "4.16.0").unwrap();
    assert_eq!(none.platform, super::platform::PlatformSettings::None);
    assert!(none.platform.external().is_none() && none.platform.api_vips().is_empty());
    let external =
        with_platform("platform:\n  external:\n    platformName: oci\n", "4.16.0").unwrap();
    assert!(external.platform.vsphere().is_none());
    let other = with_platform("platform:\n  aws: {}\n", "4.16.0")
        .unwrap_err()
        .to_string();
    for platform in Platform::ALL {
        assert!(other.contains(platform.name()), "{platform}: {other}");
    }
}

#[test]
fn external_platform_mistakes_name_the_field() {
    let message =
        |platform: &str, version: &str| with_platform(platform, version).unwrap_err().to_string();
    let missing = message("platform:\n  external: {}\n", "4.16.0");
    assert!(
        missing.contains("platform.external.platformName") && missing.contains("required"),
        "{missing}"
    );
    let ccm = message(
        "platform:\n  external:\n    platformName: oci\n    cloudControllerManager: Internal\n",
        "4.16.0",
    );
    assert!(
        ccm.contains("platform.external.cloudControllerManager") && ccm.contains("`Internal`"),
        "{ccm}"
    );
    let old = message("platform:\n  external:\n    platformName: oci\n", "4.12.0");
    assert!(
        old.contains("platform.external") && old.contains("it arrived in 4.14"),
        "{old}"
    );
    let other = message("platform:\n  aws: {}\n", "4.16.0");
    assert!(
        other.contains("platform.aws") && other.contains("none, external"),
        "{other}"
    );
    // A key platform external does not have would do nothing: refused with its line, and the
    // key meant when it is a typo.
    let typo = message(
        "platform:\n  external:\n    platformName: oci\n    cloudControlerManager: External\n",
        "4.16.0",
    );
    assert!(
        typo.contains("field `platform.external.cloudControlerManager` (line 28)")
            && typo.contains("did you mean `cloudControllerManager`?"),
        "{typo}"
    );
    let unknown = message(
        "platform:\n  external:\n    platformName: oci\n    region: eu\n",
        "4.16.0",
    );
    assert!(
        unknown.contains("field `platform.external.region` (line 28)")
            && unknown.contains("takes platformName, cloudControllerManager"),
        "{unknown}"
    );
}

/// `platform.external` and `platform.none` read with their serde types: a value of the wrong
/// type is named with its line, and none's keys are refused, whatever the release.
#[test]
fn a_platforms_settings_of_the_wrong_type_are_named_with_their_line() {
    let message =
        |platform: &str, version: &str| with_platform(platform, version).unwrap_err().to_string();
    let name = message(
        "platform:\n  external:\n    platformName: [oci]\n",
        "4.16.0",
    );
    assert!(
        name.contains("field `platform.external.platformName` (line 27)")
            && name.contains("must be a string"),
        "{name}"
    );
    // 4.14's installer ignores cloudControllerManager, but not a value of the wrong type.
    let ccm = message(
        "platform:\n  external:\n    platformName: oci\n    cloudControllerManager: 1\n",
        "4.14.0",
    );
    assert!(
        ccm.contains("field `platform.external.cloudControllerManager` (line 28)")
            && ccm.contains("must be a string"),
        "{ccm}"
    );
    for version in ["4.9.0", "4.11.0", "4.16.0"] {
        let none = message("platform:\n  none:\n    region: eu\n", version);
        assert!(
            none.contains("field `platform.none.region` (line 27)")
                && none.contains("platform none has no settings"),
            "{version}: {none}"
        );
    }
}

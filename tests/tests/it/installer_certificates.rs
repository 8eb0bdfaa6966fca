//! The certificates whose facts changed in the installer's history, checked for every recorded
//! release (as `openssl` reads them from the tls directory bootgen writes): what each release's
//! installer puts into the kubelet's bootstrap client certificate and the machine-config
//! server's, which name it gives the service network, and how long its certificates live under
//! the ShortCertRotation feature gate (which no recorded case turns on). The recordings
//! (`installer_objects.rs`) compare every certificate fact where they hold them;
//! `a_recorded_certificate_fact_that_differs_is_a_difference` shows that comparison failing on a
//! changed fact.

use super::installer_objects::{
    bootgen_view, compared, known_differences, oracle_dir, recordings, Recording,
};
use bootgen_conformance::{bootgen, run, tools_present, HarnessError, Result};
use std::fs;
use std::path::Path;
use std::process::Command;

const OPENSSL: &str = "/usr/bin/openssl";

/// `openssl x509 -noout -subject -ext subjectAltName` of a PEM file, with one line per RDN
/// (`-nameopt sep_multiline`: a multi-valued RDN reads `O=a + O=b` on its line).
fn openssl_facts(path: &Path) -> Result<String> {
    let output = run(Command::new(OPENSSL)
        .args(["x509", "-noout", "-nameopt", "sep_multiline,sname"])
        .args(["-subject", "-ext", "subjectAltName", "-in"])
        .arg(path))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The case with API VIPs the release accepts: `apiVIPs` from 4.12, `apiVIP` before.
fn vip_case(recording: &Recording) -> &'static str {
    let folder = oracle_dir().join(&recording.folder);
    if folder.join("vsphere-vips.json").is_file() {
        "vsphere-vips"
    } else {
        "vsphere-legacy"
    }
}

/// Whether the release's installer has the change of 2023-03-28 (commit 8c8cf863f0, merged to
/// main after 4.13 branched) that put `system:serviceaccounts` into the kubelet's client
/// certificate: a real 4.13.0 installer's certificate names it (the 4.13 recordings, built from
/// main before the branch, were corrected for this certificate), for OpenShift and OKD alike.
fn names_all_service_accounts(minor: &str) -> bool {
    release_number(minor) >= (4, 13)
}

/// `4.19` as `(4, 19)`, to compare releases in order.
fn release_number(minor: &str) -> (u32, u32) {
    let (major, minor) = minor.split_once('.').unwrap_or((minor, "0"));
    let number = |s: &str| s.parse::<u32>().unwrap_or(0);
    (number(major), number(minor))
}

/// Runs `check` on bootgen's tls directory for each recorded release's case with API VIPs;
/// checks nothing when `openssl` is missing (outside CI).
fn each_recorded_release(
    mut check: impl FnMut(&Recording, &str, &Path) -> Result<()>,
) -> Result<()> {
    if !tools_present(&[OPENSSL]) {
        return Ok(());
    }
    let mut checked = 0;
    for recording in recordings()? {
        let case = vip_case(&recording);
        check(
            &recording,
            case,
            &generated_tls(&recording, case)?.path().join("out/tls"),
        )?;
        checked += 1;
    }
    assert!(checked > 0, "no recorded release");
    Ok(())
}

/// Runs `check` on bootgen's tls directory for `case` in each recorded release.
fn each_recorded_release_case(
    case: &str,
    mut check: impl FnMut(&Recording, &Path) -> Result<()>,
) -> Result<()> {
    if !tools_present(&[OPENSSL]) {
        return Ok(());
    }
    let recorded = recordings()?;
    assert!(!recorded.is_empty(), "no recorded release");
    for recording in recorded {
        check(
            &recording,
            &generated_tls(&recording, case)?.path().join("out/tls"),
        )?;
    }
    Ok(())
}

/// bootgen's output for `case` in the recording's release, in a temporary directory (`out/`).
fn generated_tls(recording: &Recording, case: &str) -> Result<tempfile::TempDir> {
    let config = oracle_dir()
        .join("cases")
        .join(case)
        .join("install-config.yaml");
    let image = recording.release_image(&fs::read_to_string(&config)?);
    let dir = tempfile::tempdir()?;
    run(bootgen(env!("CARGO_BIN_EXE_bootgen-under-test"))
        .args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ])
        .arg(&config)
        .args(["--release-image", &image, "--output"])
        .arg(dir.path().join("out")))
    .map_err(|e| HarnessError(format!("{} {case}: {e}", recording.folder)))?;
    Ok(dir)
}

#[test]
fn each_release_has_its_installers_kubelet_client_organizations() -> Result<()> {
    each_recorded_release(|recording, _, tls| {
        let kubelet = openssl_facts(&tls.join("kubelet-client.crt"))?;
        let organizations: Vec<&str> = kubelet
            .lines()
            .filter_map(|line| line.trim().strip_prefix("O="))
            .collect();
        let mut expected = vec!["system:serviceaccounts:openshift-machine-config-operator"];
        if names_all_service_accounts(&recording.minor) {
            expected.push("system:serviceaccounts");
        }
        assert_eq!(
            organizations, expected,
            "{}: kubelet-client.crt's Organizations, as the release's installer writes them:\n{kubelet}",
            recording.folder
        );
        Ok(())
    })
}

#[test]
fn each_release_names_the_api_vips_in_the_mcs_certificate() -> Result<()> {
    each_recorded_release(|recording, case, tls| {
        let mcs = openssl_facts(&tls.join("machine-config-server.crt"))?;
        let sans: Vec<&str> = mcs
            .lines()
            .skip_while(|line| !line.contains("Subject Alternative Name"))
            .nth(1)
            .unwrap_or_default()
            .split(", ")
            .map(str::trim)
            .collect();
        let api_int = format!("DNS:api-int.{case}.oracle.example.com");
        assert_eq!(
            sans,
            [api_int.as_str(), "DNS:192.0.2.5", "IP Address:192.0.2.5"],
            "{} {case}: machine-config-server.crt names api-int and the API VIP as a DNS name and an IP address, as every installer does:\n{mcs}",
            recording.folder
        );
        Ok(())
    })
}

/// The kube-apiserver's service-network serving certificate names the first address of the
/// primary service network only, as every installer writes it (`cidrhost(serviceNetwork[0], 1)`),
/// also for a dual-stack cluster.
#[test]
fn each_release_names_one_service_network_address() -> Result<()> {
    each_recorded_release_case("dual-stack", |recording, tls| {
        let server = openssl_facts(&tls.join("kube-apiserver-service-network-server.crt"))?;
        let ips: Vec<&str> = server
            .split(", ")
            .filter_map(|name| name.trim().strip_prefix("IP Address:"))
            .collect();
        assert_eq!(
            ips,
            ["172.30.0.1"],
            "{}: the service-network server certificate's IP addresses:\n{server}",
            recording.folder
        );
        Ok(())
    })
}

/// A recorded certificate fact that differs from bootgen's is a difference at that fact, which no
/// known difference excuses; a recorded view without the facts fails.
#[test]
fn a_recorded_certificate_fact_that_differs_is_a_difference() -> Result<()> {
    let base = recordings()?
        .into_iter()
        .find(|r| !r.okd)
        .ok_or_else(|| HarnessError("no recorded release".into()))?;
    let out = tempfile::tempdir()?;
    let (actual, _) = bootgen_view(&base, "compact", &out.path().join("out"), None)?;
    let kubelet = "/opt/openshift/tls/kubelet-client.crt";
    let mut doctored = actual.clone();
    let facts = doctored
        .files
        .get_mut(kubelet)
        .and_then(|f| f.pem.get_mut("file"))
        .and_then(|blocks| blocks.first_mut());
    let Some(bootgen::report::PemFacts::Certificate(cert)) = facts else {
        return Err(HarnessError(format!(
            "{kubelet}: no certificate facts in bootgen's view"
        )));
    };
    // A client certificate that lives a year where bootgen's lives a day.
    cert.lifetime = "365d".into();

    let changes = compared(&base, "compact", &doctored, actual.clone())?;
    let fields: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| (c.name.as_str(), c.field.as_str()))
        .collect();
    assert_eq!(fields, [(kubelet, "pem.file[0].lifetime")]);
    let known = known_differences()?;
    assert!(
        !known
            .difference
            .iter()
            .any(|k| k.covers(&base.minor, false, "compact", &changes[0])),
        "a known difference excuses a changed lifetime"
    );

    let before_facts = doctored.without_pem_facts();
    assert!(compared(&base, "compact", &before_facts, actual).is_err());
    Ok(())
}

/// The hours a release's installer gives a one-day certificate under the ShortCertRotation
/// feature gate (its one-year ones twice that): 1 from the change of 2025-03-22 (first in 4.19),
/// 2 from the change of 2025-07-02 (first in 4.20); `None` before 4.19, which knows no such gate.
fn short_rotation_hours(minor: &str) -> Option<u32> {
    match release_number(minor) {
        release if release < (4, 19) => None,
        (4, 19) => Some(1),
        _ => Some(2),
    }
}

/// `notAfter=...` of a certificate, as `openssl x509 -enddate` prints it.
fn not_after(path: &Path) -> Result<String> {
    let output = run(Command::new(OPENSSL)
        .args(["x509", "-noout", "-enddate", "-in"])
        .arg(path))?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// With featureSet CustomNoUpgrade and `ShortCertRotation=true`, each release's one-day and
/// one-year certificates live as long as its installer makes them, and its ten-year signers
/// keep their ten years (from 4.14, the first release whose installer reads `featureGates`).
/// Issued at 2026-01-01T00:00:00Z and read with openssl.
#[test]
fn each_release_shortens_lifetimes_under_short_cert_rotation_as_its_installer_does() -> Result<()> {
    if !tools_present(&[OPENSSL]) {
        return Ok(());
    }
    let config = oracle_dir().join("cases/compact/install-config.yaml");
    let text = format!(
        "{}featureSet: CustomNoUpgrade\nfeatureGates:\n- ShortCertRotation=true\n",
        fs::read_to_string(&config)?
    );
    let mut checked = 0;
    for recording in recordings()? {
        if release_number(&recording.minor) < (4, 14) {
            continue; // no installer before 4.14 reads featureGates
        }
        let dir = tempfile::tempdir()?;
        fs::write(dir.path().join("install-config.yaml"), &text)?;
        run(bootgen(env!("CARGO_BIN_EXE_bootgen-under-test"))
            .args(["ignition", "--key-algorithm", "ecdsa-p256"])
            .args(["--now", "2026-01-01T00:00:00Z", "--install-config"])
            .arg(dir.path().join("install-config.yaml"))
            .args(["--release-image", &recording.release_image(&text)])
            .arg("--output")
            .arg(dir.path().join("out")))
        .map_err(|e| HarnessError(format!("{}: {e}", recording.folder)))?;
        let tls = dir.path().join("out/tls");
        let (one_day, one_year) = match short_rotation_hours(&recording.minor) {
            Some(1) => ("Jan  1 01:00:00 2026", "Jan  1 02:00:00 2026"),
            Some(_) => ("Jan  1 02:00:00 2026", "Jan  1 04:00:00 2026"),
            None => ("Jan  2 00:00:00 2026", "Jan  1 00:00:00 2027"),
        };
        for (file, expected) in [
            ("kubelet-signer.crt", one_day),
            ("kube-apiserver-lb-server.crt", one_day),
            ("kube-apiserver-to-kubelet-signer.crt", one_year),
            ("admin-kubeconfig-signer.crt", "Dec 30 00:00:00 2035"),
        ] {
            assert_eq!(
                not_after(&tls.join(file))?,
                format!("notAfter={expected} GMT"),
                "{}: {file} under ShortCertRotation",
                recording.folder
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "no recorded release from 4.14");
    Ok(())
}

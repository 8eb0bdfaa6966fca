//! The values a medium carries to the node, checked as the node will read them: a bad one is
//! refused when the medium is made, naming the value, not found when the node fails to install
//! or boot. Each returns what is wrong, in words a user can act on; the caller names the flag or
//! field.

/// A disk coreos-installer can write to: an absolute device path on one line, no spaces.
pub fn check_device_path(device: &str) -> Result<(), String> {
    if device.chars().any(|c| c.is_whitespace() || c.is_control()) || device.is_empty() {
        return Err(format!(
            "{device:?} is empty or contains whitespace or control characters: a device path has none"
        ));
    }
    if !device.starts_with('/') {
        return Err(format!(
            "`{device}` is not an absolute device path: write it as `/dev/{}` (or a `/dev/disk/by-id/...` path)",
            device.trim_start_matches("dev/")
        ));
    }
    if device.ends_with('/') || device == "/dev" {
        return Err(format!("`{device}` names a directory, not a disk"));
    }
    Ok(())
}

/// The graphical consoles coreos-installer knows by name.
const GRAPHICAL_CONSOLES: &[&str] = &["tty0", "hvc0", "ttysclp0"];

/// A console as coreos-installer's installer config takes it (what it refuses, it refuses at
/// install time, on the node): a serial port `ttyS<N>` or `ttyAMA<N>`, optionally followed by
/// `,SPEED`, then a parity (`n`, `o`, `e`) and then 5 to 8 data bits; or a graphical console
/// (`tty0`, `hvc0`, `ttysclp0`).
pub fn check_console(spec: &str) -> Result<(), String> {
    let example = "such as ttyS0,115200n8, ttyAMA0 or tty0";
    for prefix in ["console=", "/dev/"] {
        if spec.starts_with(prefix) {
            return Err(format!(
                "{spec:?} starts with `{prefix}`: write the console alone, {example}"
            ));
        }
    }
    if GRAPHICAL_CONSOLES.contains(&spec) || is_serial_console(spec) {
        return Ok(());
    }
    Err(format!(
        "{spec:?} is not a console coreos-installer takes ({example})"
    ))
}

fn is_serial_console(spec: &str) -> bool {
    let Some(rest) = spec
        .strip_prefix("ttyS")
        .or_else(|| spec.strip_prefix("ttyAMA"))
    else {
        return false;
    };
    let (port, options) = rest.split_once(',').unwrap_or((rest, ""));
    if port.is_empty() || port.parse::<u8>().is_err() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if !rest.contains(',') {
        return true;
    }
    let digits = options.bytes().take_while(u8::is_ascii_digit).count();
    let (speed, line) = options.split_at(digits);
    if speed.parse::<u32>().is_err() {
        return false;
    }
    match line.as_bytes() {
        [] | [b'n' | b'o' | b'e'] => true,
        [b'n' | b'o' | b'e', bits] => (b'5'..=b'8').contains(bits),
        _ => false,
    }
}

/// A kernel argument for a boot loader's command line: one line, since GRUB and isolinux end
/// the command at a line break and take what follows as a command of their own.
pub fn check_kernel_argument(arg: &str) -> Result<(), String> {
    if arg.trim().is_empty() {
        return Err(format!("{arg:?} is empty"));
    }
    if arg.chars().any(char::is_control) {
        return Err(format!(
            "{arg:?} contains a control character (a line break ends the boot loader's command)"
        ));
    }
    Ok(())
}

/// The URL a PXE set is served from, as its boot entries and the kernel's
/// `coreos.live.rootfs_url` use it: `http://` or `https://`, a host, a path the file names are
/// appended to (so no query or fragment), and nothing that would split or end a line.
/// Credentials are refused: the entries are served to any machine that asks, and the kernel
/// command line is readable on the node.
pub fn check_base_url(url: &str) -> Result<(), String> {
    let shown = crate::url_syntax::redact_userinfo(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(format!(
            "{shown:?} has no scheme: write it as http://HOST/PATH or https://HOST/PATH"
        ));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(format!(
            "{shown:?} is a {scheme:?} URL: iPXE and the live system fetch the set over http or https"
        ));
    }
    if let Some(c) = url.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "{shown:?} contains {c:?}: escape it as %{:02X}, since a boot entry splits its arguments at it",
            u32::from(c)
        ));
    }
    if url.contains(['?', '#']) {
        return Err(format!(
            "{shown:?} has a query or fragment: the set's file names are appended to the URL's path"
        ));
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return Err(format!(
            "{shown:?} carries credentials: the boot entries are served to any machine that asks, and the kernel command line is readable on the node; serve the set without them"
        ));
    }
    if authority.is_empty() {
        return Err(format!("{shown:?} has no host"));
    }
    if let Some(why) = crate::url_syntax::parse_problem(url) {
        return Err(format!("{shown:?} {why}"));
    }
    Ok(())
}

/// A name a PXE set's files are named by (`NAME-vmlinuz`, `NAME.ipxe`) and its GRUB entry is
/// titled with: letters, digits, `.`, `_` and `-`, which need no quoting in a file name, a URL
/// path, an iPXE script or a GRUB title.
pub fn check_entry_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && !name.starts_with(['.', '-'])
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if valid {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a name for a PXE set: use letters, digits, `.`, `_` and `-` (not first), as its file names and boot entries carry it unquoted"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consoles_are_taken_as_coreos_installer_takes_them() {
        for good in [
            "ttyS0",
            "ttyS1,115200",
            "ttyS0,115200n8",
            "ttyAMA0,9600e7",
            "ttyS3,38400o",
            "tty0",
            "hvc0",
            "ttysclp0",
        ] {
            assert_eq!(check_console(good), Ok(()), "{good}");
        }
        for bad in [
            "bogus",
            "",
            "ttyS",
            "ttyS0,abc",
            "ttyS0,115200n9",
            "ttyS0,115200x8",
            "ttyS0,115200n8 quiet",
            "ttyS256",
            "ttyS-1",
            "ttyS0,",
            "tty1",
        ] {
            assert!(check_console(bad).is_err(), "{bad}");
        }
        assert!(check_console("console=ttyS0")
            .unwrap_err()
            .contains("starts with `console=`"));
        assert!(check_console("/dev/ttyS0")
            .unwrap_err()
            .contains("starts with `/dev/`"));
    }

    #[test]
    fn a_device_path_is_absolute_and_on_one_line() {
        for good in [
            "/dev/sda",
            "/dev/disk/by-id/wwn-0x5000c500a0b1c2d3",
            "/dev/nvme0n1",
        ] {
            assert_eq!(check_device_path(good), Ok(()), "{good}");
        }
        assert!(check_device_path("sda").unwrap_err().contains("`/dev/sda`"));
        for bad in ["", "/dev/sd\na", "/dev/sd a", "/dev/", "/dev"] {
            assert!(check_device_path(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_kernel_argument_is_one_line() {
        assert_eq!(check_kernel_argument("console=ttyS0,115200n8"), Ok(()));
        assert_eq!(check_kernel_argument("rd.neednet=1 ip=dhcp"), Ok(()));
        for bad in ["console=ttyS0\nfoo", "a\tb", "", " "] {
            assert!(check_kernel_argument(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_base_url_is_http_with_a_host_and_a_plain_path() {
        for good in [
            "http://192.0.2.10/pxe",
            "https://boot.lab.example.com:8443/sets/",
            "http://[fd00::10]/pxe",
            "http://192.0.2.10/my%20pxe",
        ] {
            assert_eq!(check_base_url(good), Ok(()), "{good}");
        }
        for (bad, says) in [
            ("192.0.2.10/pxe", "no scheme"),
            ("tftp://192.0.2.10/pxe", "\"tftp\""),
            ("http://192.0.2.10/my pxe", "escape it as %20"),
            ("http://192.0.2.10/pxe\x1b[31m", "'\\u{1b}'"),
            ("http://192.0.2.10/pxe?token=1", "query or fragment"),
            ("http://192.0.2.10/pxe#x", "query or fragment"),
            ("http:///pxe", "no host"),
            ("http://[fd00::10/pxe", "IPv6"),
            ("http://admin:hunter2@192.0.2.10/pxe", "credentials"),
        ] {
            let error = check_base_url(bad).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
            assert!(!error.contains("hunter2"), "{error}");
        }
    }

    #[test]
    fn an_entry_name_needs_no_quoting() {
        for good in ["bootstrap", "master-0", "worker.lab_1"] {
            assert_eq!(check_entry_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "it's worker",
            "a b",
            "ab}c",
            "../x",
            ".hidden",
            "-x",
            "é",
        ] {
            assert!(check_entry_name(bad).is_err(), "{bad:?}");
        }
    }
}

use super::live_iso::{xz_cpio, xz_window};
use super::*;

/// Up to [`XZ_EXACT_LIMIT`], the smaller dictionary gives exactly what `xz -9` (preset 9,
/// as coreos-installer compresses) gives.
#[test]
fn the_estimate_is_exact_up_to_the_limit() {
    fn preset_9(bytes: &[u8]) -> u64 {
        use std::io::Write;
        let check = liblzma::stream::Check::Crc32;
        let stream = liblzma::stream::Stream::new_easy_encoder(9, check).unwrap();
        let encoder = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
        let mut entry = cpio::newc::Builder::new("config.ign")
            .mode(0o100644)
            .nlink(1)
            .write(encoder, bytes.len() as u32);
        entry.write_all(bytes).unwrap();
        let xz = cpio::newc::trailer(entry.finish().unwrap()).unwrap();
        xz.finish().unwrap().len() as u64
    }
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n".repeat(11000);
    for bytes in [
        incompressible(100),
        incompressible(300 * 1024),
        text.as_bytes()[..XZ_EXACT_LIMIT as usize].to_vec(),
    ] {
        assert_eq!(xz_cpio_size(&bytes), preset_9(&bytes), "{}", bytes.len());
    }
    assert_eq!(xz_window(100), 4096);
    assert_eq!(xz_window(XZ_EXACT_LIMIT), 1024 * 1024);
    assert_eq!(xz_window(1_500_000), 128 * 1024);
    assert_eq!(xz_window(3_717_977), 256 * 1024);
    assert_eq!(xz_window(XZ_ESTIMATE_LIMIT), 1024 * 1024);
}

/// A config of `size` bytes that compresses about as well as random text does not.
fn incompressible(size: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            b'!' + (state % 90) as u8
        })
        .collect()
}

#[test]
fn says_where_it_fits_and_what_makes_it_fit() {
    let small = SizeBudget::of_config(&incompressible(1000), None);
    assert!(!small.needs_pointer());
    assert!(!small.to_string().contains("pointer config"));
    // 20 KiB that gzip brings to 10 KiB: AWS takes it compressed, the rest as it is.
    let medium = SizeBudget::of_config(&incompressible(20 * 1024), Some(10 * 1024));
    let ways: Vec<WayOut> = medium.channels.iter().map(|c| c.way_out).collect();
    let fits = WayOut::None;
    assert_eq!(
        ways,
        vec![WayOut::Compress, fits, fits, fits, fits, fits, fits]
    );
    let text = medium.to_string();
    assert!(
        text.contains("does not fit (4.0 KiB over; fits with its files gzipped)"),
        "{text}"
    );
    assert!(!text.contains("pointer config"), "{text}");
    // Without a smaller compressed form, only a pointer helps.
    let stuck = SizeBudget::of_config(&incompressible(20 * 1024), Some(19 * 1024));
    assert_eq!(stuck.channels[0].way_out, WayOut::Pointer);
    assert!(stuck
        .to_string()
        .contains("boot from a small pointer config"));
}

#[test]
fn the_live_iso_counts_the_compressed_archive() {
    // 400 KiB of repetitive text: far over 256 KiB raw, a few KiB once xz-compressed.
    let text = "apiVersion: v1\nkind: ConfigMap\n".repeat(400 * 1024 / 30);
    let budget = SizeBudget::of_config(text.as_bytes(), None);
    let iso = &budget.channels[5];
    assert_eq!(iso.channel.carriage, Carriage::XzCpio);
    assert!(iso.fits, "{budget}");
    assert!(budget.iso_embedded.unwrap() < 16 * 1024, "{budget}");
    assert!(!budget.channels[3].fits);
    // Random bytes do not compress: over the area even compressed.
    let noise = SizeBudget::of_config(&incompressible(400 * 1024), None);
    assert!(!noise.channels[5].fits);
    assert!(noise.iso_embedded.unwrap() > 256 * 1024);
    assert_eq!(human_size(2 * 1024 * 1024), "2.0 MiB");
}

/// A generated config is judged against the channels of its platform only, and the sizes
/// no such channel counts are neither needed nor shown.
#[test]
fn a_platform_gets_its_own_channels() {
    let size = 300 * 1024;
    let none = SizeBudget::for_platform("none", size, Some(30 * 1024), Some(100 * 1024));
    let names: Vec<&str> = none.channels.iter().map(|l| l.channel.name).collect();
    let expected: Vec<&str> = CHANNELS
        .iter()
        .filter(|c| c.platforms.contains(&"none"))
        .map(|c| c.name)
        .collect();
    assert_eq!(names, expected);
    assert_eq!(names.len(), 2, "{none}");
    assert!(none.channels.iter().all(|l| l.fits), "{none}");
    // No limited raw channel on platform none: the gzipped size is not shown.
    assert_eq!(none.compressed, None);
    let text = none.to_string();
    assert!(
        text.contains("in a live ISO (xz-compressed cpio) 30.0 KiB"),
        "{text}"
    );
    assert!(text.contains("no limit"), "{text}");
    assert!(!text.contains("AWS") && !text.contains("gzipped"), "{text}");
    assert!(SizeBudget::counts("none", Carriage::XzCpio));
    assert!(!SizeBudget::counts("none", Carriage::Raw));

    let aws = SizeBudget::for_platform("aws", size, Some(30 * 1024), Some(10 * 1024));
    assert_eq!(aws.channels.len(), 1);
    assert_eq!(aws.channels[0].way_out, WayOut::Compress);
    assert_eq!(aws.iso_embedded, None);
    assert!(!aws.to_string().contains("live ISO"), "{aws}");
    assert!(!SizeBudget::counts("aws", Carriage::XzCpio));
    // A platform without a channel here gets an empty table, and needs nothing computed.
    assert!(SizeBudget::for_platform("external", size, None, None)
        .channels
        .is_empty());
    // Every channel applies somewhere.
    assert!(CHANNELS.iter().all(|c| !c.platforms.is_empty()));
}

#[test]
fn a_vsphere_vm_property_holds_a_pointer_config_not_a_bootstrap_config() {
    assert!(SizeBudget::counts("vsphere", Carriage::Raw));
    // 48 KiB is 64 KiB in base64: it just fits; one byte more does not.
    let fits = SizeBudget::for_platform("vsphere", 48 * 1024, None, None);
    assert!(fits.channels[0].fits, "{fits}");
    let bootstrap = SizeBudget::for_platform("vsphere", 48 * 1024 + 1, None, None);
    let line = &bootstrap.channels[0];
    assert_eq!(line.channel.name, "vSphere guestinfo");
    assert!(!line.fits);
    assert_eq!(line.way_out, WayOut::Pointer);
    let text = bootstrap.to_string();
    assert!(text.contains("vSphere guestinfo"), "{text}");
    assert!(text.contains("needs a pointer config"), "{text}");
    assert!(text.contains("(base64: 64.0 KiB)"), "{text}");
    let gzipped = SizeBudget::for_platform("vsphere", 200 * 1024, None, Some(40 * 1024));
    assert_eq!(gzipped.channels[0].way_out, WayOut::Compress, "{gzipped}");
}

/// The archive is what coreos-installer's initrd reader sees: one `config.ign`, intact.
#[test]
fn the_embedded_archive_holds_the_config() {
    use std::io::Read;
    let config = br#"{"ignition":{"version":"3.2.0"}}"#;
    let xz = xz_cpio(config).unwrap();
    assert_eq!(xz_cpio_size(config), xz.len() as u64);
    let mut archive = Vec::new();
    liblzma::read::XzDecoder::new(&xz[..])
        .read_to_end(&mut archive)
        .unwrap();
    let mut reader = cpio::newc::Reader::new(&archive[..]).unwrap();
    assert_eq!(reader.entry().name(), "config.ign");
    assert_eq!(reader.entry().mode(), 0o100644);
    let mut read_back = Vec::new();
    reader.read_to_end(&mut read_back).unwrap();
    assert_eq!(read_back, config);
    let rest = reader.finish().unwrap();
    assert!(cpio::newc::Reader::new(rest).unwrap().entry().is_trailer());
}

/// A live-ISO config is judged by the embed area only: no cloud user-data limit, and no
/// gzip, which makes the embedded archive bigger rather than smaller.
#[test]
fn a_live_iso_config_is_judged_by_the_embed_area_only() {
    use std::io::Write;
    // Text that gzip shrinks a lot and xz more: the shape of a real config's scripts.
    let text = (0..6000)
        .map(|i| format!("line {i}: kubelet --node-ip=10.0.{}.{}\n", i % 7, i % 251))
        .collect::<String>();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(text.as_bytes()).unwrap();
    let gzipped = gz.finish().unwrap();
    // Gzip inside xz: bigger embedded than the plain text embedded.
    assert!(xz_cpio_size(&gzipped) > xz_cpio_size(text.as_bytes()));

    let everywhere = SizeBudget::of_config(text.as_bytes(), Some(gzipped.len() as u64));
    assert!(everywhere
        .channels
        .iter()
        .any(|c| c.way_out == WayOut::Compress));
    let live_iso = everywhere.live_iso_only();
    let names: Vec<&str> = live_iso.channels.iter().map(|c| c.channel.name).collect();
    assert_eq!(names, ["live ISO embed area"]);
    assert!(live_iso
        .channels
        .iter()
        .all(|c| c.way_out != WayOut::Compress));
    let shown = live_iso.to_string();
    assert!(!shown.contains("gzip") && !shown.contains("AWS"), "{shown}");
}

//! Benchmark 8: `bootgen iso` on a live ISO of 1 GiB (64 MiB with `--quick`), as a process.
//! In place on a sparse image the cost is the embed area, not the image; to a new file it is a
//! streamed copy, measured side by side against `cp` of the same file and against
//! `coreos-installer iso customize -o` (when it is on PATH) embedding the same config.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::measure::{mib, ms, run_child, Samples};
use crate::{Bench, Ratio, Result};

/// In place, the goal whatever the image's size.
const IN_PLACE_GOAL_SECONDS: f64 = 0.050;
/// Peak memory, whatever the image's size.
const PEAK_RSS_GOAL: u64 = 64 << 20;

/// A live ISO of `size` bytes: the made image, then `size` bytes of varied data after its
/// volume (sparse when `sparse`), as the rootfs makes a real image large.
fn big_iso(bench: &Bench, size: u64, sparse: bool) -> Result<PathBuf> {
    let scratch = bench.path(if sparse { "iso-sparse" } else { "iso-dense" });
    std::fs::create_dir_all(&scratch)?;
    let made = bootgen_conformance::live_iso::live_iso(
        &scratch,
        "x86_64",
        bootgen_conformance::live_iso::EMBED_SIZE,
    );
    let path = scratch.join("big.iso");
    std::fs::copy(&made, &path)?;
    let file = std::fs::OpenOptions::new().append(true).open(&path)?;
    if sparse {
        file.set_len(size)?;
    } else {
        use std::io::Write as _;
        let mut out = std::io::BufWriter::new(file);
        let mut seed = 7u64;
        let mut block = vec![0u8; 1 << 20];
        let mut written = std::fs::metadata(&path)?.len();
        while written < size {
            for chunk in block.chunks_mut(8) {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                chunk.copy_from_slice(&seed.to_le_bytes()[..chunk.len()]);
            }
            out.write_all(&block)?;
            written += block.len() as u64;
        }
        out.flush()?;
    }
    Ok(path)
}

fn coreos_installer() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("coreos-installer"))
            .find(|p| p.is_file())
    })
}

fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Runs benchmark 8.
pub fn run(bench: &mut Bench) -> Result<()> {
    let size: u64 = if bench.quick { 64 << 20 } else { 1 << 30 };
    let rounds = bench.iterations(3, 11);
    println!(
        "\n8. Boot media: `bootgen iso` on a {} live ISO, in place and to a new file, as a process",
        mib(size)
    );
    let base = bench.base()?;
    let config = base.join("worker.ign");

    // In place, on a sparse image: the embed area is all that is read and written.
    let sparse = big_iso(bench, size, true)?;
    let mut in_place = Samples::default();
    let mut in_place_rss = 0;
    for _ in 0..rounds {
        let mut cmd = bench.cli();
        cmd.arg("iso").arg(&sparse).arg("-c").arg(&config).args([
            "--dest-device",
            "/dev/sda",
            "--force",
        ]);
        let run = run_child(&mut cmd, Stdio::null(), "bootgen iso (in place)")?;
        in_place.push(run.wall);
        in_place_rss = in_place_rss.max(run.peak_rss);
    }
    println!(
        "  in place:            {}; peak RSS {}",
        in_place.describe(),
        mib(in_place_rss)
    );
    bench.verdict(
        "8a. bootgen iso in place",
        format!(
            "{} on a {} ISO (goal < {})",
            ms(in_place.median()),
            mib(size),
            ms(IN_PLACE_GOAL_SECONDS)
        ),
        in_place.median() < IN_PLACE_GOAL_SECONDS,
    );
    remove(&sparse);

    // To a new file: bootgen, cp and coreos-installer in turns on the same dense image.
    let dense = big_iso(bench, size, false)?;
    let out = bench.path("out.iso");
    let installer = coreos_installer();
    let (mut ours, mut cp, mut theirs) =
        (Samples::default(), Samples::default(), Samples::default());
    let mut copy_rss = 0;
    for round in 0..rounds {
        let mut sides = vec![0, 1];
        if installer.is_some() {
            sides.push(2);
        }
        let turn = round % sides.len();
        sides.rotate_left(turn);
        for side in sides {
            remove(&out);
            match side {
                0 => {
                    let mut cmd = bench.cli();
                    cmd.arg("iso")
                        .arg(&dense)
                        .arg("-c")
                        .arg(&config)
                        .args(["--dest-device", "/dev/sda", "-o"])
                        .arg(&out);
                    let run = run_child(&mut cmd, Stdio::null(), "bootgen iso -o")?;
                    ours.push(run.wall);
                    copy_rss = copy_rss.max(run.peak_rss);
                }
                1 => {
                    let mut cmd = Command::new("cp");
                    cmd.arg(&dense).arg(&out);
                    cp.push(run_child(&mut cmd, Stdio::null(), "cp")?.wall);
                }
                _ => {
                    let mut cmd = Command::new(installer.as_ref().ok_or("no coreos-installer")?);
                    cmd.args([
                        "iso",
                        "customize",
                        "--dest-device",
                        "/dev/sda",
                        "--dest-ignition",
                    ])
                    .arg(&config)
                    .arg("-o")
                    .arg(&out)
                    .arg(&dense);
                    theirs.push(
                        run_child(&mut cmd, Stdio::null(), "coreos-installer iso customize")?.wall,
                    );
                }
            }
        }
    }
    remove(&out);
    remove(&dense);
    println!(
        "  bootgen iso -o:      {}; peak RSS {}",
        ours.describe(),
        mib(copy_rss)
    );
    println!("  cp:                  {}", cp.describe());
    let vs_cp = ours.paired_ratio(&cp);
    bench.ratio_verdict(
        "8b. bootgen iso -o vs cp",
        format!("{vs_cp:.2}x the time of cp on {} (goal <= 1.2x)", mib(size)),
        Ratio {
            value: vs_cp,
            goal: 1.2,
            at_least: false,
        },
    );
    if installer.is_some() {
        println!("  coreos-installer -o: {}", theirs.describe());
        let vs_them = ours.paired_ratio(&theirs);
        bench.ratio_verdict(
            "8c. bootgen iso -o vs coreos-installer iso customize -o",
            format!("{vs_them:.2}x the time of coreos-installer (goal <= 1x)"),
            Ratio {
                value: vs_them,
                goal: 1.0,
                at_least: false,
            },
        );
    } else {
        println!("  coreos-installer: not on PATH, not compared");
    }
    bench.verdict(
        "8d. bootgen iso memory",
        format!(
            "peak RSS {} in place, {} to a new file, for a {} ISO (goal <= {})",
            mib(in_place_rss),
            mib(copy_rss),
            mib(size),
            mib(PEAK_RSS_GOAL)
        ),
        in_place_rss.max(copy_rss) <= PEAK_RSS_GOAL,
    );
    Ok(())
}

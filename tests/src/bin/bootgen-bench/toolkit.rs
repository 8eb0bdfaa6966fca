//! Benchmark 6: the toolkit on very large configs (20,000, 50,000 and 200,000 files): `bootgen
//! validate` side by side with Ignition's own `ignition-validate`, how its time grows from 20k
//! to 200k files (linear is 10x), and the peak memory of `inspect` and `patch` against the
//! config's size.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::measure::{mib, ms, run_child, Samples};
use crate::{Bench, Ratio, Result};

/// `ignition-validate` as Debian's `ignition` package installs it.
const IGNITION_VALIDATE: &str = "/usr/bin/ignition-validate";

/// A spec 3.2.0 config with `count` small files in nested directories and one unit: about 50
/// bytes of JSON per file, as a config of many small manifests has.
fn write_config(path: &Path, count: usize) -> Result<u64> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    write!(
        out,
        "{{\"ignition\":{{\"version\":\"3.2.0\"}},\"storage\":{{\"files\":["
    )?;
    for i in 0..count {
        let comma = if i + 1 < count { "," } else { "" };
        write!(
            out,
            "{{\"path\":\"/etc/m/{}/f{i}\",\"mode\":420,\"contents\":{{\"source\":\"data:,{i}\"}}}}{comma}",
            i / 1000
        )?;
    }
    write!(
        out,
        "]}},\"systemd\":{{\"units\":[{{\"name\":\"a.service\",\"enabled\":true,\"contents\":\"[Service]\\nExecStart=/bin/true\\n[Install]\\nWantedBy=multi-user.target\\n\"}}]}}}}"
    )?;
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

struct Point {
    files: usize,
    size: u64,
    ours: Samples,
    theirs: Samples,
    inspect_rss: u64,
    patch_rss: u64,
    /// Peak RSS of the other reading commands (issue 25), by name.
    others: Vec<(&'static str, u64)>,
}

/// The other toolkit commands that read a whole config, each as arguments after `bootgen`
/// given the config, a copy of it, an output directory holding it, and a scratch directory.
fn other_commands(
    config: &Path,
    copy: &Path,
    dir: &Path,
    scratch: &Path,
) -> Vec<(&'static str, Vec<std::ffi::OsString>)> {
    let os = |parts: &[&std::ffi::OsStr]| parts.iter().map(|p| p.to_os_string()).collect();
    vec![
        ("validate", os(&["validate".as_ref(), config.as_os_str()])),
        (
            "diff",
            os(&["diff".as_ref(), config.as_os_str(), copy.as_os_str()]),
        ),
        (
            "extract",
            os(&[
                "extract".as_ref(),
                config.as_os_str(),
                "-o".as_ref(),
                scratch.as_os_str(),
            ]),
        ),
        (
            "certs",
            os(&["inspect".as_ref(), "--certs".as_ref(), config.as_os_str()]),
        ),
        (
            "golden",
            os(&["inspect".as_ref(), "--golden".as_ref(), dir.as_os_str()]),
        ),
    ]
}

/// Runs benchmark 6.
pub fn run(bench: &mut Bench) -> Result<()> {
    let counts: &[usize] = if bench.quick {
        &[2_000, 5_000, 20_000]
    } else {
        &[20_000, 50_000, 200_000]
    };
    let have_theirs = Path::new(IGNITION_VALIDATE).exists();
    println!("\n6. Toolkit at scale: `bootgen validate` vs `ignition-validate`; peak memory of inspect and patch");
    let mut points = Vec::new();
    for &files in counts {
        let config: PathBuf = bench.path(&format!("large-{files}.ign"));
        let size = write_config(&config, files)?;
        let mut point = Point {
            files,
            size,
            ours: Samples::default(),
            theirs: Samples::default(),
            inspect_rss: 0,
            patch_rss: 0,
            others: Vec::new(),
        };
        for _ in 0..bench.iterations(1, 3) {
            let mut ours = bench.cli();
            ours.arg("validate").arg(&config);
            point
                .ours
                .push(run_child(&mut ours, Stdio::null(), "bootgen validate")?.wall);
            if have_theirs {
                let mut theirs = std::process::Command::new(IGNITION_VALIDATE);
                theirs.arg(&config);
                point
                    .theirs
                    .push(run_child(&mut theirs, Stdio::null(), "ignition-validate")?.wall);
            }
        }
        let mut inspect = bench.cli();
        inspect.arg("inspect").arg(&config);
        point.inspect_rss = run_child(&mut inspect, Stdio::null(), "bootgen inspect")?.peak_rss;
        let mut patch = bench.cli();
        patch
            .args(["patch", "--mask-unit", "a.service", "-o"])
            .arg(bench.path("patched.ign"))
            .arg(&config);
        point.patch_rss = run_child(&mut patch, Stdio::null(), "bootgen patch")?.peak_rss;
        // The same config as a copy (diff) and as an output directory's bootstrap.ign (golden).
        let copy = bench.path("copy.ign");
        std::fs::hard_link(&config, &copy)?;
        let dir = bench.path("golden-dir");
        std::fs::create_dir(&dir)?;
        std::fs::hard_link(&config, dir.join("bootstrap.ign"))?;
        let scratch = bench.path("extracted");
        for (name, args) in other_commands(&config, &copy, &dir, &scratch) {
            let mut cmd = bench.cli();
            cmd.args(args);
            let run = run_child(&mut cmd, Stdio::null(), &format!("bootgen {name}"))?;
            point.others.push((name, run.peak_rss));
        }
        crate::remove_dir(&scratch)?;
        crate::remove_dir(&dir)?;
        std::fs::remove_file(&copy)?;
        let goal = |rss: u64| {
            if (rss as f64 / size as f64) < 10.0 {
                "< 10x: met"
            } else {
                "< 10x: MISSED"
            }
        };
        println!(
            "  {:>7} files ({:>7}): validate {:>9} (ignition-validate {:>9}); peak inspect {} ({:.1}x, {}), patch {} ({:.1}x, {})",
            files,
            mib(size),
            ms(point.ours.median()),
            if have_theirs { ms(point.theirs.median()) } else { "n/a".into() },
            mib(point.inspect_rss),
            point.inspect_rss as f64 / size as f64,
            goal(point.inspect_rss),
            mib(point.patch_rss),
            point.patch_rss as f64 / size as f64,
            goal(point.patch_rss),
        );
        let others: Vec<String> = point
            .others
            .iter()
            .map(|(name, rss)| format!("{name} {} ({:.1}x)", mib(*rss), *rss as f64 / size as f64))
            .collect();
        println!("  {:>7} files: peak {}", files, others.join(", "));
        points.push(point);
        std::fs::remove_file(&config)?;
    }
    let (first, last) = (&points[0], &points[points.len() - 1]);
    let growth = last.ours.median() / first.ours.median();
    let files_growth = last.files as f64 / first.files as f64;
    bench.ratio_verdict(
        "6a. validate growth from the smallest to the largest config",
        format!("{growth:.1}x for {files_growth:.0}x the files (linear is {files_growth:.0}x)"),
        Ratio {
            value: growth,
            goal: files_growth * 1.5,
            at_least: false,
        },
    );
    let full = !bench.quick;
    if full {
        bench.verdict(
            "6b. validate 200,000 files",
            ms(last.ours.median()),
            last.ours.median() < 2.0,
        );
    }
    if have_theirs {
        let middle = &points[1];
        let ratio = middle.ours.paired_ratio(&middle.theirs);
        bench.ratio_verdict(
            &format!(
                "6c. validate vs ignition-validate at {} files",
                middle.files
            ),
            format!("{:.1}x faster (goal >= 10x)", 1.0 / ratio),
            Ratio {
                value: 1.0 / ratio,
                goal: 10.0,
                at_least: true,
            },
        );
    }
    println!(
        "  peak RSS growth from {} to {} files ({:.1}x the input): inspect {:.2}x, patch {:.2}x",
        first.files,
        last.files,
        last.size as f64 / first.size as f64,
        last.inspect_rss as f64 / first.inspect_rss as f64,
        last.patch_rss as f64 / first.patch_rss as f64,
    );
    let worst = points
        .iter()
        .map(|p| p.inspect_rss.max(p.patch_rss) as f64 / p.size as f64)
        .fold(0.0, f64::max);
    // At the quick sizes the process itself (some 8 MiB) outweighs the config: the memory goals
    // are judged, and checked by --check, on the full sizes only.
    let memory_verdict = |bench: &mut Bench, name: &str, figure: String, worst: f64| {
        let ratio = Ratio {
            value: worst,
            goal: 10.0,
            at_least: false,
        };
        if full {
            bench.ratio_verdict(name, figure, ratio);
        } else {
            bench.verdict(name, figure + " (quick sizes: not judged)", true);
        }
    };
    memory_verdict(
        bench,
        "6d. peak memory of inspect and patch against the config's size",
        format!("{worst:.1}x at worst (goal < 10x)"),
        worst,
    );
    // Issue 25: every other command that reads a config, at the largest size.
    let largest: Vec<String> = last
        .others
        .iter()
        .map(|(name, rss)| format!("{name} {:.1}x", *rss as f64 / last.size as f64))
        .collect();
    let worst_other = last
        .others
        .iter()
        .map(|(_, rss)| *rss as f64 / last.size as f64)
        .fold(0.0, f64::max);
    memory_verdict(
        bench,
        &format!(
            "6e. peak memory of validate, diff, extract, certs, golden at {} files",
            last.files
        ),
        format!("{} (goal < 10x each)", largest.join(", ")),
        worst_other,
    );
    Ok(())
}

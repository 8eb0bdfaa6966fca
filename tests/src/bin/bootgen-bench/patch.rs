//! Benchmark 5: `bootgen patch --disable-unit bootkube.service` on a ~500 KiB config against the
//! same edit as a `jq` program, both as processes. The jq program does what the hold does: it
//! adds (or replaces) the hold drop-in, and adds the hold file and the release script (no unit
//! of a multi-node config requires bootkube, so none is held with it); after the runs the two
//! outputs are compared as JSON.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::fresh::generate_into;
use crate::manifests::{write_manifests, MANIFEST_BYTES};
use crate::measure::{mib, ms, run_child, stdout_to, Samples};
use crate::{Bench, Ratio, Result};

const UNIT: &str = "bootkube.service";
const TARGET_BYTES: u64 = 500 * 1024;

/// The edit, as someone would write it with jq (texts passed in with `--arg`).
const JQ_PROGRAM: &str = r#"
def data_url: "data:text/plain;charset=utf-8;base64," + (. | @base64);
def set_file($path; $text; $mode):
  if any(.storage.files[]?; .path == $path)
  then .storage.files |= map(if .path == $path then .contents = {source: ($text | data_url)} else . end)
  else .storage.files += [{overwrite: true, path: $path, user: {name: "root"},
                           contents: {source: ($text | data_url)}, mode: $mode}]
  end;
.systemd.units |= map(
  if .name == $unit then
    ({contents: $dropin, name: $dropin_name}) as $d
    | if any(.dropins[]?; .name == $dropin_name)
      then .dropins |= map(if .name == $dropin_name then $d else . end)
      else .dropins = ((.dropins // []) + [$d])
      end
  else . end)
| set_file("/etc/bootgen/hold/" + $unit; $hold; 420)
| set_file("/usr/local/bin/bootgen-release"; $script; 365)
"#;

// The texts come from the library, so jq writes exactly what the hold pass writes.
use bootgen::passes::{hold_dropin, hold_file_text, release_script, HOLD_DROPIN};

fn jq_command(program: &Path, input: &Path) -> Command {
    let mut cmd = Command::new("jq");
    cmd.arg("-c")
        .args(["--arg", "unit", UNIT])
        .args(["--arg", "dropin_name", HOLD_DROPIN])
        .args(["--arg", "dropin"])
        .arg(hold_dropin(&[UNIT]))
        .args(["--arg", "hold"])
        .arg(hold_file_text(UNIT, &[]))
        .args(["--arg", "script"])
        .arg(release_script())
        .arg("-f")
        .arg(program)
        .arg(input);
    cmd
}

/// A `bootstrap.ign` of about [`TARGET_BYTES`]: the default cluster plus enough manifests.
fn make_input(bench: &mut Bench) -> Result<(std::path::PathBuf, usize)> {
    let tls = bench.base()?.join("tls");
    let probe = bench.path("patch-probe");
    generate_into(bench.now, Some(&tls), None, &probe, false)?;
    let plain = std::fs::metadata(probe.join("bootstrap.ign"))?.len();
    // Each manifest adds its base64 (4/3 of its size) and a file entry of about 150 bytes.
    let per_manifest = (MANIFEST_BYTES as u64 * 4).div_ceil(3) + 150;
    let count = usize::try_from(TARGET_BYTES.saturating_sub(plain).div_ceil(per_manifest))?;
    let manifests = bench.path("patch-manifests");
    write_manifests(&manifests, count)?;
    let source = bench.path("patch-source");
    generate_into(bench.now, Some(&tls), Some(&manifests), &source, false)?;
    Ok((source.join("bootstrap.ign"), count))
}

/// Runs benchmark 5.
pub fn run(bench: &mut Bench) -> Result<()> {
    let rounds = bench.iterations(3, 31);
    println!(
        "\n5. `bootgen patch --disable-unit {UNIT}` vs the same edit with jq (both as processes)"
    );
    let (input, count) = make_input(bench)?;
    let size = std::fs::metadata(&input)?.len();
    println!(
        "  input: bootstrap.ign of {} (default cluster + {count} manifests of ~10 KiB)",
        mib(size)
    );
    let program = bench.path("hold.jq");
    std::fs::write(&program, JQ_PROGRAM)?;
    let (out_bootgen, out_jq) = (bench.path("patched.ign"), bench.path("patched-jq.ign"));
    let (mut bootgen, mut jq) = (Samples::default(), Samples::default());
    for round in 0..rounds {
        let mut sides = [true, false];
        if round % 2 == 1 {
            sides.reverse();
        }
        for is_bootgen in sides {
            if is_bootgen {
                let mut cmd = bench.cli();
                cmd.arg("patch")
                    .arg(&input)
                    .args(["--disable-unit", UNIT, "--output"])
                    .arg(&out_bootgen);
                bootgen.push(run_child(&mut cmd, Stdio::null(), "bootgen patch")?.wall);
            } else {
                let mut cmd = jq_command(&program, &input);
                jq.push(run_child(&mut cmd, stdout_to(&out_jq)?, "jq")?.wall);
            }
        }
    }
    println!("  bootgen patch: {}", bootgen.describe());
    println!("  jq:            {}", jq.describe());
    let same = same_json(&out_bootgen, &out_jq)?;
    println!(
        "  outputs equal as JSON: {}",
        if same {
            "yes"
        } else {
            "NO (the jq program is not the same edit; the comparison is suspect)"
        }
    );
    let speedup = jq.median() / bootgen.median();
    bench.ratio_verdict(
        "5. bootgen patch vs jq",
        format!(
            "{speedup:.1}x faster ({} vs {} on {}; goal >= 3x)",
            ms(bootgen.median()),
            ms(jq.median()),
            mib(size)
        ),
        Ratio {
            value: speedup,
            goal: 3.0,
            at_least: true,
        },
    );
    Ok(())
}

fn same_json(a: &Path, b: &Path) -> Result<bool> {
    let parse = |p: &Path| -> Result<Value> { Ok(serde_json::from_slice(&std::fs::read(p)?)?) };
    Ok(parse(a)? == parse(b)?)
}

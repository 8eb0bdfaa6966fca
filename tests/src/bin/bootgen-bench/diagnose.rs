//! Benchmark 7: `bootgen diagnose` on a log bundle of 1 GiB (64 MiB with `--quick`), as a
//! process: the bundle is read in one pass as a stream, so its peak memory must not grow with
//! the bundle. Figures: wall time, throughput of uncompressed data, peak RSS.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use crate::measure::{mib, ms, run_child};
use crate::{Bench, Result};

/// The peak memory goal, whatever the bundle's size.
const PEAK_RSS_GOAL: u64 = 128 << 20;

/// One journal line of varied text (a tiny LCG varies the IDs, so gzip cannot squeeze it away).
fn journal_line(seed: &mut u64, out: &mut Vec<u8>) {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let (a, b) = (*seed >> 40, (*seed >> 8) & 0xffff_ffff);
    let _ = writeln!(
        out,
        "2026-01-01T01:{:02}:{:02}+0000 bootstrap kubelet[{}]: I0101 reconciler.go:{}] \"operationExecutor.MountVolume started\" volume={a:x} pod=\"openshift-etcd/etcd-{b:x}\"",
        (a % 60),
        (b % 60),
        a % 30000,
        b % 900
    );
}

type Bundle = tar::Builder<GzEncoder<BufWriter<File>>>;

fn add(tar: &mut Bundle, name: &str, data: &[u8]) -> Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    tar.append_data(&mut header, name, data)?;
    Ok(())
}

/// Writes a bundle of about `size` compressed bytes: records of a failed bootkube, many large
/// journals, and one evidence line at the very end.
fn write_bundle(path: &Path, size: u64) -> Result<u64> {
    let file = BufWriter::new(File::create(path)?);
    let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
    let records = br#"[{"timestamp":"2026-01-01T01:00:00Z","phase":"service start"},
{"timestamp":"2026-01-01T01:00:01Z","phase":"stage start","stage":"wait-for-etcd"},
{"timestamp":"2026-01-01T01:30:00Z","phase":"stage end","stage":"wait-for-etcd","result":"failure","errorMessage":"timed out"}]"#;
    add(
        &mut tar,
        "log-bundle-1/bootstrap/services/bootkube.json",
        records,
    )?;
    let mut seed = 1u64;
    let mut uncompressed = 0u64;
    let mut index = 0;
    // Small entries keep this process small: a child's peak RSS (ru_maxrss) starts at the
    // parent's resident size when it is forked.
    let chunk_lines = 50_000;
    loop {
        let written = tar.get_ref().get_ref().get_ref().metadata()?.len();
        if written >= size {
            break;
        }
        let mut data = Vec::with_capacity(chunk_lines * 170);
        for _ in 0..chunk_lines {
            journal_line(&mut seed, &mut data);
        }
        uncompressed += data.len() as u64;
        add(
            &mut tar,
            &format!("log-bundle-1/control-plane/m{index}/journals/kubelet.log"),
            &data,
        )?;
        index += 1;
    }
    let last = b"{\"level\":\"warn\",\"msg\":\"failed to publish local member to cluster through raft\",\"error\":\"etcdserver: request timed out\"}\n";
    add(
        &mut tar,
        "log-bundle-1/bootstrap/containers/etcd-1.log",
        last,
    )?;
    tar.into_inner()?.finish()?.flush()?;
    Ok(uncompressed)
}

/// Runs benchmark 7.
pub fn run(bench: &mut Bench) -> Result<()> {
    let size: u64 = if bench.quick { 64 << 20 } else { 1 << 30 };
    println!(
        "\n7. Diagnose: `bootgen diagnose --json` on a {} log bundle, as a process",
        mib(size)
    );
    let bundle = bench.path("log-bundle-bench.tar.gz");
    let uncompressed = write_bundle(&bundle, size)?;
    let on_disk = std::fs::metadata(&bundle)?.len();
    let report = bench.path("diagnose.json");
    let mut cmd = bench.cli();
    cmd.args(["diagnose", "--json"]).arg(&bundle);
    // Exit 1 (a failure explained) is the expected result; run_child wants 0, so wrap it.
    let mut shell = std::process::Command::new("sh");
    shell
        .arg("-c")
        .arg("\"$@\"; [ $? -eq 1 ]")
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .envs(cmd.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))));
    let run = run_child(
        &mut shell,
        crate::measure::stdout_to(&report)?,
        "bootgen diagnose",
    )?;
    let text = std::fs::read_to_string(&report)?;
    if !text.contains("\"etcd-unhealthy\"") {
        return Err(format!("the diagnosis missed the cause at the bundle's end: {text}").into());
    }
    let seconds = run.wall.as_secs_f64();
    println!(
        "  bundle {} on disk, {} uncompressed; {}; {:.0} MiB/s uncompressed; peak RSS {}",
        mib(on_disk),
        mib(uncompressed),
        ms(seconds),
        uncompressed as f64 / (1 << 20) as f64 / seconds,
        mib(run.peak_rss)
    );
    bench.verdict(
        "7. diagnose memory",
        format!(
            "peak RSS {} for a {} bundle (goal <= {})",
            mib(run.peak_rss),
            mib(on_disk),
            mib(PEAK_RSS_GOAL)
        ),
        run.peak_rss <= PEAK_RSS_GOAL,
    );
    let _ = std::fs::remove_file(&bundle);
    Ok(())
}

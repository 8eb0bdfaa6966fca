//! Timing: samples with their median and 90th percentile, and child processes measured with
//! `wait4` (wall time, CPU time and peak resident memory).

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::Result;

/// Durations of repeated runs of one side of a comparison, in seconds.
#[derive(Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    /// Adds one run.
    pub fn push(&mut self, d: Duration) {
        self.0.push(d.as_secs_f64());
    }

    /// How many runs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    fn sorted(&self) -> Vec<f64> {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v
    }

    /// The median (the mean of the two middle runs for an even count); 0 when empty.
    pub fn median(&self) -> f64 {
        median(&self.0)
    }

    /// The 90th percentile, nearest rank.
    pub fn p90(&self) -> f64 {
        let v = self.sorted();
        let rank = (v.len() as f64 * 0.9).ceil() as usize;
        v.get(rank.saturating_sub(1)).copied().unwrap_or(0.0)
    }

    /// `median 812 ms, p90 840 ms (n=21)`.
    pub fn describe(&self) -> String {
        format!(
            "median {}, p90 {} (n={})",
            ms(self.median()),
            ms(self.p90()),
            self.len()
        )
    }

    /// The median of the per-iteration ratios `self[i] / other[i]`, over the runs both have.
    pub fn paired_ratio(&self, other: &Samples) -> f64 {
        let ratios: Vec<f64> = self
            .0
            .iter()
            .zip(&other.0)
            .filter(|(_, b)| **b > 0.0)
            .map(|(a, b)| a / b)
            .collect();
        median(&ratios)
    }
}

/// The median of `values`; 0 when empty.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Seconds as `12.3 ms` or `4.56 s`.
pub fn ms(seconds: f64) -> String {
    if seconds >= 10.0 {
        format!("{seconds:.1} s")
    } else if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else {
        format!("{:.1} ms", seconds * 1e3)
    }
}

/// Bytes as MiB with one decimal (or KiB below 1 MiB).
pub fn mib(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
    } else {
        format!("{:.0} KiB", bytes as f64 / 1024.0)
    }
}

/// Times `f`.
pub fn time<T>(f: impl FnOnce() -> Result<T>) -> Result<(Duration, T)> {
    let start = Instant::now();
    let value = f()?;
    Ok((start.elapsed(), value))
}

/// One finished child process.
pub struct ChildRun {
    /// From just before the spawn to the reaping.
    pub wall: Duration,
    /// User and system CPU time of the child, all its threads.
    pub cpu: Duration,
    /// Peak resident set size (`ru_maxrss`), in bytes.
    pub peak_rss: u64,
}

/// User plus system time in `usage`.
fn cpu_of(usage: &libc::rusage) -> Duration {
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The CPU time this process (all its threads) has used so far: around an in-process run, what
/// [`ChildRun::cpu`] is for a child. Unlike wall time it does not count waiting for a core, so
/// on a loaded machine it tells the work apart from the queue.
pub fn own_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is memory we own, zeroed, and getrusage only writes into it.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    // SAFETY: zeroed before the call, and filled in by it when it succeeded.
    let usage = unsafe { usage.assume_init() };
    if ok {
        cpu_of(&usage)
    } else {
        Duration::ZERO
    }
}

/// Runs `cmd` to completion with `stdout` as its standard output; fails with its standard
/// error when it does not exit 0.
pub fn run_child(cmd: &mut Command, stdout: Stdio, what: &str) -> Result<ChildRun> {
    let mut stderr = tempfile::tempfile()?;
    cmd.stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr.try_clone()?);
    let start = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {what}: {e}"))?;
    let (code, usage) = wait_with_rusage(child.id())?;
    let wall = start.elapsed();
    if code != 0 {
        // The child wrote through a shared offset: read from the start.
        let mut text = String::new();
        let _ = stderr
            .seek(SeekFrom::Start(0))
            .and_then(|_| stderr.read_to_string(&mut text));
        return Err(format!("{what} failed ({code}): {}", text.trim()).into());
    }
    // Linux reports ru_maxrss in KiB.
    let peak_rss = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    Ok(ChildRun {
        wall,
        cpu: cpu_of(&usage),
        peak_rss,
    })
}

/// Reaps child `pid` with `wait4`, the only way to get the peak memory and CPU time of exactly
/// that child. Returns its exit code (negative: the signal that killed it) and its usage.
fn wait_with_rusage(pid: u32) -> Result<(i32, libc::rusage)> {
    let pid = libc::pid_t::try_from(pid)?;
    let mut status: libc::c_int = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (std's `Child` never waited on it);
        // `status` and `usage` point to memory we own for the duration of the call.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
        if reaped == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4 on child {pid}: {err}").into());
        }
    }
    // SAFETY: wait4 succeeded, so the kernel filled in `usage` (and it was zeroed before).
    let usage = unsafe { usage.assume_init() };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -libc::WTERMSIG(status)
    };
    Ok((code, usage))
}

/// A file for a child's standard output.
pub fn stdout_to(path: &Path) -> Result<Stdio> {
    Ok(Stdio::from(File::create(path)?))
}

/// Total size of the regular files under `dir`.
pub fn dir_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            total += dir_size(&entry.path())?;
        } else if kind.is_file() {
            total += entry.metadata()?.len();
        }
    }
    Ok(total)
}

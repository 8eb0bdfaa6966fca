//! How errors and warnings reach the terminal: `error: ...` then one `caused by: ...` line per
//! source in the chain. Everything printed for a person goes through `terminal_safe` here:
//! configs, log bundles and paths can hold escape sequences, which are shown, never obeyed.
//! JSON is written with those characters as JSON escapes (`SafeJson`).

use crate::{EXIT_INPUT, EXIT_INTERNAL};
use anyhow::Context as _;
use bootgen::report::{is_terminal_unsafe, terminal_safe};
use serde_json::ser::{Formatter, PrettyFormatter};
use std::io::Write as _;
use std::path::Path;

/// A message as one labelled entry: escapes shown, and every line after the first indented, so
/// a line break in a value it quotes (`--add-host $'ip=a\nnote: all good'`) cannot start a
/// line of its own that reads as another `note:` or `error:`.
fn entry(message: &str) -> String {
    terminal_safe(message).replace('\n', "\n  ")
}

/// Prints an error and its causes to stderr; the library's errors name the flags.
pub fn print_error(error: &anyhow::Error) {
    for (i, cause) in error.chain().enumerate() {
        let text = match cause.downcast_ref::<bootgen::Error>() {
            Some(e) => crate::options::describe_error(e),
            None => cause.to_string(),
        };
        let label = if i == 0 { "error" } else { "caused by" };
        eprintln!("{label}: {}", entry(&text));
    }
}

/// Prints an error message that is not an `anyhow::Error` (the caller picks the exit code).
pub fn error_line(message: impl std::fmt::Display) {
    eprintln!("error: {}", entry(&message.to_string()));
}

/// 1 for input the user can fix, 2 for bootgen's own failures.
pub fn exit_code_for(error: &anyhow::Error) -> u8 {
    match error.downcast_ref::<bootgen::Error>() {
        Some(e) if !e.is_input_error() => EXIT_INTERNAL,
        _ => EXIT_INPUT,
    }
}

/// Prints a warning to stderr.
pub fn warn(message: impl std::fmt::Display) {
    eprintln!("warning: {}", entry(&message.to_string()));
}

/// Prints a notice to stderr (something the user should know, not a problem).
pub fn notice(message: impl std::fmt::Display) {
    eprintln!("note: {}", entry(&message.to_string()));
}

/// Writes `text` to standard output; a reader that went away (`| head`) is not an error.
pub fn emit(text: impl AsRef<str>) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(terminal_safe(text.as_ref()).as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write standard output")
        }
        _ => Ok(()),
    }
}

/// Writes `value` as pretty JSON and a newline.
pub fn emit_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    // Streamed: the text of a large config's report is not held whole.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, SafeJson(PrettyFormatter::new()));
    let written = value
        .serialize(&mut serializer)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    finish_stdout(written)
}

/// Writes `value`'s text (its `Display`) to standard output, streamed rather than built whole.
pub fn emit_display(value: &impl std::fmt::Display) -> anyhow::Result<()> {
    let mut out = SafeWriter {
        out: std::io::BufWriter::new(std::io::stdout().lock()),
        error: None,
    };
    let written = match std::fmt::Write::write_fmt(&mut out, format_args!("{value}")) {
        Err(_) => Err(out
            .error
            .take()
            .unwrap_or_else(|| std::io::Error::other("formatting failed"))),
        Ok(()) => out.out.flush(),
    };
    finish_stdout(written)
}

/// Text written through `terminal_safe`, piece by piece as `Display` produces it (each piece
/// is whole characters, so nothing to escape is ever split); keeps the first write error.
struct SafeWriter<W: std::io::Write> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> std::fmt::Write for SafeWriter<W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out
            .write_all(terminal_safe(s).as_bytes())
            .map_err(|e| {
                self.error = Some(e);
                std::fmt::Error
            })
    }
}

/// Pretty JSON in which the characters JSON leaves as they are but a terminal may obey (DEL,
/// the C1 controls, the bidirectional overrides) are written as `\uXXXX`: the same strings
/// for a JSON reader, nothing raw for a person looking at it.
struct SafeJson(PrettyFormatter<'static>);

/// Delegates the layout to the pretty formatter.
macro_rules! pretty {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $name<W: ?Sized + std::io::Write>(&mut self, writer: &mut W $(, $arg: $ty)*) -> std::io::Result<()> {
            self.0.$name(writer $(, $arg)*)
        }
    )*};
}

impl Formatter for SafeJson {
    pretty! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        begin_object_value();
        end_object_value();
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|(_, c)| is_terminal_unsafe(*c)) {
            writer.write_all(&rest.as_bytes()[..at])?;
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }
}

/// A closed pipe is not an error (`bootgen inspect X | head`); anything else is.
fn finish_stdout(written: std::io::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write standard output")
        }
        _ => Ok(()),
    }
}

/// Writes a single-file output (`-o`): to standard output for `-`, else atomically to `path`
/// with `mode`. A reader that went away is an error here: the output would be cut short.
pub fn write_output(path: &Path, contents: &[u8], mode: u32) -> anyhow::Result<()> {
    if crate::input::is_stdio(path) {
        if mode & 0o077 == 0 {
            warn_if_stdout_readable_by_others();
        }
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(contents)
            .and_then(|()| stdout.flush())
            .context("cannot write standard output")?;
    } else {
        bootgen::output::write_atomic(path, contents, mode)?;
    }
    Ok(())
}

/// Warns when standard output is a regular file others can read (a shell's `> file` makes it
/// 0644 under the usual umask) and what goes there is private: a patched bootstrap config or a
/// tarball carries every key of the cluster.
fn warn_if_stdout_readable_by_others() {
    let Ok(stat) = rustix::fs::fstat(std::io::stdout()) else {
        return;
    };
    let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
    let mode = stat.st_mode & 0o777;
    if kind == rustix::fs::FileType::RegularFile && mode & 0o077 != 0 {
        warn(format!(
            "standard output is a file others can read (mode {mode:04o}), and what is written there may hold private keys (a bootstrap config holds every key of the cluster): chmod 600 it, or write with -o FILE, which is made 0600"
        ));
    }
}

/// A size budget (the library's text), then what the CLI can do about it: the flag that gzips
/// the files, the command that makes a pointer config for the config at `config`.
pub fn emit_budget(budget: &bootgen::report::SizeBudget, config: &Path) -> anyhow::Result<()> {
    emit(budget.to_string() + &budget_hints(budget, config))
}

/// Warns when others may read the file at `path` (group or other bits in its mode), which
/// holds `what` (followed by the advice). A file that is missing says nothing.
pub fn warn_if_others_can_read(path: &Path, what: &str) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    let mode = meta.permissions().mode() & 0o777;
    if meta.is_file() && mode & 0o077 != 0 {
        warn(format!(
            "{} is readable by others (mode {mode:04o}) and {what}",
            path.display()
        ));
    }
}

/// `path` as one shell word, quoted only when it must be, so a printed command can be pasted.
pub fn shell_word(path: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !path.is_empty() && path.chars().all(plain) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The CLI's ways out of a size budget, one line each (empty when it fits everywhere), for the
/// config file at `config` (`-`: standard input, named `config.ign` in the hints). The pointer
/// command reads the config from that path and names the file's own name in the URL.
pub fn budget_hints(budget: &bootgen::report::SizeBudget, config: &Path) -> String {
    use bootgen::report::WayOut;
    let mut out = String::new();
    let compress_helps = budget
        .channels
        .iter()
        .any(|line| !line.fits && line.way_out == WayOut::Compress);
    if compress_helps {
        out.push_str("  to gzip its files: bootgen ignition (or bootgen patch) with --compress\n");
    }
    if budget.needs_pointer() {
        let (path, served) = match config.file_name() {
            Some(name) if !crate::input::is_stdio(config) => (
                config.display().to_string(),
                name.to_string_lossy().into_owned(),
            ),
            _ => ("config.ign".to_string(), "config.ign".to_string()),
        };
        out.push_str(&format!(
            "  to make a pointer config: bootgen pointer --url https://HOST/{} [--ca CA.pem] {} -o pointer.ign\n",
            shell_word(&served),
            shell_word(&path)
        ));
    }
    out
}

//! The bootstrap machine over SSH, for `check --watch`: `ssh` and `scp` as `core` with the
//! output's `auth/bootstrap-ssh-key`, never asking anything (batch mode), each with a time limit.
//! The machine is new with every install, so its host key is not kept or checked.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One bootstrap machine.
pub struct Remote {
    host: String,
    key: PathBuf,
    connect_timeout: u64,
}

impl Remote {
    /// The machine at `host`, logged in to with `key`.
    pub fn new(host: &str, key: &Path, connect_timeout: u64) -> Remote {
        Remote {
            host: host.to_string(),
            key: key.to_path_buf(),
            connect_timeout,
        }
    }

    fn options(&self, command: &mut Command) {
        command
            .arg("-i")
            .arg(&self.key)
            .args(["-o", "BatchMode=yes"])
            .args(["-o", &format!("ConnectTimeout={}", self.connect_timeout)])
            .args(["-o", "StrictHostKeyChecking=no"])
            .args(["-o", "UserKnownHostsFile=/dev/null"])
            .args(["-o", "LogLevel=ERROR"]);
    }

    /// Runs `command` on the machine; its standard output, or why it failed.
    pub fn run(&self, command: &str) -> Result<String, String> {
        let mut ssh = Command::new("ssh");
        self.options(&mut ssh);
        let output = ssh
            .arg(format!("core@{}", self.host))
            .arg(command)
            .output()
            .map_err(|e| format!("cannot run ssh: {e}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(format!(
                "ssh core@{} ({}): {}",
                self.host,
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    }

    /// Copies `file` (in core's home) into `dir`; the local path.
    pub fn fetch(&self, file: &str, dir: &Path) -> Result<PathBuf, String> {
        let mut scp = Command::new("scp");
        self.options(&mut scp);
        let local = dir.join(file);
        let output = scp
            .arg(format!("core@{}:{file}", self.host))
            .arg(&local)
            .output()
            .map_err(|e| format!("cannot run scp: {e}"))?;
        if output.status.success() && local.exists() {
            Ok(local)
        } else {
            Err(format!(
                "scp of {file} from {} ({}): {}",
                self.host,
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    }
}

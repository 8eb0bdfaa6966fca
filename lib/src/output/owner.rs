//! An output directory another user controls is refused before anything is read from it or
//! written into it (see `crate::ownership`): the directory itself, its `auth/` and `tls/`, and
//! what those two hold. Keys written there, or reused from there, would be that user's too.

use super::Links;
use crate::error::{Error, Result};
use crate::ownership::refuse_foreign;
use std::fs;
use std::path::Path;

/// Refuses `dir` when another user controls it, or its `auth/` or `tls/` or a file in them.
/// Nothing there is no error. `tls/` as a link named on purpose ([`Links::AllowTls`]) is the
/// PKI's and checked where the PKI is read.
pub fn refuse_foreign_output(dir: &Path, links: Links) -> Result<()> {
    let foreign = |foreign| Error::ForeignOutput { foreign };
    // The directory as named, a link to it followed: the directory written into is checked.
    let Ok(meta) = fs::metadata(dir) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Ok(());
    }
    refuse_foreign(dir, &meta).map_err(foreign)?;
    for inner in ["auth", "tls"] {
        let path = dir.join(inner);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            // Refused as a link by the write unless named on purpose; never entered here.
            continue;
        }
        refuse_foreign(&path, &meta).map_err(foreign)?;
        if !meta.is_dir() || inner == "tls" && links == Links::AllowTls {
            continue;
        }
        let entries = fs::read_dir(&path).map_err(|e| Error::io("cannot read", &path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("cannot read", &path, e))?;
            let meta = entry
                .metadata()
                .map_err(|e| Error::io("cannot read", entry.path(), e))?;
            refuse_foreign(&entry.path(), &meta).map_err(foreign)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn an_own_output_is_taken_and_an_open_tls_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        assert!(refuse_foreign_output(dir.path(), Links::Refuse).is_ok());
        let tls = dir.path().join("tls");
        fs::create_dir(&tls).unwrap();
        fs::write(tls.join("root-ca.key"), b"k").unwrap();
        assert!(refuse_foreign_output(dir.path(), Links::Refuse).is_ok());
        fs::set_permissions(tls.join("root-ca.key"), fs::Permissions::from_mode(0o646)).unwrap();
        let text = refuse_foreign_output(dir.path(), Links::Refuse)
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("tls/root-ca.key may be written by every user"),
            "{text}"
        );
        assert!(text.contains("write to a new output directory"), "{text}");
    }
}

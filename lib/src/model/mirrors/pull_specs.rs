//! Where a pull spec lies: its host, its repository, and whether a mirrored source covers it.

/// The host (with port) of a repository reference.
pub fn host_of(reference: &str) -> &str {
    reference.split('/').next().unwrap_or(reference)
}

/// True when `image` (a pull spec) lies under the repository prefix `source`.
pub fn matches_source(image: &str, source: &str) -> bool {
    let repo = repository_of(image);
    repo == source || repo.starts_with(&format!("{source}/"))
}

/// The repository part of a pull spec (without tag or digest).
pub fn repository_of(image: &str) -> &str {
    if let Some((repo, _)) = image.split_once('@') {
        return repo;
    }
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => &image[..colon],
        _ => image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_and_source_matching() {
        assert_eq!(repository_of("quay.io/a/b:4.19"), "quay.io/a/b");
        assert_eq!(repository_of("reg:5000/a/b@sha256:00"), "reg:5000/a/b");
        assert_eq!(repository_of("reg:5000/a/b"), "reg:5000/a/b");
        assert!(matches_source("quay.io/a/b:1", "quay.io/a"));
        assert!(!matches_source("quay.io/ab:1", "quay.io/a"));
    }
}

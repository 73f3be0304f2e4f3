//! `s3://BUCKET/PREFIX` archive roots.

use std::path::Path;

use crate::Error;

/// An object-store archive root: a bucket and a key prefix (no leading or trailing `/`; empty
/// for an archive at the top of the bucket).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Url {
    /// The bucket name.
    pub bucket: String,
    /// The key prefix the archive's `warc/` lies under.
    pub prefix: String,
}

impl S3Url {
    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX`; the error names the argument.
    pub fn parse(text: &str) -> Result<S3Url, Error> {
        let bad = |why: &str| Error(format!("archive root {text:?}: {why}"));
        let rest = text
            .strip_prefix("s3://")
            .ok_or_else(|| bad("not an s3:// URL"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !bucket_ok {
            return Err(bad(
                "the bucket name must be 3 to 63 lowercase letters, digits, '-' or '.'",
            ));
        }
        if prefix.contains(['?', '#']) {
            return Err(bad("a query or fragment is not part of an archive root"));
        }
        let prefix = prefix.trim_matches('/');
        if prefix.split('/').any(|part| part == "." || part == "..") || prefix.contains("//") {
            return Err(bad("the prefix has an empty, '.' or '..' segment"));
        }
        Ok(S3Url {
            bucket: bucket.to_string(),
            prefix: prefix.to_string(),
        })
    }

    /// Parses a `--root` argument given as a path.
    pub fn from_root(root: &Path) -> Result<S3Url, Error> {
        match root.to_str() {
            Some(text) => S3Url::parse(text),
            None => Err(Error(format!("archive root {}: not UTF-8", root.display()))),
        }
    }
}

impl std::fmt::Display for S3Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.prefix.is_empty() {
            write!(f, "s3://{}", self.bucket)
        } else {
            write!(f, "s3://{}/{}", self.bucket, self.prefix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_and_prefix() {
        let url = S3Url::parse("s3://my-bucket/archives/ld/").unwrap();
        assert_eq!(url.bucket, "my-bucket");
        assert_eq!(url.prefix, "archives/ld");
        assert_eq!(url.to_string(), "s3://my-bucket/archives/ld");
        let top = S3Url::parse("s3://my-bucket").unwrap();
        assert_eq!(top.prefix, "");
        assert_eq!(top.to_string(), "s3://my-bucket");
    }

    #[test]
    fn refuses_bad_names() {
        for text in [
            "s3://",
            "s3://AB/x",
            "s3://my_bucket/x",
            "s3://bucket/a/../b",
            "s3://bucket/a//b",
            "s3://bucket/a?x=1",
            "http://bucket/a",
        ] {
            let error = S3Url::parse(text).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("archive root {text:?}: ")),
                "{error}"
            );
        }
    }
}

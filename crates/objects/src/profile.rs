//! The AWS shared configuration files: `~/.aws/credentials` and `~/.aws/config`, one profile
//! (`AWS_PROFILE`, else `default`). Only `key = value` lines of the chosen section are read;
//! the client crate does not read these files itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The settings of one profile, credentials file first.
#[derive(Debug, Default)]
pub(crate) struct Profile {
    /// The profile's name.
    pub(crate) name: String,
    values: BTreeMap<String, String>,
}

impl Profile {
    /// Reads the profile named by `AWS_PROFILE` (or `default`) from both files; a missing
    /// file is no error, an unreadable one is.
    pub(crate) fn read() -> Result<Profile, String> {
        let name = crate::env("AWS_PROFILE").unwrap_or_else(|| "default".to_string());
        let home = crate::env("HOME").map(PathBuf::from);
        let credentials = crate::env("AWS_SHARED_CREDENTIALS_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join("credentials")));
        let config = crate::env("AWS_CONFIG_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join("config")));
        let mut profile = Profile {
            name: name.clone(),
            values: BTreeMap::new(),
        };
        // In the config file every profile but `default` is written `[profile NAME]`.
        let config_section = if name == "default" {
            name.clone()
        } else {
            format!("profile {name}")
        };
        for (file, section) in [(credentials, name.clone()), (config, config_section)] {
            let Some(file) = file else { continue };
            for (key, value) in read_section(&file, &section)? {
                profile.values.entry(key).or_insert(value);
            }
        }
        Ok(profile)
    }

    /// A value of the profile, if set and not empty.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.values.get(key).filter(|v| !v.is_empty()).cloned()
    }
}

fn read_section(file: &Path, section: &str) -> Result<Vec<(String, String)>, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    Ok(parse_section(&text, section))
}

/// The `key = value` pairs of `[section]` in an INI text.
fn parse_section(text: &str, section: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut pairs = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
            continue;
        }
        if inside && let Some((key, value)) = line.split_once('=') {
            pairs.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::parse_section;

    #[test]
    fn reads_only_the_named_section() {
        let text = "[default]\naws_access_key_id = A\n# note\n[profile other]\nregion = eu-west-1\n\
                    endpoint_url=http://127.0.0.1:9000\n[x]\nregion = no\n";
        assert_eq!(
            parse_section(text, "default"),
            vec![("aws_access_key_id".to_string(), "A".to_string())]
        );
        assert_eq!(
            parse_section(text, "profile other"),
            vec![
                ("region".to_string(), "eu-west-1".to_string()),
                (
                    "endpoint_url".to_string(),
                    "http://127.0.0.1:9000".to_string()
                )
            ]
        );
    }
}

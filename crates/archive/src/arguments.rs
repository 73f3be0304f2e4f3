//! Checks of command-line values shared by every crate that defines flags (the binary and
//! the crawler's settings), so that one bad value gets one wording wherever it is given.

use std::path::PathBuf;

/// A text value that must say something: an empty value is refused, not taken as unset.
pub fn non_empty(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty value".into())
    } else {
        Ok(text.to_string())
    }
}

/// A file argument checked before any command runs: it names an existing regular file (a
/// FIFO would block the command on open, a directory fail later with a vaguer message).
pub fn input_file(path: std::ffi::OsString) -> Result<PathBuf, String> {
    let path = PathBuf::from(path);
    if path.as_os_str().is_empty() {
        return Err("an empty path".into());
    }
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(path),
        Ok(meta) if meta.is_dir() => Err("a directory, not a file".into()),
        Ok(_) => Err("not a regular file (a FIFO, socket or device)".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// The value parser of a file argument: [`input_file`] on the argument as given.
pub fn existing_file() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(input_file)
}

//! The command-line vocabulary, defined once and used by every command: archive roots,
//! durations and sizes with units, machine-readable output formats, and the notes printed for
//! spellings that are deprecated.
//!
//! - `--root DIR` is repeatable wherever a command reads (several roots answer as one archive);
//!   commands that write take exactly one.
//! - A duration is one or more `<number><unit>` terms: `250ms`, `2s`, `36h`, `1d12h`, `2w`
//!   (units `ms`, `s`, `m`, `h`, `d`, `w`). A bare number is still read in the flag's historical
//!   unit for one release, with a note on stderr.
//! - A size is a number with an optional unit: `B`, `KB`, `MB`, `GB`, `TB` (powers of 1000),
//!   `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024); a bare number is bytes.
//! - `--format` names every machine-readable output (`json`, `jsonl`, `csv`, `text`, RDF
//!   syntaxes where they apply); `-o/--output FILE` always names a file; `-` is stdin.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use clap::{ArgAction, Args};

use ldwarc_dynamics::duration::{DAY, parse_flag_duration};

/// Whether a file argument is `-`: standard input (or standard output for `-o`).
pub fn is_stdio(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// The whole content of a file argument, `-` reading standard input; an error names the file.
pub fn read_input(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    if is_stdio(path) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| std::io::Error::new(e.kind(), format!("standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(named)
}

/// A text file argument (`-`: standard input), which must be UTF-8.
pub fn read_input_text(path: &std::path::Path) -> std::io::Result<String> {
    String::from_utf8(read_input(path)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{}: not UTF-8 text (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The one archive root a writing or maintaining command works on.
#[derive(Debug, Clone, Args)]
pub struct RootArg {
    /// Archive root directory (holds warc/, index/, state/).
    #[arg(long, env = "LDWARC_ROOT", default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// The archive roots a reading command answers from: one, or several (each node's root)
/// merged as one archive.
#[derive(Debug, Clone, Args)]
pub struct RootsArg {
    /// Archive root directory (holds warc/, index/, state/). Repeat to answer from several
    /// roots as one archive: captures merged by URL and time, a capture held by two roots
    /// counted once (the first root given keeps it).
    #[arg(
        long = "root",
        env = "LDWARC_ROOT",
        default_value = ".",
        value_name = "DIR",
        action = ArgAction::Append
    )]
    pub roots: Vec<PathBuf>,
}

impl RootsArg {
    /// Refuses (bad input, naming the root) unless every root is an archive: a directory
    /// holding `warc/`. Reading a folder that is not an archive is a mistake, not an empty
    /// answer, and nothing is created in it.
    pub fn require_archives(&self) -> std::io::Result<()> {
        self.roots.iter().try_for_each(|root| require_archive(root))
    }
}

impl RootArg {
    /// [`RootsArg::require_archives`] for the one root.
    pub fn require_archive(&self) -> std::io::Result<()> {
        require_archive(&self.root)
    }
}

/// Fails unless `root` is an archive: an existing directory with a `warc/` folder.
pub fn require_archive(root: &std::path::Path) -> std::io::Result<()> {
    ldwarc_archive::archive::require_root(root)?;
    if root.join("warc").is_dir() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "archive root {}: not an archive (no warc/ folder); crawl or import into it first",
            root.display()
        ),
    ))
}

/// Parses a duration flag whose bare numbers historically meant seconds (crawl and server
/// timeouts, delays).
pub fn duration_seconds(text: &str) -> Result<Duration, String> {
    duration_with_bare_unit(text, 1.0, "seconds").map(Duration::from_secs_f64)
}

/// A duration as [`duration_seconds`] reads it, refused when zero (a limit of no time at all
/// would refuse everything).
pub fn positive_duration_seconds(text: &str) -> Result<Duration, String> {
    let duration = duration_seconds(text)?;
    if duration.is_zero() {
        return Err(format!("{text:?}: must be more than 0"));
    }
    Ok(duration)
}

/// A count of at least 1 (a limit of 0 would refuse everything).
pub fn positive_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err(format!("{text:?}: must be at least 1")),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("{text:?}: expected a whole number")),
    }
}

/// Parses a duration flag whose bare numbers historically meant seconds, returned in seconds.
pub fn seconds_f64(text: &str) -> Result<f64, String> {
    duration_with_bare_unit(text, 1.0, "seconds")
}

/// Parses a duration flag whose bare numbers historically meant days (the planning and
/// statistics commands, in the unit of the papers), returned in seconds.
pub fn duration_days(text: &str) -> Result<f64, String> {
    duration_with_bare_unit(text, DAY, "days")
}

fn duration_with_bare_unit(text: &str, bare_unit: f64, unit_name: &str) -> Result<f64, String> {
    let (seconds, bare) = parse_flag_duration(text, bare_unit).map_err(|e| e.to_string())?;
    if bare {
        deprecated(&bare_duration_note(text, unit_name));
    }
    Ok(seconds)
}

/// Parses a Weibull distribution of mean change times written `SHAPE,SCALE` (the scale a
/// duration whose bare numbers mean days): `plan --weibull` and `simulate --weibull`.
pub fn weibull(text: &str) -> Result<ldwarc_dynamics::Weibull, String> {
    let (shape, scale) = text
        .split_once(',')
        .ok_or_else(|| format!("'{text}' is not SHAPE,SCALE (like 1.4,152.2d)"))?;
    let shape: f64 = shape
        .trim()
        .parse()
        .map_err(|_| format!("Weibull shape '{shape}' is not a number"))?;
    let scale = duration_days(scale)?;
    ldwarc_dynamics::Weibull::new(shape, scale).map_err(|e| e.to_string())
}

/// The deprecation note of a duration written without a unit.
pub fn bare_duration_note(text: &str, unit_name: &str) -> String {
    format!(
        "a duration without a unit ('{text}') is read as {unit_name}; write it with a unit \
         (like {text}{})",
        if unit_name == "days" { "d" } else { "s" }
    )
}

/// Parses a size: bytes, optionally with a unit (`64MiB`, `1.5GB`, `12000`).
pub fn size(text: &str) -> Result<u64, String> {
    ldwarc_archive::size::parse_size(text)
}

pub use ldwarc_archive::arguments::{existing_file, input_file, non_empty};

/// [`input_file`], or `-` for standard input.
pub fn input_file_or_stdin(path: std::ffi::OsString) -> Result<PathBuf, String> {
    if path == "-" {
        return Ok(PathBuf::from("-"));
    }
    input_file(path)
}

/// The value parser of a file argument that may be `-`: [`input_file_or_stdin`].
pub fn existing_file_or_stdin() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(input_file_or_stdin)
}

/// [`input_file_or_stdin`] for arguments kept as text.
pub fn input_file_or_stdin_text(text: &str) -> Result<String, String> {
    input_file_or_stdin(text.into()).map(|_| text.to_string())
}

/// Notes a deprecated spelling that still works this release. Notes met while the command
/// line is parsed wait for the log to be set up ([`emit_deprecations`]); each is logged once.
pub fn deprecated(what: &str) {
    let mut notes = DEPRECATIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if notes.seen.insert(what.to_string()) {
        if notes.logging {
            tracing::warn!(target: "ldwarc::cli", "deprecated: {what}");
        } else {
            notes.pending.push(what.to_string());
        }
    }
}

/// Logs the deprecation notes of the command line, once the log is set up.
pub fn emit_deprecations() {
    let mut notes = DEPRECATIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    notes.logging = true;
    for what in std::mem::take(&mut notes.pending) {
        tracing::warn!(target: "ldwarc::cli", "deprecated: {what}");
    }
}

struct Deprecations {
    seen: BTreeSet<String>,
    pending: Vec<String>,
    logging: bool,
}

static DEPRECATIONS: Mutex<Deprecations> = Mutex::new(Deprecations {
    seen: BTreeSet::new(),
    pending: Vec::new(),
    logging: false,
});

/// Resolves `--format` against the deprecated `--json` switch of the same command.
pub fn format_or_json<F: Copy>(format: Option<F>, json: bool, json_format: F, default: F) -> F {
    if json {
        deprecated("--json is now --format json");
        return json_format;
    }
    format.unwrap_or(default)
}

/// Machine-readable output of commands that print records or a summary: `text` for people,
/// `json` for programs (one JSON object per line where the output is a list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TextOrJson {
    /// Lines for people.
    Text,
    /// JSON: one object per line for lists, else one object.
    #[value(alias = "jsonl")]
    Json,
}

/// `--format text|json` of a command whose output is for people or for programs, with the
/// deprecated `--json` switch it replaces.
#[derive(Debug, Clone, Args)]
pub struct TextFormat {
    /// Output format: text for people, or json for programs (one JSON object per line where
    /// the output is a list).
    #[arg(long, value_enum, value_name = "text|json")]
    format: Option<TextOrJson>,
    /// Deprecated: use --format json.
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
}

impl TextFormat {
    /// Whether JSON was asked for (by --format json or the deprecated --json).
    pub fn is_json(&self) -> bool {
        format_or_json(self.format, self.json, TextOrJson::Json, TextOrJson::Text)
            == TextOrJson::Json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_of_zero_are_refused() {
        assert_eq!(positive_count("3"), Ok(3));
        assert!(positive_count("0").unwrap_err().contains("at least 1"));
        assert!(positive_count("x").is_err());
        assert_eq!(
            positive_duration_seconds("250ms"),
            Ok(Duration::from_millis(250))
        );
        assert!(
            positive_duration_seconds("0s")
                .unwrap_err()
                .contains("more than 0")
        );
    }

    #[test]
    fn durations_take_units_and_refuse_absurd_values() {
        assert_eq!(duration_seconds("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(duration_seconds("36h"), Ok(Duration::from_secs(36 * 3600)));
        assert_eq!(duration_days("2w"), Ok(14.0 * DAY));
        assert_eq!(duration_seconds("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(duration_days("7"), Ok(7.0 * DAY));
        for bad in [
            "1e30",
            "101y",
            "-1s",
            "inf",
            "NaN",
            "",
            "5 parsecs",
            "1e400",
        ] {
            assert!(duration_seconds(bad).is_err(), "{bad:?} accepted");
        }
        assert!(duration_seconds("36500d").is_ok());
        assert!(duration_seconds("36600000000d").is_err());
        assert!(duration_seconds("3155760001").is_err());
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(size("12000"), Ok(12_000));
        assert_eq!(size("12KB"), Ok(12_000));
        assert_eq!(size("64MiB"), Ok(64 * 1024 * 1024));
        assert_eq!(size("1.5GB"), Ok(1_500_000_000));
        assert_eq!(size("2 GiB"), Ok(2_147_483_648));
        for bad in ["", "KB", "12XB", "-3", "1.2.3", "1e99", "99999999TiB"] {
            assert!(size(bad).is_err(), "{bad:?} accepted");
        }
    }
}

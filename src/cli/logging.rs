//! Where the libraries' `tracing` events go: the global `-v/-q/--log-format` flags, `RUST_LOG`,
//! and one subscriber writing to stderr (plain `ldwarc: warning: …` lines, or JSON lines
//! with UTC timestamps for daemons and log collectors).

use std::fmt;
use std::io::{self, Write};

use clap::{ArgAction, Args, ValueEnum};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::SystemTime;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, MakeWriter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use super::output;

/// The target of progress lines (see [`output::progress`]); shown unless `-q`.
pub const PROGRESS_TARGET: &str = "ldwarc::progress";

/// The target of the binary's status lines on stderr (a daemon's cycle reports): shown
/// unless `-q`, as `ldwarc: message` in text and as JSON objects with `--log-format json`.
pub const NOTICE_TARGET: &str = "ldwarc::notice";

/// The target of the binary's own warnings and errors (`ldwarc: error: …` in text), the
/// error that ends a command among them.
pub const CLI_TARGET: &str = "ldwarc::cli";

/// The logging flags every subcommand accepts, listed after the subcommand's own (however
/// many those are).
#[derive(Debug, Clone, Args)]
#[command(next_display_order = 10_000)]
pub struct LogArgs {
    /// Log more on stderr: -v info, -vv debug, -vvv trace (RUST_LOG, if set, decides instead).
    #[arg(short, long, action = ArgAction::Count, global = true)]
    verbose: u8,
    /// Log only errors, and no progress lines (for `check`: also print only the summary line).
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Log format on stderr: text, or JSON lines with UTC timestamps (for daemons).
    #[arg(
        long,
        value_enum,
        default_value_t = LogFormat::Text,
        global = true,
        value_name = "FORMAT"
    )]
    log_format: LogFormat,
}

/// How log events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One `ldwarc: LEVEL: message` line per event.
    Text,
    /// One JSON object per event: timestamp (UTC), level, target, message and fields.
    Json,
}

/// The flags the log was set up with, for the processes this one starts (a SPARQL worker
/// logs as its parent, its messages passed on as they come).
static CHOSEN: std::sync::OnceLock<LogArgs> = std::sync::OnceLock::new();

/// The logging flags to give a child `ldwarc` so that its messages take this one's form.
pub fn child_arguments() -> Vec<String> {
    let Some(args) = CHOSEN.get() else {
        return Vec::new();
    };
    let mut arguments = Vec::new();
    if args.quiet {
        arguments.push("--quiet".to_string());
    }
    if args.verbose > 0 {
        arguments.push(format!("-{}", "v".repeat(usize::from(args.verbose))));
    }
    if args.log_format == LogFormat::Json {
        arguments.push("--log-format=json".to_string());
    }
    arguments
}

/// Sets the log up from a command line that could not be parsed, reading only `-q`/`--quiet`
/// and `--log-format`, so that the error about it takes the form asked for.
pub fn init_from_raw(arguments: impl Iterator<Item = std::ffi::OsString>) {
    let mut args = LogArgs {
        verbose: 0,
        quiet: false,
        log_format: LogFormat::Text,
    };
    let arguments: Vec<String> = arguments
        .map(|argument| argument.to_string_lossy().into_owned())
        .collect();
    for (index, argument) in arguments.iter().enumerate() {
        if argument == "--" {
            break;
        }
        let short_quiet = argument.starts_with('-')
            && !argument.starts_with("--")
            && argument.len() > 1
            && argument[1..].bytes().all(|b| b == b'q' || b == b'v');
        if argument == "--quiet" || (short_quiet && argument.contains('q')) {
            args.quiet = true;
        }
        let format = match argument.strip_prefix("--log-format") {
            Some("") => arguments.get(index + 1).map(String::as_str),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        };
        if format == Some("json") {
            args.log_format = LogFormat::Json;
        }
    }
    init(&args);
}

/// Installs the subscriber. `RUST_LOG` (when set and non-empty) replaces the level the flags
/// choose; an invalid `RUST_LOG` is reported and the flags' level used.
pub fn init(args: &LogArgs) {
    let _ = CHOSEN.set(args.clone());
    let (filter, bad_rust_log) = filter(args);
    let registry = tracing_subscriber::registry().with(filter);
    let installed = match args.log_format {
        LogFormat::Text => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .event_format(TextFormat)
                    .with_writer(Stderr),
            )
            .try_init(),
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_timer(SystemTime)
                    .with_writer(Stderr),
            )
            .try_init(),
    };
    if installed.is_ok()
        && let Some(error) = bad_rust_log
    {
        tracing::warn!("RUST_LOG ignored: {error}");
    }
}

/// The filter: `RUST_LOG` if set, else warn (info/debug/trace with -v/-vv/-vvv, error with
/// -q) for ldwarc's crates and warn for the others, plus progress lines unless quiet.
fn filter(args: &LogArgs) -> (EnvFilter, Option<String>) {
    let mut bad = None;
    if let Ok(text) = std::env::var("RUST_LOG")
        && !text.trim().is_empty()
    {
        match EnvFilter::try_new(&text) {
            Ok(filter) => return (filter, None),
            Err(error) => bad = Some(format!("{text}: {error}")),
        }
    }
    (EnvFilter::new(default_directives(args)), bad)
}

/// The directives the flags stand for. `ldwarc` as a target prefix covers every crate of
/// the workspace (`ldwarc_archive`, `ldwarc_crawl`, …) and the binary.
fn default_directives(args: &LogArgs) -> String {
    if args.quiet {
        return "error".into();
    }
    let level = match args.verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    format!("warn,ldwarc={level},{PROGRESS_TARGET}=info,{NOTICE_TARGET}=info")
}

/// Writes each formatted event to stderr in one piece, with progress bars moved out of
/// the way while it does.
#[derive(Clone, Copy)]
struct Stderr;

impl<'a> MakeWriter<'a> for Stderr {
    type Writer = Stderr;

    fn make_writer(&'a self) -> Self::Writer {
        Stderr
    }
}

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        output::suspend_progress(|| io::stderr().lock().write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// `ldwarc: warning: message (field=value, …)`: no timestamp or target, which would
/// clutter an interactive terminal; fields the message already spells out are not repeated.
struct TextFormat;

impl<S, N> FormatEvent<S, N> for TextFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let metadata = event.metadata();
        match metadata.target() {
            NOTICE_TARGET => write!(writer, "ldwarc: {}", fields.message)?,
            PROGRESS_TARGET => write!(writer, "ldwarc: progress: {}", fields.message)?,
            _ => write!(
                writer,
                "ldwarc: {}: {}",
                level_word(*metadata.level()),
                fields.message
            )?,
        }
        let extra: Vec<String> = fields
            .others
            .iter()
            .filter(|(_, value)| !fields.message.contains(value.as_str()))
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        if !extra.is_empty() {
            write!(writer, " ({})", extra.join(", "))?;
        }
        writeln!(writer)
    }
}

fn level_word(level: Level) -> &'static str {
    match level {
        Level::ERROR => "error",
        Level::WARN => "warning",
        Level::INFO => "info",
        Level::DEBUG => "debug",
        Level::TRACE => "trace",
    }
}

/// An event's message and other fields as text.
#[derive(Default)]
struct Fields {
    message: String,
    others: Vec<(&'static str, String)>,
}

impl Fields {
    fn add(&mut self, field: &Field, value: String) {
        match field.name() {
            "message" => self.message = value,
            // What the `log` bridge adds (module, file, line) is noise on a terminal.
            name if name.starts_with("log.") => {}
            name => self.others.push((name, value)),
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.add(field, value.to_string());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.add(field, format!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(verbose: u8, quiet: bool) -> LogArgs {
        LogArgs {
            verbose,
            quiet,
            log_format: LogFormat::Text,
        }
    }

    #[test]
    fn flags_choose_the_level_of_ldwarc_crates_only() {
        assert_eq!(
            default_directives(&args(0, false)),
            "warn,ldwarc=warn,ldwarc::progress=info,ldwarc::notice=info"
        );
        assert_eq!(
            default_directives(&args(2, false)),
            "warn,ldwarc=debug,ldwarc::progress=info,ldwarc::notice=info"
        );
        assert_eq!(
            default_directives(&args(9, false)),
            "warn,ldwarc=trace,ldwarc::progress=info,ldwarc::notice=info"
        );
        assert_eq!(default_directives(&args(3, true)), "error");
    }
}

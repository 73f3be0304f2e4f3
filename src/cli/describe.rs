//! `ldwarc describe`: the archive's VoID + DCAT 3 description (what `ldwarc serve` answers at
//! `/.well-known/void`), over [`ldwarc_timetravel::publish`].

use std::io::{self, Write};

use clap::Args;
use ldwarc_rdf::OutputFormat;
use ldwarc_timetravel::publish::{describe, write_description};

use super::RootsArg;
use super::output;

/// Arguments of `ldwarc describe`.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// Output syntax: Turtle, N-Triples or JSON-LD (expanded).
    #[arg(long, default_value = "ttl", value_name = "ttl|nt|jsonld")]
    format: String,
    /// The URL the archive is served at (`ldwarc serve`): the base of the description's
    /// IRIs, download URLs and Memento links.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "URL")]
    base: String,
}

/// Runs `ldwarc describe`: 0, or 1 when a document could not be read or parsed (each
/// reported; the statistics leave it out).
pub fn describe_command(args: DescribeArgs) -> io::Result<i32> {
    let format = match args.format.as_str() {
        "ttl" | "turtle" => OutputFormat::Turtle,
        "nt" | "ntriples" | "n-triples" => OutputFormat::NTriples,
        "jsonld" | "json-ld" => OutputFormat::JsonLd,
        other => {
            return Err(invalid(format!(
                "--format {other}: expected ttl, nt or jsonld"
            )));
        }
    };
    let base = args.base.trim_end_matches('/').to_string();
    let parsed = url::Url::parse(&base)
        .map_err(|e| invalid(format!("--base {}: not a URL: {e}", args.base)))?;
    if !matches!(parsed.scheme(), "http" | "https")
        || parsed.host_str().is_none()
        || parsed.query().is_some()
        || parsed.fragment().is_some()
    {
        return Err(invalid(format!(
            "--base {}: expected an http(s) URL without query or fragment, e.g. http://127.0.0.1:8080",
            args.base
        )));
    }
    let archive = args.root.open()?;
    let mut troubles = 0u64;
    let description = describe(&archive, &mut |line| {
        troubles += 1;
        tracing::warn!(target: super::logging::NOTICE_TARGET, "{line}");
    })?;
    let mut out = output::stdout();
    write_description(&description, &base, format, &mut out)?;
    out.flush()?;
    Ok(if troubles > 0 { 1 } else { 0 })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// `ldwarc describe`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const DESCRIBE_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc describe --root archive",
            "the catalogue of archived datasets, Turtle",
        ),
        (
            "ldwarc describe --format jsonld --base https://archive.example.org",
            "as JSON-LD, for a server at that URL",
        ),
    ],
    exit_status: &[(
        "1",
        "a document could not be read or parsed (each is reported; the statistics leave it out)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

//! `ldwarc when`: the intervals during which the statements matching a triple pattern held,
//! answered from the versioned triple index.

use std::io::{self, Write};

use chrono::{DateTime, SecondsFormat, Utc};
use clap::Args;

use super::RootsArg;
use super::output;
use ldwarc_archive::index::merged::distinct_roots;
use ldwarc_timetravel::triples::{
    Interval, RootUnavailable, TripleHistory, TriplePattern, intervals_across,
};

/// Arguments of `ldwarc when`.
#[derive(Debug, Args)]
pub struct WhenArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// The triple pattern: three terms in Turtle syntax or variables, e.g.
    /// '<http://example.org/alice> <http://xmlns.com/foaf/0.1/knows> ?o'.
    #[arg(value_name = "PATTERN")]
    pattern: String,
    /// Only intervals that still held at or after this date (same date forms as replay; a
    /// partial date such as 2024-02 means the start of its period here).
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Only intervals that had begun by this date (a partial date means the end of its
    /// period, as everywhere else).
    #[arg(long, value_name = "DATE")]
    to: Option<String>,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// A date flag in Unix seconds: `--from` takes the start of a partial date's period,
/// `--to` its end.
fn date_seconds(flag: &str, text: Option<&str>) -> io::Result<Option<i64>> {
    let flag = format!("--{flag}");
    text.map(|text| {
        if flag == "--from" {
            super::dates::from(&flag, text)
        } else {
            super::dates::at(&flag, text)
        }
        .map(|date| date.at.timestamp())
        .map_err(invalid)
    })
    .transpose()
}

/// `ldwarc when`.
pub fn when_command(args: WhenArgs) -> io::Result<i32> {
    let pattern = TriplePattern::parse(&args.pattern).map_err(invalid)?;
    let from = date_seconds("from", args.from.as_deref())?;
    let to = date_seconds("to", args.to.as_deref())?;
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        return Err(invalid(format!(
            "--from {} is after --to {}",
            args.from.unwrap_or_default(),
            args.to.unwrap_or_default()
        )));
    }
    // A triple index older than the capture index would silently miss captures.
    let indexes = distinct_roots(&args.root.roots)
        .iter()
        .map(|root| ldwarc_timetravel::triples::open_current(root).map_err(with_index_hint))
        .collect::<io::Result<Vec<_>>>()?;
    let histories = intervals_across(&indexes, &pattern, from, to);
    let mut out = output::stdout();
    for history in &histories {
        if args.output.is_json() {
            writeln!(out, "{}", history_json(history))?;
        } else {
            write_history(&mut out, history)?;
        }
    }
    out.flush()?;
    Ok(0)
}

/// A root's unusable triple index, with the command that builds or updates it; other
/// errors as they are.
pub(crate) fn with_index_hint(error: io::Error) -> io::Error {
    match error
        .get_ref()
        .and_then(|e| e.downcast_ref::<RootUnavailable>())
    {
        Some(unavailable) => io::Error::new(
            error.kind(),
            format!(
                "{unavailable}; run `ldwarc index --root {}`",
                unavailable.root
            ),
        ),
        None => error,
    }
}

fn iso(micros: i64) -> String {
    DateTime::<Utc>::from_timestamp_micros(micros).map_or_else(
        || micros.to_string(),
        |t| t.to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

fn interval_json(interval: &Interval) -> serde_json::Value {
    serde_json::json!({
        "from": iso(interval.start_micros),
        "until": interval.end_micros.map(iso),
    })
}

fn history_json(history: &TripleHistory<'_>) -> serde_json::Value {
    let triple = &history.triple;
    serde_json::json!({
        "subject": triple.subject,
        "predicate": triple.predicate,
        "object": triple.object,
        "document": triple.document,
        "intervals": history.intervals.iter().map(interval_json).collect::<Vec<_>>(),
    })
}

/// The statement with its document, then one line per interval (`until` left open while
/// it still holds).
fn write_history(out: &mut dyn Write, history: &TripleHistory<'_>) -> io::Result<()> {
    let triple = &history.triple;
    writeln!(
        out,
        "{} {} {} .  in {}",
        triple.subject, triple.predicate, triple.object, triple.document
    )?;
    for interval in &history.intervals {
        match interval.end_micros {
            Some(end) => writeln!(out, "  {} until {}", iso(interval.start_micros), iso(end))?,
            None => writeln!(out, "  {} until now", iso(interval.start_micros))?,
        }
    }
    Ok(())
}

/// `ldwarc index --triples`: updates the triple index, reporting each capture that could not
/// be parsed; returns the run's counts as JSON.
pub fn update_triples(root: &std::path::Path, rebuild: bool) -> io::Result<serde_json::Value> {
    let progress = output::progress(0, "triple index");
    let run = ldwarc_timetravel::triples::update_triple_index(root, rebuild, &|done, total| {
        progress.set_length(total);
        progress.set_position(done);
    })?;
    progress.finish_and_clear();
    for failure in &run.failures {
        tracing::warn!(target: super::logging::NOTICE_TARGET, "left out of the triple index: {failure}");
    }
    Ok(serde_json::json!({
        "triple_index": true,
        "versions_added": run.versions_added,
        "documents": run.documents,
        "documents_reread": run.documents_reread,
        "failed": run.failed,
        "entries": run.entries,
        "terms": run.terms,
        "bytes": run.bytes,
    }))
}

/// After a crawl or a monitor cycle: brings the triple index of `root` up to date with the
/// captures just indexed, so `when`, `/tpf` and `sparql` answer from it with no separate
/// step. A failure is reported and leaves the captures as they are (`ldwarc index` tries
/// again); returns whether the update succeeded.
pub fn follow_captures(root: &std::path::Path) -> bool {
    match update_triples(root, false) {
        Ok(run) => {
            tracing::info!(
                target: super::logging::NOTICE_TARGET,
                "triple index: {} versions added",
                run["versions_added"]
            );
            true
        }
        // A root with no capture index yet (a cycle that archived nothing, a node whose
        // captures another node indexes) has nothing for the triple index to follow.
        Err(error)
            if error
                .get_ref()
                .is_some_and(|inner| inner.is::<ldwarc_archive::archive::NoCaptureIndex>()) =>
        {
            tracing::debug!("no triple index update: {error}");
            true
        }
        Err(error) => {
            tracing::error!(
                target: super::logging::NOTICE_TARGET,
                "the triple index was not updated: {error}; run `ldwarc index --root {}`",
                root.display()
            );
            false
        }
    }
}

/// `ldwarc when`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const WHEN_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc when '<http://example.org/alice> <http://schema.org/worksFor> ?o'",
            "every employer Alice had, with the dates",
        ),
        (
            "ldwarc when '?s a <http://schema.org/Person>' --from 2024-01-01T00:00:00Z --to 2024-06-30",
            "who was a person in the first half of 2024",
        ),
        (
            "ldwarc when --format json '?s <http://schema.org/name> ?o'",
            "one JSON object per statement and document",
        ),
        (
            "ldwarc when --root node1 --root node2 '?s ?p ?o' --from 2024-02 --to 2024-02",
            "what held during February 2024 in two roots answering as one archive",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: super::help::TRIPLE_FILES,
};

//! Output helpers: buffered stdout, and progress: a bar when stderr is a terminal, a line
//! every ten seconds (what, how far, how fast) when it is not (a log file, a pipe, cron).
//!
//! Every command that may run long uses [`progress`], [`progress_bytes`] or [`spinner`]
//! and updates the returned bar; the mechanism (bar or periodic lines) is chosen here.

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use indicatif::{
    HumanBytes, HumanDuration, MultiProgress, ProgressBar, ProgressStyle, WeakProgressBar,
};

use super::logging::PROGRESS_TARGET;

/// Seconds between two progress lines when stderr is not a terminal; hidden, for tests.
const PERIOD_ENV: &str = "LDWARC_PROGRESS_SECONDS";

/// The default period between two progress lines.
const PERIOD: Duration = Duration::from_secs(10);

/// Every bar on the terminal, so log lines can move them out of the way.
static BARS: LazyLock<MultiProgress> = LazyLock::new(MultiProgress::new);

/// Buffered standard output.
pub fn stdout() -> BufWriter<Stdout> {
    BufWriter::with_capacity(64 * 1024, io::stdout())
}

/// `count` things in words: `1 request`, `2 requests` (the plural adds `s`).
pub fn count(count: impl Into<u64>, thing: &str) -> String {
    let count = count.into();
    if count == 1 {
        format!("1 {thing}")
    } else {
        format!("{count} {thing}s")
    }
}

/// `ldwarc serve`'s first line on stdout, which clients (and the tests) wait for.
pub fn print_listening(listening: &ldwarc_serve::Listening) -> io::Result<()> {
    let roots: Vec<String> = listening
        .roots
        .iter()
        .map(|root| root.display().to_string())
        .collect();
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "ldwarc serve: listening on http://{} (archive {}, {} captures{})",
        listening.address,
        roots.join(", "),
        listening.captures,
        if listening.public {
            "; public, read-only"
        } else {
            ""
        }
    )?;
    out.flush()
}

/// What a bar counts, for the periodic lines.
#[derive(Clone, Copy)]
enum Unit {
    /// Items named by the bar's `what`.
    Items,
    /// Bytes.
    Bytes,
    /// Nothing: the bar's message says it all.
    Message,
}

/// Progress over `total` items named `what` ("files", "URLs"); `total` may be 0 and set later.
pub fn progress(total: u64, what: &str) -> ProgressBar {
    start(
        total,
        what,
        Unit::Items,
        "{elapsed_precise} [{bar:30}] {pos}/{len} {prefix} (ETA {eta}) {msg}",
    )
}

/// Progress over `total` bytes of `what` ("index", "ls"); `total` may be 0 and set later.
pub fn progress_bytes(total: u64, what: &str) -> ProgressBar {
    start(
        total,
        what,
        Unit::Bytes,
        "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {prefix} ({binary_bytes_per_sec}, ETA {eta}) {msg}",
    )
}

/// Progress of unknown length: a spinner showing the message the command sets.
pub fn spinner(what: &str) -> ProgressBar {
    let bar = start(0, what, Unit::Message, "{elapsed_precise} {spinner} {msg}");
    if !bar.is_hidden() {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// Progress counting `what` items of unknown total (statements written, documents compared).
pub fn counter(what: &str) -> ProgressBar {
    start(
        0,
        what,
        Unit::Items,
        "{elapsed_precise} {spinner} {human_pos} {prefix} {msg}",
    )
}

fn start(total: u64, what: &str, unit: Unit, template: &str) -> ProgressBar {
    if io::stderr().is_terminal() {
        let bar = BARS.add(ProgressBar::new(total));
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(what.to_string());
        return bar;
    }
    let bar = ProgressBar::hidden();
    bar.set_length(total);
    report_periodically(&bar, what.to_string(), unit, period());
    bar
}

/// Progress for a command whose data goes to stdout: none when stdout is the terminal too
/// (the data shows how far it got, and a bar would cut through its lines).
pub fn for_data_on_stdout(make: impl FnOnce() -> ProgressBar) -> ProgressBar {
    if io::stdout().is_terminal() && io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    make()
}

/// Runs `write` with the terminal's bars cleared, and draws them again after.
pub fn suspend_progress<T>(write: impl FnOnce() -> T) -> T {
    BARS.suspend(write)
}

fn period() -> Duration {
    std::env::var(PERIOD_ENV)
        .ok()
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0)
        .map_or(PERIOD, Duration::from_secs_f64)
}

/// A thread that logs one line per `period` until the bar is finished or dropped.
fn report_periodically(bar: &ProgressBar, what: String, unit: Unit, period: Duration) {
    let weak = bar.downgrade();
    let started = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            while wait_while_running(&weak, period) {
                let Some(bar) = weak.upgrade() else { return };
                let line = progress_line(&bar, &what, unit, started.elapsed());
                tracing::info!(target: PROGRESS_TARGET, "{line}");
            }
        });
    if let Err(error) = spawned {
        tracing::debug!(%error, "no progress lines: cannot start a thread");
    }
}

/// Sleeps `period` in short steps; false as soon as the bar is finished or gone.
fn wait_while_running(bar: &WeakProgressBar, period: Duration) -> bool {
    let deadline = Instant::now() + period;
    loop {
        match bar.upgrade() {
            Some(bar) if !bar.is_finished() => {}
            _ => return false,
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(100)));
    }
}

/// `what: done/total (rate, percent, elapsed) message`, or `what: message (elapsed)` for
/// a bar whose message tells everything.
fn progress_line(bar: &ProgressBar, what: &str, unit: Unit, elapsed: Duration) -> String {
    let done = bar.position();
    let total = bar.length().filter(|&total| total > 0);
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
    let (how_far, rate) = match unit {
        Unit::Items => (
            match total {
                Some(total) => format!("{done}/{total}"),
                None => done.to_string(),
            },
            format!("{rate:.1}/s"),
        ),
        Unit::Bytes => (
            match total {
                Some(total) => format!("{}/{}", HumanBytes(done), HumanBytes(total)),
                None => HumanBytes(done).to_string(),
            },
            format!("{}/s", HumanBytes(rate as u64)),
        ),
        Unit::Message => {
            return format!(
                "{what}: {} ({} elapsed)",
                bar.message(),
                HumanDuration(elapsed)
            );
        }
    };
    let mut stats = vec![rate];
    if let Some(total) = total {
        stats.push(format!(
            "{:.0}%",
            100.0 * done.min(total) as f64 / total as f64
        ));
    }
    stats.push(format!("{} elapsed", HumanDuration(elapsed)));
    let mut line = format!("{what}: {how_far} ({})", stats.join(", "));
    let message = bar.message();
    if !message.is_empty() {
        line.push(' ');
        line.push_str(&message);
    }
    line
}

/// Counts the bytes and lines written through it into a progress bar (lines as position).
pub struct CountingWriter<W> {
    inner: W,
    bar: ProgressBar,
}

impl<W: Write> CountingWriter<W> {
    /// Counts what goes to `inner` in `bar`.
    pub fn new(inner: W, bar: ProgressBar) -> Self {
        Self { inner, bar }
    }

    /// The writer underneath, to write past the count (binary output has no lines).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        let lines = memchr_count(&buf[..written]);
        if lines > 0 {
            self.bar.inc(lines);
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Newlines in `bytes`, counted with memchr: this runs over every byte `ldwarc cdx` writes.
fn memchr_count(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1u64, "request"), "1 request");
        assert_eq!(count(0u64, "round"), "0 rounds");
        assert_eq!(count(2u64, "result"), "2 results");
    }

    #[test]
    fn lines_say_what_how_far_and_how_fast() {
        let bar = ProgressBar::hidden();
        bar.set_length(200);
        bar.set_position(50);
        let line = progress_line(&bar, "check", Unit::Items, Duration::from_secs(10));
        assert_eq!(line, "check: 50/200 (5.0/s, 25%, 10 seconds elapsed)");
        let bar = ProgressBar::hidden();
        bar.set_position(3 * 1024 * 1024);
        let line = progress_line(&bar, "index", Unit::Bytes, Duration::from_secs(2));
        assert_eq!(line, "index: 3.00 MiB (1.50 MiB/s, 2 seconds elapsed)");
        let bar = ProgressBar::hidden();
        bar.set_message("round 2 · 10 documents");
        let line = progress_line(&bar, "crawl", Unit::Message, Duration::from_secs(20));
        assert_eq!(line, "crawl: round 2 · 10 documents (20 seconds elapsed)");
    }

    #[test]
    fn counting_writer_counts_lines() {
        let bar = ProgressBar::hidden();
        let mut out = CountingWriter::new(Vec::new(), bar.clone());
        out.write_all(b"a\nb\nc").unwrap();
        out.write_all(b"\n").unwrap();
        assert_eq!(bar.position(), 3);
        assert_eq!(out.inner, b"a\nb\nc\n");
    }
}

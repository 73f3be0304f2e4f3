//! Output helpers: buffered stdout, and progress bars only when stderr is a terminal.

use std::io::{self, BufWriter, IsTerminal, Stdout};

use indicatif::{ProgressBar, ProgressStyle};

/// Buffered standard output.
pub fn stdout() -> BufWriter<Stdout> {
    BufWriter::with_capacity(64 * 1024, io::stdout())
}

/// A progress bar over `total` items, hidden unless stderr is a terminal.
pub fn progress(total: u64, what: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    let template = format!("{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {what} {{msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

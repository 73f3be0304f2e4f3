//! Printing `ldwarc index --verify`.

use std::io::{self, Write};

use super::output;
use ldwarc_core::archive::Archive;
use ldwarc_core::index::verify::verify_index;

/// Runs the verification and prints one line per discrepancy and a summary.
pub fn verify(archive: &Archive) -> io::Result<i32> {
    let (checked, problems) = verify_index(archive)?;
    let mut out = output::stdout();
    for problem in &problems {
        writeln!(out, "{problem}")?;
    }
    writeln!(
        out,
        "verified {checked} captures: {} discrepancies",
        problems.len()
    )?;
    out.flush()?;
    Ok(if problems.is_empty() { 0 } else { 1 })
}

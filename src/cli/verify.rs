//! Printing `ldwarc index --verify`.

use std::io::{self, Write};

use super::output;
use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::verify::verify_index;

/// Runs the verification and prints one line per discrepancy and a summary.
pub fn verify(archive: &Archive) -> io::Result<i32> {
    let (checked, problems) = verify_index(archive)?;
    let mut out = output::stdout();
    for problem in &problems {
        writeln!(out, "{problem}")?;
    }
    // Files `ldwarc index` leaves out on purpose are noted, not counted: a run of `index`
    // cannot make them agree, so counting them would fail every verification after.
    let discrepancies = problems.iter().filter(|p| !p.is_note()).count();
    writeln!(
        out,
        "verified {checked} captures: {discrepancies} discrepancies"
    )?;
    out.flush()?;
    Ok(if discrepancies == 0 { 0 } else { 1 })
}

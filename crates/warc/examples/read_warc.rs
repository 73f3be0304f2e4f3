//! Lists the records of a WARC or ARC file using only the `ldwarc-warc` crate: offset,
//! length, type, HTTP status, payload size and target URI of each, one line per record.
//!
//! ```text
//! cargo run -p ldwarc-warc --example read_warc FILE
//! ```

use std::io::{self, Write};
use std::process::ExitCode;

use ldwarc_warc::WarcReader;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: read_warc FILE");
        return ExitCode::from(2);
    };
    match run(path.as_ref(), &mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("read_warc: {}: {error}", path.to_string_lossy());
            ExitCode::from(2)
        }
    }
}

/// Writes one line per record of the file at `path` to `out`.
pub fn run(path: &std::path::Path, out: &mut impl Write) -> io::Result<()> {
    let mut reader = WarcReader::open(path)?;
    while let Some(next) = reader.next_record() {
        let mut record = next?;
        let record_type = record.record_type();
        let uri = record.header.target_uri().unwrap_or("-").to_string();
        let status = record
            .http()?
            .and_then(|head| head.status)
            .map_or_else(|| "-".to_string(), |s| s.to_string());
        let payload_bytes = io::copy(&mut record.payload()?, &mut io::sink())?;
        let end = record.finish()?;
        let length = end
            .span
            .length
            .map_or_else(|| "-".to_string(), |l| l.to_string());
        writeln!(
            out,
            "{}\t{length}\t{record_type}\t{status}\t{payload_bytes}\t{uri}",
            end.span.offset
        )?;
    }
    Ok(())
}

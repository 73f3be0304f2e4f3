//! `ldwarc extract`: one record's bytes, as `warcio extract` writes them.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use clap::Args;

use super::output;
use ldwarc_warc::extract::{ExtractPart, extract as extract_record};

/// Arguments of `ldwarc extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The WARC or ARC file (plain or gzip-per-record); - reads it from stdin.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Offset of the record, as `ldwarc ls` or a CDX index gives it.
    #[arg(value_name = "OFFSET")]
    offset: u64,
    /// Write only the payload: the body after the HTTP head, de-chunked and with its
    /// Content-Encoding undone.
    #[arg(long, conflicts_with = "headers")]
    payload: bool,
    /// Write only the WARC header and the HTTP head.
    #[arg(long)]
    headers: bool,
}

/// `ldwarc extract`.
pub fn extract(args: ExtractArgs) -> io::Result<i32> {
    let part = if args.payload {
        ExtractPart::Payload
    } else if args.headers {
        ExtractPart::Headers
    } else {
        ExtractPart::Record
    };
    let name = args.file.display().to_string();
    let located =
        |e: io::Error| io::Error::new(e.kind(), format!("{name}: offset {}: {e}", args.offset));
    let mut out = output::stdout();
    if args.file.as_os_str() == "-" {
        let mut stdin = io::stdin().lock();
        // Standard input cannot seek: the bytes before the record are read and dropped.
        let skipped = io::copy(&mut (&mut stdin).take(args.offset), &mut io::sink())?;
        if skipped < args.offset {
            return Err(located(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the input ends after {skipped} bytes"),
            )));
        }
        extract_record(stdin, part, &mut out).map_err(located)?;
    } else {
        let mut file = File::open(&args.file)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: cannot open: {e}")))?;
        let size = file.metadata()?.len();
        if args.offset >= size {
            return Err(located(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("beyond the end of the file ({size} bytes)"),
            )));
        }
        file.seek(SeekFrom::Start(args.offset))?;
        extract_record(file, part, &mut out).map_err(located)?;
    }
    out.flush()?;
    Ok(0)
}

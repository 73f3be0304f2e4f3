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
        extract_held_back(stdin, part, &mut out).map_err(located)?;
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
        extract_held_back(file, part, &mut out).map_err(located)?;
    }
    out.flush()?;
    Ok(0)
}

/// Records up to this size are written only once read whole and checked.
const HOLD_BACK_BYTES: usize = 64 << 20;

/// [`extract_record`], holding the output back until the record has been read to its end:
/// a damaged gzip member is often found only by its checksum at the end, and what was
/// inflated before it must not reach the output as if it were the record. A record larger
/// than [`HOLD_BACK_BYTES`] is streamed once that much is held; an error after that says so.
fn extract_held_back(input: impl Read, part: ExtractPart, out: &mut dyn Write) -> io::Result<()> {
    let mut held = HeldBack {
        out,
        held: Vec::new(),
        streamed: 0,
    };
    match extract_record(input, part, &mut held) {
        Ok(()) => held.release(),
        Err(error) if held.streamed > 0 => Err(io::Error::new(
            error.kind(),
            format!(
                "{error} (the first {} bytes of this large record were already written)",
                held.streamed
            ),
        )),
        Err(error) => Err(error),
    }
}

/// Output held in memory up to [`HOLD_BACK_BYTES`], then passed through.
struct HeldBack<'a> {
    out: &'a mut dyn Write,
    held: Vec<u8>,
    /// Bytes already passed to `out`.
    streamed: u64,
}

impl HeldBack<'_> {
    fn release(&mut self) -> io::Result<()> {
        self.out.write_all(&self.held)?;
        self.streamed += self.held.len() as u64;
        self.held = Vec::new();
        Ok(())
    }
}

impl Write for HeldBack<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.streamed > 0 {
            self.out.write_all(bytes)?;
            self.streamed += bytes.len() as u64;
        } else {
            self.held.extend_from_slice(bytes);
            if self.held.len() > HOLD_BACK_BYTES {
                self.release()?;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// `ldwarc extract`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const EXTRACT_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc extract crawl.warc.gz 1234",
            "the record at offset 1234: WARC headers and block",
        ),
        (
            "ldwarc extract --payload crawl.warc.gz 1234 > body",
            "its payload only",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: &[("FILE", "a WARC or ARC file, gzipped per record or not")],
};

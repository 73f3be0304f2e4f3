//! Streaming the index out as byte-sorted CDXJ or CDX-11.

use std::io::{self, Write};

use super::capture::Capture;
use super::cdxj::{CDX11_LEGEND, cdx11_line, cdxj_line};
use super::merged::CaptureSource;

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CdxFormat {
    /// `urlkey timestamp {json}` as cdxj-indexer writes it.
    Cdxj,
    /// Space-separated CDX with the ` CDX N b a m s k r M S V g` legend.
    Cdx11,
}

/// Writes every capture whose urlkey is in `[start, end)`, lines byte-sorted. Captures are
/// streamed key by key, so memory holds only the captures of one key at a time.
pub fn export(
    index: &(impl CaptureSource + ?Sized),
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    out: &mut impl Write,
) -> io::Result<u64> {
    if format == CdxFormat::Cdx11 {
        writeln!(out, "{CDX11_LEGEND}")?;
    }
    let render = |capture: &Capture| match format {
        CdxFormat::Cdxj => cdxj_line(capture),
        CdxFormat::Cdx11 => cdx11_line(capture),
    };
    let mut group: Vec<String> = Vec::new();
    let mut group_key = String::new();
    let mut written = 0u64;
    let mut failure: Option<io::Error> = None;
    let mut flush = |group: &mut Vec<String>, out: &mut dyn Write| -> io::Result<()> {
        group.sort_unstable();
        for line in group.drain(..) {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            written += 1;
        }
        Ok(())
    };
    index.scan_captures(start, end, &mut |capture| {
        if failure.is_some() {
            return;
        }
        if capture.urlkey != group_key {
            if let Err(e) = flush(&mut group, out) {
                failure = Some(e);
                return;
            }
            group_key.clone_from(&capture.urlkey);
        }
        group.push(render(&capture));
    })?;
    if let Some(error) = failure {
        return Err(error);
    }
    flush(&mut group, out)?;
    Ok(written)
}

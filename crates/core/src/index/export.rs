//! Streaming the index out as byte-sorted CDXJ or CDX-11.

use std::io::{self, Write};
use std::ops::ControlFlow;

use super::capture::Capture;
use super::cdxj::{CDX11_LEGEND, cdx11_line, cdxj_line, push_cdx11_line, push_cdxj_line};
use super::merged::CaptureSource;
use super::record_codec::cdx_fields;
use super::store::{CaptureIndex, Windows};
use crate::replay::parallel::parallel_map;

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
    if let Some(single) = index.single_index() {
        return export_stored(single, format, start, end, out);
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

/// [`export`] from one index: the doc store read in document order, a window at a time,
/// and the lines of each window rendered on all cores, written in key order.
fn export_stored(
    index: &CaptureIndex,
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    out: &mut impl Write,
) -> io::Result<u64> {
    export_stored_in_windows(index, format, start, end, None, out)
}

/// [`export_stored`] with windows of `window` captures (`None`: the default size).
fn export_stored_in_windows(
    index: &CaptureIndex,
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    window: Option<usize>,
    out: &mut impl Write,
) -> io::Result<u64> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut written = 0u64;
    let mut write_window = |window: super::store::StoredWindow| -> io::Result<ControlFlow<()>> {
        // More runs than cores, so one slow run does not leave a core idle for long.
        let runs = window.split(threads * 4);
        let rendered = parallel_map(&runs, |run| render_run(index, run, format));
        for part in rendered {
            let (bytes, lines) = part?;
            out.write_all(&bytes)?;
            written += lines;
        }
        Ok(ControlFlow::Continue(()))
    };
    match window {
        Some(size) => {
            index.scan_stored_in_windows(start, end, Windows::fixed(size), &mut write_window)?
        }
        None => index.scan_stored(start, end, &mut write_window)?,
    }
    Ok(written)
}

/// The lines of a run of key groups, each group's lines byte-sorted, and their number.
fn render_run(
    index: &CaptureIndex,
    run: &[&[Vec<u8>]],
    format: CdxFormat,
) -> io::Result<(Vec<u8>, u64)> {
    let captures: usize = run.iter().map(|group| group.len()).sum();
    let mut out = String::with_capacity(captures * 256);
    let mut lines: Vec<String> = Vec::new();
    let render = |record: &[u8], out: &mut String| -> io::Result<()> {
        let fields = cdx_fields(record).ok_or_else(|| {
            io::Error::other(format!(
                "{}: undecodable capture document",
                index.dir().display()
            ))
        })?;
        match format {
            CdxFormat::Cdxj => push_cdxj_line(&fields, out),
            CdxFormat::Cdx11 => push_cdx11_line(&fields, out),
        }
        Ok(())
    };
    for group in run {
        if let [record] = *group {
            render(record, &mut out)?;
            out.push('\n');
            continue;
        }
        lines.clear();
        for record in group.iter() {
            let mut line = String::with_capacity(256);
            render(record, &mut line)?;
            lines.push(line);
        }
        lines.sort_unstable();
        for line in &lines {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok((out.into_bytes(), captures as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::capture::RecordLocation;
    use crate::index::store::Checkpoint;

    /// The index read capture by capture through lookups of every key (the path lookups
    /// take), for comparison; captures of one key come out as a scan has them.
    struct CaptureByCapture<'a>(&'a CaptureIndex);

    impl CaptureSource for CaptureByCapture<'_> {
        fn lookup_captures(&self, urlkey: &str) -> io::Result<Vec<Capture>> {
            self.0.lookup(urlkey)
        }

        fn scan_captures(
            &self,
            start: &str,
            end: Option<&str>,
            visit: &mut dyn FnMut(Capture),
        ) -> io::Result<()> {
            let mut keys: Vec<String> = (0..600).map(|n| capture(n).urlkey).collect();
            keys.sort_unstable();
            keys.dedup();
            for key in keys {
                if key.as_str() >= start && end.is_none_or(|end| key.as_str() < end) {
                    self.0.lookup(&key)?.into_iter().for_each(&mut *visit);
                }
            }
            Ok(())
        }
    }

    fn capture(n: usize) -> Capture {
        // Several captures per key, keys not in indexing order, some awkward values.
        let key = (n * 7919) % 97;
        Capture {
            urlkey: format!("org,example)/doc{key:03}%20x"),
            timestamp: format!("2026112{}1{:05}", n % 10, n),
            time_micros: n as i64,
            url: format!("http://example.org/doc{key:03}%20x?q=\u{e9}\"{n}"),
            mime: (!n.is_multiple_of(5)).then(|| "text/turtle".to_string()),
            status: (!n.is_multiple_of(7)).then_some(200 + (n % 3) as u16),
            digest: (!n.is_multiple_of(11)).then(|| format!("sha1:D{n}")),
            length: 100 + n as u64,
            offset: 1000 * n as u64,
            filename: format!("2026/11/2{}/a b\tc.warc.gz", n % 3),
            record_type: if n.is_multiple_of(4) {
                "revisit"
            } else {
                "response"
            }
            .into(),
            redirect: n
                .is_multiple_of(13)
                .then(|| format!("http://example.org/r {n}")),
            record_id: Some(format!("<urn:uuid:{n}>")),
            refers_to_url: None,
            refers_to_timestamp: None,
            original: n.is_multiple_of(4).then(|| RecordLocation {
                filename: "o.warc.gz".into(),
                offset: 1,
                length: 2,
            }),
        }
    }

    /// An index of 600 captures committed in three batches (three segments).
    fn index_in(dir: &std::path::Path) -> CaptureIndex {
        let index = CaptureIndex::open(dir).unwrap();
        let mut batch = index.batch().unwrap();
        for part in 0..3 {
            for n in part * 200..(part + 1) * 200 {
                batch.add(&capture(n)).unwrap();
            }
            batch.commit(&Checkpoint::default()).unwrap();
        }
        batch.finish().unwrap();
        index
    }

    fn export_text(
        index: &(impl CaptureSource + ?Sized),
        format: CdxFormat,
        start: &str,
        end: Option<&str>,
    ) -> (String, u64) {
        let mut out = Vec::new();
        let lines = export(index, format, start, end, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), lines)
    }

    #[test]
    fn bulk_export_equals_capture_by_capture_export() {
        let dir = tempfile::tempdir().unwrap();
        let index = index_in(dir.path());
        assert!(index.single_index().is_some());
        for format in [CdxFormat::Cdxj, CdxFormat::Cdx11] {
            for (start, end) in [
                ("", None),
                ("org,example)/doc020", Some("org,example)/doc050")),
                ("zzz", None),
            ] {
                let bulk = export_text(&index, format, start, end);
                let single = export_text(&CaptureByCapture(&index), format, start, end);
                assert_eq!(bulk, single, "{format:?} [{start}, {end:?})");
            }
        }
        let (all, lines) = export_text(&index, CdxFormat::Cdxj, "", None);
        assert_eq!(lines, 600);
        assert_eq!(all.lines().count(), 600);
        let mut sorted: Vec<&str> = all.lines().collect();
        sorted.sort_unstable();
        assert_eq!(sorted, all.lines().collect::<Vec<_>>(), "byte-sorted");
    }

    #[test]
    fn small_windows_write_the_same_lines() {
        let dir = tempfile::tempdir().unwrap();
        let index = index_in(dir.path());
        let whole = export_text(&index, CdxFormat::Cdxj, "", None);
        for window in [1, 5, 64] {
            let mut out = Vec::new();
            let lines =
                export_stored_in_windows(&index, CdxFormat::Cdxj, "", None, Some(window), &mut out)
                    .unwrap();
            assert_eq!(
                (String::from_utf8(out).unwrap(), lines),
                whole,
                "window {window}"
            );
        }
    }

    #[test]
    fn scan_range_until_stops_and_scan_range_sees_every_capture() {
        let dir = tempfile::tempdir().unwrap();
        let index = index_in(dir.path());
        let mut all = Vec::new();
        index.scan_range("", None, |c| all.push(c)).unwrap();
        let mut expected = Vec::new();
        CaptureByCapture(&index)
            .scan_captures("", None, &mut |c| expected.push(c))
            .unwrap();
        assert_eq!(all.len(), 600);
        let key = |c: &Capture| (c.urlkey.clone(), c.offset);
        let mut sorted_all: Vec<_> = all.iter().map(key).collect();
        let mut sorted_expected: Vec<_> = expected.iter().map(key).collect();
        assert_eq!(
            all.iter().map(|c| &c.urlkey).collect::<Vec<_>>(),
            expected.iter().map(|c| &c.urlkey).collect::<Vec<_>>()
        );
        sorted_all.sort_unstable();
        sorted_expected.sort_unstable();
        assert_eq!(sorted_all, sorted_expected);
        let mut seen = 0;
        index
            .scan_range_until("", None, |_| {
                seen += 1;
                if seen == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .unwrap();
        assert_eq!(seen, 3);
    }

    #[test]
    fn a_scan_ends_when_the_visitor_stops() {
        let dir = tempfile::tempdir().unwrap();
        let index = index_in(dir.path());
        let mut windows = Vec::new();
        index
            .scan_stored_in_windows("", None, Windows::fixed(10), |window| {
                windows.push(window.groups().count());
                Ok(ControlFlow::Break(()))
            })
            .unwrap();
        // One window of whole keys holding at least 10 captures, then nothing more.
        assert_eq!(windows.len(), 1);
        assert!(windows[0] >= 1 && windows[0] <= 10, "{windows:?}");
    }
}

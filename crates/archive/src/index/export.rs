//! Streaming the index out as byte-sorted CDXJ or CDX-11.

use std::io::{self, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use super::capture::Capture;
use super::cdxj::{CDX11_LEGEND, cdx11_line, cdxj_line, push_cdx11_line, push_cdxj_line};
use super::merged::CaptureSource;
use super::record_codec::cdx_fields;
use super::store::{CaptureIndex, FetchedWindow, RecordBatch, SortedPart, SortedScan, Windows};
use crate::parallel::ordered_pipeline;

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
/// the lines rendered on all cores as the records are read, then written in key order.
fn export_stored(
    index: &CaptureIndex,
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    out: &mut impl Write,
) -> io::Result<u64> {
    if index.is_sorted_by_key() {
        return export_sorted(index, format, start, end, SORTED_PART, out);
    }
    export_stored_in_windows(index, format, start, end, None, out)
}

/// Captures in one part of a key-sorted export: parts are read and rendered on all cores
/// and written in order, so a part's text (about 350 bytes a capture) is what each core
/// holds; a few parts per core keep the cores busy to the end.
const SORTED_PART: usize = 8192;

/// [`export`] from one index whose segments are sorted by key: the key range cut into
/// parts of whole keys (about `part_size` captures), each part's documents read block by
/// block (every block once) and rendered on all cores, the parts written in key order as
/// they are done.
fn export_sorted(
    index: &CaptureIndex,
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    part_size: usize,
    out: &mut impl Write,
) -> io::Result<u64> {
    let scan = index.sorted_scan()?;
    // Set once writing fails (a closed pipe): no more parts are handed out.
    let stopped = AtomicBool::new(false);
    let mut failure: Option<io::Error> = None;
    let mut written = 0u64;
    let parted = ordered_pipeline(
        |emit| -> io::Result<()> {
            for part in index.sorted_parts(&scan.searcher, start, end, part_size)? {
                if stopped.load(Ordering::Relaxed) {
                    break;
                }
                emit(vec![part]);
            }
            Ok(())
        },
        |part| render_sorted_part(index, &scan, part, format),
        |_, rendered| {
            for part in rendered {
                if failure.is_some() {
                    return;
                }
                let result = part.and_then(|(text, lines)| out.write_all(&text).map(|()| lines));
                match result {
                    Ok(lines) => written += lines,
                    Err(error) => {
                        failure = Some(error);
                        stopped.store(true, Ordering::Relaxed);
                    }
                }
            }
        },
    );
    parted?;
    match failure {
        Some(error) => Err(error),
        None => Ok(written),
    }
}

/// Where a rendered line lies in its part's text: `start..end` with its newline, the
/// urlkey at `start..key_end`.
#[derive(Clone, Copy)]
struct LineSpan {
    start: usize,
    key_end: usize,
    end: usize,
}

/// The lines of a part of a key-sorted index in byte order (key order, the lines of one
/// key byte-sorted), newline-terminated, and how many.
fn render_sorted_part(
    index: &CaptureIndex,
    scan: &SortedScan,
    part: &SortedPart,
    format: CdxFormat,
) -> io::Result<(Vec<u8>, u64)> {
    let mut text = String::with_capacity(part.len() * 400);
    let mut spans: Vec<LineSpan> = Vec::with_capacity(part.len());
    let mut segments = 0;
    let mut segment = None;
    index.read_sorted_part(scan, part, &mut |ordinal, record| {
        if segment != Some(ordinal) {
            segment = Some(ordinal);
            segments += 1;
        }
        let fields = cdx_fields(record).ok_or_else(|| {
            io::Error::other(format!(
                "{}: undecodable capture document",
                index.dir().display()
            ))
        })?;
        let start = text.len();
        match format {
            CdxFormat::Cdxj => push_cdxj_line(&fields, &mut text),
            CdxFormat::Cdx11 => push_cdx11_line(&fields, &mut text),
        }
        text.push('\n');
        spans.push(LineSpan {
            start,
            key_end: start + fields.urlkey.len(),
            end: text.len(),
        });
        Ok(())
    })?;
    let text = text.into_bytes();
    let lines = spans.len() as u64;
    let key = |span: &LineSpan| &text[span.start..span.key_end];
    let line = |span: &LineSpan| &text[span.start..span.end];
    let in_order =
        |a: &LineSpan, b: &LineSpan| key(a).cmp(key(b)).then_with(|| line(a).cmp(line(b)));
    if spans.is_sorted_by(|a, b| in_order(a, b).is_le()) {
        return Ok((text, lines));
    }
    // Each segment's lines are in key order already; the lines of one key may not be, and
    // the segments' lines interleave: a stable sort merges such runs in about linear time.
    if segments == 1 {
        for group in spans.chunk_by_mut(|a, b| key(a) == key(b)) {
            group.sort_unstable_by(|a, b| line(a).cmp(line(b)));
        }
    } else {
        spans.sort_by(in_order);
    }
    let mut ordered = Vec::with_capacity(text.len());
    for span in &spans {
        ordered.extend_from_slice(line(span));
    }
    Ok((ordered, lines))
}

/// [`export_stored`] with windows read as `windows` says (`None`: the default).
fn export_stored_in_windows(
    index: &CaptureIndex,
    format: CdxFormat,
    start: &str,
    end: Option<&str>,
    windows: Option<Windows>,
    out: &mut impl Write,
) -> io::Result<u64> {
    let mut written = 0u64;
    let render = |batch: RecordBatch| render_batch(index, batch, format);
    let mut write_window = |window: FetchedWindow<RenderedLines>| -> io::Result<ControlFlow<()>> {
        written += write_in_key_order(index, &window, out)?;
        Ok(ControlFlow::Continue(()))
    };
    match windows {
        Some(windows) => {
            index.scan_stored_in_windows(start, end, windows, render, &mut write_window)?
        }
        None => index.scan_stored(start, end, render, &mut write_window)?,
    }
    Ok(written)
}

/// The CDX lines of a batch of captures, one after another without separators.
struct RenderedLines {
    text: Vec<u8>,
    /// Per line: the capture's key-order position in its window, and where its line ends
    /// in `text` (it starts where the previous one ends).
    lines: Vec<(u32, usize)>,
}

impl RenderedLines {
    /// The text of line `at`.
    fn line(&self, at: usize) -> &[u8] {
        let start = at.checked_sub(1).map_or(0, |before| self.lines[before].1);
        &self.text[start..self.lines[at].1]
    }
}

/// Renders the lines of a batch of stored captures (in the batch's order).
fn render_batch(
    index: &CaptureIndex,
    batch: RecordBatch,
    format: CdxFormat,
) -> io::Result<RenderedLines> {
    let bytes: usize = batch.iter().map(|(_, record)| record.len()).sum();
    let mut text = String::with_capacity(bytes + bytes / 2);
    let mut lines = Vec::with_capacity(batch.len());
    for (position, record) in &batch {
        let fields = cdx_fields(record).ok_or_else(|| {
            io::Error::other(format!(
                "{}: undecodable capture document",
                index.dir().display()
            ))
        })?;
        match format {
            CdxFormat::Cdxj => push_cdxj_line(&fields, &mut text),
            CdxFormat::Cdx11 => push_cdx11_line(&fields, &mut text),
        }
        lines.push((*position, text.len()));
    }
    Ok(RenderedLines {
        text: text.into_bytes(),
        lines,
    })
}

/// Bytes gathered before they are written out.
const WRITE_CHUNK: usize = 1 << 20;

/// Writes a window's lines in key order, the lines of each key byte-sorted; returns how
/// many.
fn write_in_key_order(
    index: &CaptureIndex,
    window: &FetchedWindow<RenderedLines>,
    out: &mut impl Write,
) -> io::Result<u64> {
    const MISSING: (u32, u32) = (u32::MAX, u32::MAX);
    // (part, line in part) of each position in key order.
    let mut slots = vec![MISSING; window.len()];
    for (part, rendered) in (0u32..).zip(&window.parts) {
        for (line, &(position, _)) in (0u32..).zip(&rendered.lines) {
            slots[position as usize] = (part, line);
        }
    }
    if slots.contains(&MISSING) {
        return Err(io::Error::other(format!(
            "{}: a capture of the index was not read",
            index.dir().display()
        )));
    }
    let line = |(part, line): (u32, u32)| window.parts[part as usize].line(line as usize);
    let mut buffer = Vec::with_capacity(WRITE_CHUNK + 4096);
    let mut group: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for &end in &window.group_ends {
        group.clear();
        group.extend(slots[start..end].iter().map(|&slot| line(slot)));
        start = end;
        group.sort_unstable();
        for text in &group {
            buffer.extend_from_slice(text);
            buffer.push(b'\n');
        }
        if buffer.len() >= WRITE_CHUNK {
            out.write_all(&buffer)?;
            buffer.clear();
        }
    }
    out.write_all(&buffer)?;
    Ok(slots.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store::{Checkpoint, DocOrder, DocStoreCompression};
    use crate::index::test_indexes::{capture, index_in_four_parts};

    /// The index of `capture(0..count)` read capture by capture through lookups of every
    /// key (the path lookups take), for comparison; captures of one key come out as a scan
    /// has them.
    struct CaptureByCapture<'a>(&'a CaptureIndex, usize);

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
            let mut keys: Vec<String> = (0..self.1).map(|n| capture(n).urlkey).collect();
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
                let single = export_text(&CaptureByCapture(&index, 600), format, start, end);
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
            let lines = export_stored_in_windows(
                &index,
                CdxFormat::Cdxj,
                "",
                None,
                Some(Windows::fixed(window)),
                &mut out,
            )
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
        CaptureByCapture(&index, 600)
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
            .scan_stored_in_windows("", None, Windows::fixed(10), Ok, |window| {
                windows.push(window.group_ends.len());
                Ok(ControlFlow::Break(()))
            })
            .unwrap();
        // One window of whole keys holding at least 10 captures, then nothing more.
        assert_eq!(windows.len(), 1);
        assert!(windows[0] >= 1 && windows[0] <= 10, "{windows:?}");
    }

    /// An index of 6,000 captures in four segments, those of one file deleted after the
    /// third: enough that a window is read on several threads.
    fn larger_index_in(dir: &std::path::Path) -> CaptureIndex {
        larger_index_laid_out(dir, DocStoreCompression::default(), DocOrder::ByKey)
    }

    /// [`larger_index_in`] made with `compression` and `order`.
    fn larger_index_laid_out(
        dir: &std::path::Path,
        compression: DocStoreCompression,
        order: DocOrder,
    ) -> CaptureIndex {
        index_in_four_parts(dir, compression, order, 1500)
    }

    #[test]
    fn every_way_of_reading_a_window_writes_the_same_lines() {
        let dir = tempfile::tempdir().unwrap();
        let index = larger_index_in(dir.path());
        let deleted = (0..4500)
            .filter(|&n| capture(n).filename == capture(0).filename)
            .count();
        assert_eq!(index.len(), 6000 - deleted as u64);
        let ranges = [
            ("", None),
            ("org,example)/doc020", Some("org,example)/doc050")),
            ("org,example)/doc050", Some("org,example)/doc052")),
            ("zzz", None),
        ];
        for format in [CdxFormat::Cdxj, CdxFormat::Cdx11] {
            for (start, end) in ranges {
                let (expected, lines) =
                    export_text(&CaptureByCapture(&index, 6000), format, start, end);
                if start.is_empty() {
                    assert_eq!(lines, index.len(), "{format:?}");
                }
                for size in [100_000, 700, 50] {
                    // Read on all cores or on the calling thread.
                    for parallel_from in [1, usize::MAX] {
                        let windows = Windows {
                            parallel_from,
                            ..Windows::fixed(size)
                        };
                        let mut out = Vec::new();
                        if format == CdxFormat::Cdx11 {
                            writeln!(out, "{CDX11_LEGEND}").unwrap();
                        }
                        let written = export_stored_in_windows(
                            &index,
                            format,
                            start,
                            end,
                            Some(windows),
                            &mut out,
                        )
                        .unwrap();
                        assert_eq!(
                            (String::from_utf8(out).unwrap(), written),
                            (expected.clone(), lines),
                            "{format:?} [{start}, {end:?}) {windows:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_layout_and_part_size_exports_the_same_lines() {
        let ranges = [
            ("", None),
            ("org,example)/doc020", Some("org,example)/doc050")),
            ("org,example)/doc050", Some("org,example)/doc051")),
            ("org,example)/doc050%", Some("org,example)/doc050%")),
            ("zzz", None),
        ];
        let dir = tempfile::tempdir().unwrap();
        let as_indexed = dir.path().join("as-indexed");
        let reference =
            larger_index_laid_out(&as_indexed, DocStoreCompression::Zstd, DocOrder::AsIndexed);
        assert!(!reference.is_sorted_by_key());
        let layouts = [
            (DocStoreCompression::Zstd, DocOrder::ByKey),
            (DocStoreCompression::Lz4, DocOrder::ByKey),
        ];
        for (n, (compression, order)) in layouts.into_iter().enumerate() {
            let index = larger_index_laid_out(&dir.path().join(n.to_string()), compression, order);
            assert!(index.is_sorted_by_key());
            assert_eq!(index.len(), reference.len());
            for format in [CdxFormat::Cdxj, CdxFormat::Cdx11] {
                for (start, end) in ranges {
                    let expected = export_text(&reference, format, start, end);
                    assert_eq!(
                        export_text(&index, format, start, end),
                        expected,
                        "{compression:?} {format:?} [{start}, {end:?})"
                    );
                    for part_size in [1, 7, 500, 100_000] {
                        let mut out = Vec::new();
                        if format == CdxFormat::Cdx11 {
                            writeln!(out, "{CDX11_LEGEND}").unwrap();
                        }
                        let written =
                            export_sorted(&index, format, start, end, part_size, &mut out).unwrap();
                        assert_eq!(
                            (String::from_utf8(out).unwrap(), written),
                            expected,
                            "{compression:?} {format:?} [{start}, {end:?}) parts of {part_size}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn parts_of_a_sorted_index_hold_whole_keys_and_every_document_once() {
        let dir = tempfile::tempdir().unwrap();
        let index = larger_index_in(dir.path());
        let scan = index.sorted_scan().unwrap();
        let segments = scan.searcher.segment_readers();
        let documents: usize = segments.iter().map(|s| s.max_doc() as usize).sum();
        for size in [1, 7, 500, 100_000] {
            let parts = index.sorted_parts(&scan.searcher, "", None, size).unwrap();
            let mut keys_of_parts: Vec<std::collections::BTreeSet<String>> = Vec::new();
            let mut next_doc = vec![0; segments.len()];
            for part in &parts {
                let mut keys = std::collections::BTreeSet::new();
                index
                    .read_sorted_part(&scan, part, &mut |_, record| {
                        keys.insert(cdx_fields(record).unwrap().urlkey.into_owned());
                        Ok(())
                    })
                    .unwrap();
                for &(ordinal, from, to) in &part.runs {
                    assert_eq!(
                        from, next_doc[ordinal as usize],
                        "parts of {size} follow on"
                    );
                    next_doc[ordinal as usize] = to;
                }
                if let Some(before) = keys_of_parts.last() {
                    assert!(
                        before.last() < keys.first(),
                        "parts of {size} in key order, no key in two"
                    );
                }
                keys_of_parts.push(keys);
            }
            let read: Vec<usize> = next_doc.iter().map(|&doc| doc as usize).collect();
            assert_eq!(
                read,
                segments
                    .iter()
                    .map(|s| s.max_doc() as usize)
                    .collect::<Vec<_>>()
            );
            assert_eq!(parts.iter().map(SortedPart::len).sum::<usize>(), documents);
            if size == 500 {
                assert!(parts.len() >= 6, "{} parts of 500", parts.len());
            }
        }
    }

    #[test]
    fn an_empty_index_exports_nothing_but_the_legend() {
        let dir = tempfile::tempdir().unwrap();
        let index = CaptureIndex::open(dir.path()).unwrap();
        assert_eq!(
            export_text(&index, CdxFormat::Cdxj, "", None),
            (String::new(), 0)
        );
        assert_eq!(
            export_text(&index, CdxFormat::Cdx11, "", None),
            (format!("{CDX11_LEGEND}\n"), 0)
        );
    }

    #[test]
    fn decoded_scans_see_captures_in_lookup_order_with_threads_or_without() {
        let dir = tempfile::tempdir().unwrap();
        let index = larger_index_in(dir.path());
        let mut expected = Vec::new();
        CaptureByCapture(&index, 6000)
            .scan_captures("", None, &mut |c| expected.push(c))
            .unwrap();
        assert_eq!(expected.len() as u64, index.len());
        for parallel_from in [1, usize::MAX] {
            let windows = Windows {
                parallel_from,
                ..Windows::fixed(700)
            };
            let mut seen = Vec::new();
            index
                .scan_decoded("", None, windows, |capture| {
                    seen.push(capture);
                    ControlFlow::Continue(())
                })
                .unwrap();
            assert!(seen == expected, "parallel from {parallel_from}");
        }
        // A key-sorted index's whole-range reader (large ranges take it), in the same order.
        let mut seen = Vec::new();
        index
            .scan_sorted("", None, &mut |capture| seen.push(capture))
            .unwrap();
        assert!(seen == expected, "key-sorted scan");
        let mut ranged = Vec::new();
        index
            .scan_sorted(
                "org,example)/doc020",
                Some("org,example)/doc050"),
                &mut |c| ranged.push(c),
            )
            .unwrap();
        let in_range: Vec<&Capture> = expected
            .iter()
            .filter(|c| {
                c.urlkey.as_str() >= "org,example)/doc020"
                    && c.urlkey.as_str() < "org,example)/doc050"
            })
            .collect();
        assert!(
            ranged.iter().collect::<Vec<_>>() == in_range,
            "key-sorted scan of a range"
        );
    }
}

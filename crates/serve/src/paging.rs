//! CDX pagination over the capture index, for servers started without a ZipNum index:
//! paging clients (cdx-toolkit's `iter()`, which asks for `page=0`, `page=1`, … until a 400)
//! must work on every archive.
//!
//! The capture index has no blocks, so it is cut into blocks the way a ZipNum index is: every
//! [`Limits::cdx_block_captures`](super::Limits) captures of the queried urlkey range, in
//! index order (urlkey, then the CDXJ line), make one block, and a page is `pageSize` blocks
//! (default [`DEFAULT_PAGE_SIZE`]). Pages are cut before filters, `from`/`to` and the
//! exact-URL check apply, as pywb cuts ZipNum pages: a page may hold fewer rows than its
//! captures, never rows of another page. `showNumPages` answers pywb's
//! `{"pages", "pageSize", "blocks"}`, counted by one scan of the range.

use std::io;
use std::ops::ControlFlow;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::cdxj::cdxj_line;
use ldwarc_archive::index::merged::MergedIndex;
use ldwarc_archive::index::zipnum::{PageInfo, PageRequest};

pub(crate) use ldwarc_archive::index::zipnum::DEFAULT_PAGE_SIZE;

/// The blocks and pages of the urlkey range `[start, end)` of the capture index.
pub(crate) fn page_info(
    index: &MergedIndex,
    start: &str,
    end: &str,
    page_size: usize,
    block_captures: usize,
) -> io::Result<PageInfo> {
    let page_size = page_size.max(1);
    let mut captures = 0usize;
    index.scan_range(start, Some(end), |_| captures += 1)?;
    let blocks = captures.div_ceil(block_captures.max(1));
    Ok(PageInfo {
        pages: blocks.div_ceil(page_size),
        page_size,
        blocks,
    })
}

/// Hands the captures of one page of `[start, end)` to `visit`, in index order. A page past
/// the last is an `InvalidInput` error with pywb's message; page 0 of an empty range is
/// empty.
pub(crate) fn scan_page(
    index: &MergedIndex,
    start: &str,
    end: &str,
    page: PageRequest,
    block_captures: usize,
    mut visit: impl FnMut(Capture),
) -> io::Result<()> {
    let per_page = page.page_size.max(1).saturating_mul(block_captures.max(1));
    let skip = page.page.saturating_mul(per_page);
    let mut position = 0usize;
    let mut group: Vec<Capture> = Vec::new();
    let mut emit = |group: &mut Vec<Capture>, position: &mut usize| {
        let mut lines: Vec<(String, Capture)> =
            group.drain(..).map(|c| (cdxj_line(&c), c)).collect();
        lines.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, capture) in lines {
            if (skip..skip.saturating_add(per_page)).contains(position) {
                visit(capture);
            }
            *position += 1;
        }
    };
    index.scan_range_until(start, Some(end), |capture| {
        if group.first().is_some_and(|g| g.urlkey != capture.urlkey) {
            emit(&mut group, &mut position);
        }
        // Past the page, which is therefore not past the last: nothing more to read.
        if position >= skip.saturating_add(per_page) {
            return ControlFlow::Break(());
        }
        group.push(capture);
        ControlFlow::Continue(())
    })?;
    emit(&mut group, &mut position);
    let pages = position.div_ceil(per_page);
    if page.page > 0 && page.page >= pages {
        return Err(past_the_last(page.page, pages));
    }
    Ok(())
}

/// pywb's answer to a page beyond the last.
fn past_the_last(page: usize, pages: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "Page {page} invalid: First Page is 0, Last Page is {}",
            pages.saturating_sub(1)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pywb_message_names_the_last_page() {
        let error = past_the_last(3, 2);
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            error.to_string(),
            "Page 3 invalid: First Page is 0, Last Page is 1"
        );
    }
}

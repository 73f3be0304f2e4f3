//! What to run, added to a library's error: the libraries say what is wrong; only the
//! binary knows its own commands and flags.

use std::io;

use ldwarc_archive::archive::NoCaptureIndex;
use ldwarc_timetravel::triples::UnreadableTripleIndex;

/// The one-line message for `error`, with the command that remedies it when the error is
/// one the binary knows a remedy for.
pub fn message(error: &io::Error) -> String {
    let text = error.to_string();
    let Some(inner) = error.get_ref() else {
        return text;
    };
    if let Some(NoCaptureIndex { root }) = inner.downcast_ref() {
        let root = root.display();
        return format!("{text} (run `ldwarc index --root {root}` first)");
    }
    if inner.downcast_ref::<UnreadableTripleIndex>().is_some() {
        return format!("{text} (`ldwarc index --triples --rebuild` builds it again)");
    }
    text
}

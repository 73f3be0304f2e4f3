//! Why a replay question has no answer, each as one line naming the URL, date, file or offset.

use ldwarc_rdf::RdfError;

/// A replay failure.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// Reading the index or a WARC file failed (the message names the file and offset).
    #[error("{0}")]
    Io(String),
    /// A root has no capture index (kept typed so that the binary can say what to run).
    #[error("{0}")]
    NoCaptureIndex(ldwarc_archive::archive::NoCaptureIndex),
    /// The URL has no capture at all.
    #[error("{url}: never captured{}", list("; captured URLs nearby: ", nearby))]
    NeverCaptured {
        /// The URL asked for.
        url: String,
        /// Captured URLs on the same host, nearest first.
        nearby: Vec<String>,
    },
    /// Every capture of the URL is later than the date.
    #[error(
        "{url}: no capture at or before {date}{}",
        list("; the first captures are ", first)
    )]
    NoCaptureAt {
        /// The URL asked for.
        url: String,
        /// The date, as a 14-digit timestamp.
        date: String,
        /// The earliest capture timestamps.
        first: Vec<String>,
    },
    /// The capture is not a successful answer (a 404, a 5xx, a redirect without target).
    #[error("{url}: the capture of {timestamp} is HTTP {}, not a document", status.map_or("status unknown".to_string(), |s| s.to_string()))]
    Status {
        /// The URL of the capture.
        url: String,
        /// Its timestamp.
        timestamp: String,
        /// Its HTTP status.
        status: Option<u16>,
    },
    /// A redirect chain that cannot be followed.
    #[error("{url}: {detail}")]
    Redirects {
        /// The URL asked for.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// A revisit whose original payload is not in the archive.
    #[error("{url}: the revisit of {timestamp} refers to a payload not in the archive")]
    UnresolvedRevisit {
        /// The URL of the revisit.
        url: String,
        /// Its timestamp.
        timestamp: String,
    },
    /// The payload is not RDF by its type and content.
    #[error(
        "{url}: the capture of {timestamp} is not RDF (Content-Type: {content_type}); use --raw for its bytes"
    )]
    NotRdf {
        /// The URL of the capture.
        url: String,
        /// Its timestamp.
        timestamp: String,
        /// Its `Content-Type`.
        content_type: String,
    },
    /// The payload's `Content-Encoding` could not be undone.
    #[error("{url}: the capture of {timestamp} cannot be decoded: {detail}")]
    Decode {
        /// The URL of the capture.
        url: String,
        /// Its timestamp.
        timestamp: String,
        /// The decoder's error.
        detail: String,
    },
    /// The payload did not parse as RDF.
    #[error("{0}")]
    Rdf(RdfError),
}

impl ReplayError {
    /// Wraps an I/O error (whose message already carries its context).
    pub fn io(error: impl std::fmt::Display) -> ReplayError {
        ReplayError::Io(error.to_string())
    }

    /// [`ReplayError::io`], keeping a [`ldwarc_archive::archive::NoCaptureIndex`] typed.
    pub fn from_io(error: std::io::Error) -> ReplayError {
        match error.get_ref().and_then(|e| e.downcast_ref()) {
            Some(missing) => ReplayError::NoCaptureIndex(Clone::clone(missing)),
            None => ReplayError::io(error),
        }
    }
}

fn list(lead: &str, items: &[String]) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!("{lead}{}", items.join(", "))
    }
}

impl From<ReplayError> for std::io::Error {
    fn from(error: ReplayError) -> Self {
        if let ReplayError::NoCaptureIndex(missing) = error {
            return std::io::Error::new(std::io::ErrorKind::NotFound, missing);
        }
        std::io::Error::other(error.to_string())
    }
}

//! HTTP `Content-Encoding` decoding with a hard cap on the decoded size, so a compression
//! bomb cannot exhaust memory.

use std::io::{self, Cursor, Read};

use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};

/// Why a body could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Some layer of the decoded body would exceed the cap.
    #[error("decoded body exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The cap that was hit, in bytes.
        limit: usize,
    },
    /// A content coding we do not implement (e.g. `compress`, `zstd`).
    #[error("unsupported content encoding {0:?}")]
    Unsupported(String),
    /// The encoded data is corrupt or truncated.
    #[error("corrupt {encoding} data: {detail}")]
    Corrupt {
        /// The coding whose decoder failed (as written in the header, lower-cased).
        encoding: String,
        /// The decoder's message.
        detail: String,
    },
}

/// The codings we implement, as named in `Content-Encoding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
}

impl Coding {
    fn parse(token: &str) -> Result<Coding, DecodeError> {
        match token.to_ascii_lowercase().as_str() {
            "identity" => Ok(Coding::Identity),
            "gzip" | "x-gzip" => Ok(Coding::Gzip),
            "deflate" => Ok(Coding::Deflate),
            "br" => Ok(Coding::Brotli),
            _ => Err(DecodeError::Unsupported(token.to_string())),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Coding::Identity => "identity",
            Coding::Gzip => "gzip",
            Coding::Deflate => "deflate",
            Coding::Brotli => "br",
        }
    }
}

/// Decodes an HTTP body according to its `Content-Encoding` header value.
///
/// Supports `identity`, `gzip`/`x-gzip` (all members of a multi-member stream), `deflate` (the
/// zlib wrapper RFC 9110 specifies, or the raw deflate some servers send instead) and `br`.
/// Stacked codings (`gzip, br`) were applied in order, so they are undone in reverse. Every
/// layer streams into the next, and each layer's output — the final body included — is capped
/// at `max_decoded` bytes: past that the result is [`DecodeError::TooLarge`], and no buffer
/// larger than the cap is ever allocated. An unknown coding is an error, never a guess.
pub fn decode_content(
    content_encoding: Option<&str>,
    body: &[u8],
    max_decoded: usize,
) -> Result<Vec<u8>, DecodeError> {
    let codings = parse_codings(content_encoding.unwrap_or(""))?;
    if codings.is_empty() {
        return if body.len() > max_decoded {
            Err(DecodeError::TooLarge { limit: max_decoded })
        } else {
            Ok(body.to_vec())
        };
    }
    let mut reader: Box<dyn Read + '_> = Box::new(body);
    for coding in codings.iter().rev() {
        let decoder = wrap(*coding, reader)?;
        reader = Box::new(CappedReader::new(decoder, max_decoded, coding.name()));
    }
    read_capped(reader, max_decoded, body.len()).map_err(|err| classify(err, max_decoded))
}

/// The codings of a header value, in the order they were applied, without `identity`.
fn parse_codings(header: &str) -> Result<Vec<Coding>, DecodeError> {
    let mut codings = Vec::new();
    for token in header
        .split(',')
        .map(str::trim)
        .filter(|token| !token.is_empty())
    {
        let coding = Coding::parse(token)?;
        if coding != Coding::Identity {
            codings.push(coding);
        }
    }
    Ok(codings)
}

fn wrap<'a>(coding: Coding, inner: Box<dyn Read + 'a>) -> Result<Box<dyn Read + 'a>, DecodeError> {
    Ok(match coding {
        Coding::Identity => inner,
        Coding::Gzip => Box::new(MultiGzDecoder::new(inner)),
        Coding::Brotli => Box::new(brotli_decompressor::Decompressor::new(inner, 64 * 1024)),
        Coding::Deflate => wrap_deflate(inner).map_err(|err| corrupt("deflate", &err))?,
    })
}

/// `deflate` should be zlib-wrapped (RFC 1950) but is often raw (RFC 1951): look at the first
/// two bytes to tell, then replay them in front of the rest.
fn wrap_deflate<'a>(mut inner: Box<dyn Read + 'a>) -> io::Result<Box<dyn Read + 'a>> {
    let mut header = [0u8; 2];
    let mut filled = 0;
    while filled < header.len() {
        let read = inner.read(&mut header[filled..])?;
        if read == 0 {
            break;
        }
        filled += read;
    }
    let replayed = Cursor::new(header[..filled].to_vec()).chain(inner);
    if filled == 2 && is_zlib_header(header[0], header[1]) {
        Ok(Box::new(ZlibDecoder::new(replayed)))
    } else {
        Ok(Box::new(DeflateDecoder::new(replayed)))
    }
}

/// RFC 1950: compression method 8, window at most 32 KiB, and the check bits.
fn is_zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0F == 8 && cmf >> 4 <= 7 && (u16::from(cmf) * 256 + u16::from(flg)) % 31 == 0
}

/// Marks the io::Error a [`CappedReader`] raises, to tell it from decoder errors.
#[derive(Debug)]
struct CapExceeded;

impl std::fmt::Display for CapExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("decoded size cap exceeded")
    }
}

impl std::error::Error for CapExceeded {}

/// The io::Error a decoding layer raised, tagged with the layer's coding.
#[derive(Debug)]
struct LayerFailure {
    coding: &'static str,
    detail: String,
}

impl std::fmt::Display for LayerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.coding, self.detail)
    }
}

impl std::error::Error for LayerFailure {}

/// Whether an io::Error is one of our markers (raised by an inner layer, passed through).
fn is_marker(err: &io::Error) -> bool {
    err.get_ref()
        .is_some_and(|inner| inner.is::<CapExceeded>() || inner.is::<LayerFailure>())
}

/// A decoding layer's output: fails once more than `cap` bytes have passed through it, and
/// tags the decoder's own errors with its coding.
struct CappedReader<R> {
    inner: R,
    remaining: usize,
    coding: &'static str,
}

impl<R: Read> CappedReader<R> {
    fn new(inner: R, cap: usize, coding: &'static str) -> Self {
        CappedReader {
            inner,
            remaining: cap,
            coding,
        }
    }
}

impl<R: Read> Read for CappedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Ask for one byte more than allowed so exceeding the cap is detected, not truncated.
        let want = buf.len().min(self.remaining.saturating_add(1));
        let read = self.inner.read(&mut buf[..want]).map_err(|err| {
            if is_marker(&err) {
                err
            } else {
                io::Error::other(LayerFailure {
                    coding: self.coding,
                    detail: err.to_string(),
                })
            }
        })?;
        if read > self.remaining {
            return Err(io::Error::other(CapExceeded));
        }
        self.remaining -= read;
        Ok(read)
    }
}

/// Reads everything, growing the buffer by doubling but never past `cap`.
fn read_capped(mut reader: impl Read, cap: usize, size_hint: usize) -> io::Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(size_hint.min(cap));
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => return Ok(out),
            Ok(read) => read,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        let needed = out.len() + read;
        if needed > cap {
            return Err(io::Error::other(CapExceeded));
        }
        if needed > out.capacity() {
            let target = out.capacity().saturating_mul(2).max(needed).min(cap);
            out.reserve_exact(target - out.len());
        }
        out.extend_from_slice(&chunk[..read]);
    }
}

fn classify(err: io::Error, limit: usize) -> DecodeError {
    let inner = err.get_ref();
    if inner.is_some_and(|inner| inner.is::<CapExceeded>()) {
        return DecodeError::TooLarge { limit };
    }
    match inner.and_then(|inner| inner.downcast_ref::<LayerFailure>()) {
        Some(failure) => DecodeError::Corrupt {
            encoding: failure.coding.to_string(),
            detail: failure.detail.clone(),
        },
        None => corrupt("content", &err),
    }
}

fn corrupt(coding: &str, err: &io::Error) -> DecodeError {
    DecodeError::Corrupt {
        encoding: coding.to_string(),
        detail: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use std::io::Write;

    const TEXT: &[u8] = b"<http://example.org/s> <http://example.org/p> \"hello\" .\n";

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// The fixture was made with Python's `brotli.compress` of the same text repeated 50 times.
    fn brotli_fixture() -> (&'static [u8], Vec<u8>) {
        let compressed = include_bytes!("../fixtures/repeated.nt.br");
        (compressed, TEXT.repeat(50))
    }

    #[test]
    fn identity_and_empty_header() {
        assert_eq!(decode_content(None, TEXT, 1000).unwrap(), TEXT);
        assert_eq!(decode_content(Some(""), TEXT, 1000).unwrap(), TEXT);
        assert_eq!(decode_content(Some("Identity"), TEXT, 1000).unwrap(), TEXT);
        assert!(matches!(
            decode_content(None, TEXT, 10),
            Err(DecodeError::TooLarge { limit: 10 })
        ));
    }

    #[test]
    fn gzip_round_trip_including_multi_member() {
        assert_eq!(
            decode_content(Some("gzip"), &gzip(TEXT), 1000).unwrap(),
            TEXT
        );
        let mut two_members = gzip(b"first ");
        two_members.extend(gzip(b"second"));
        assert_eq!(
            decode_content(Some("x-gzip"), &two_members, 1000).unwrap(),
            b"first second"
        );
    }

    #[test]
    fn deflate_zlib_and_raw_round_trip() {
        let mut zlib = ZlibEncoder::new(Vec::new(), Compression::default());
        zlib.write_all(TEXT).unwrap();
        let zlib = zlib.finish().unwrap();
        assert_eq!(decode_content(Some("deflate"), &zlib, 1000).unwrap(), TEXT);

        let mut raw = DeflateEncoder::new(Vec::new(), Compression::best());
        raw.write_all(TEXT).unwrap();
        let raw = raw.finish().unwrap();
        assert_eq!(decode_content(Some("DEFLATE"), &raw, 1000).unwrap(), TEXT);
    }

    #[test]
    fn brotli_round_trip() {
        let (compressed, expected) = brotli_fixture();
        assert!(compressed.len() < expected.len() / 5);
        assert_eq!(
            decode_content(Some("br"), compressed, 10_000).unwrap(),
            expected
        );
    }

    #[test]
    fn stacked_encodings_are_undone_in_reverse() {
        let (brotli, expected) = brotli_fixture();
        // "br, gzip": brotli was applied first, gzip last.
        let layered = gzip(brotli);
        assert_eq!(
            decode_content(Some("br, gzip"), &layered, 10_000).unwrap(),
            expected
        );
        assert!(decode_content(Some("gzip, br"), &layered, 10_000).is_err());
    }

    #[test]
    fn unknown_and_corrupt() {
        assert!(matches!(
            decode_content(Some("zstd"), TEXT, 1000),
            Err(DecodeError::Unsupported(name)) if name == "zstd"
        ));
        let mut truncated = gzip(&TEXT.repeat(20));
        truncated.truncate(truncated.len() / 2);
        let err = decode_content(Some("gzip"), &truncated, 10_000).unwrap_err();
        assert!(matches!(err, DecodeError::Corrupt { ref encoding, .. } if encoding == "gzip"));
        assert!(decode_content(Some("br"), b"not brotli at all", 1000).is_err());
    }

    #[test]
    fn output_exactly_at_the_cap_fits_without_overallocating() {
        let data = vec![7u8; 300_000];
        let decoded = decode_content(Some("gzip"), &gzip(&data), data.len()).unwrap();
        assert_eq!(decoded, data);
        assert!(decoded.capacity() <= data.len());
        assert!(matches!(
            decode_content(Some("gzip"), &gzip(&data), data.len() - 1),
            Err(DecodeError::TooLarge { .. })
        ));
    }

    #[test]
    fn gzip_bomb_stops_at_the_cap() {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..200 {
            encoder.write_all(&zeros).unwrap();
        }
        let bomb = encoder.finish().unwrap();
        assert!(
            bomb.len() < 1 << 20,
            "200 MB of zeros compresses to {}",
            bomb.len()
        );
        let cap = 8 << 20;
        let started = std::time::Instant::now();
        let result = decode_content(Some("gzip"), &bomb, cap);
        assert!(matches!(result, Err(DecodeError::TooLarge { limit }) if limit == cap));
        // Stopping at the cap means decoding ~8 MB, not 200 MB.
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_bomb_in_an_inner_layer_is_capped_too() {
        let inner = gzip(&vec![0u8; 4 << 20]);
        let outer = gzip(&inner);
        assert!(matches!(
            decode_content(Some("gzip, gzip"), &outer, 1 << 20),
            Err(DecodeError::TooLarge { .. })
        ));
    }
}

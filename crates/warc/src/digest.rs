//! Record digests: computing them while bytes stream past, and reading the spellings other
//! tools write. ldwarc itself writes one spelling only: `sha1:` + 32 upper-case Base32 characters.

use data_encoding::{
    BASE32, BASE32_NOPAD, BASE64, BASE64_NOPAD, BASE64URL, BASE64URL_NOPAD, HEXLOWER_PERMISSIVE,
};
use md5::Md5;
use sha1::{Digest as _, Sha1};
use sha2::Sha256;

/// A hash algorithm that may appear in `WARC-Block-Digest` / `WARC-Payload-Digest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// SHA-1, the algorithm ldwarc writes.
    Sha1,
    /// SHA-256.
    Sha256,
    /// MD5.
    Md5,
}

impl Algorithm {
    fn from_label(label: &str) -> Option<Self> {
        match label.to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => Some(Self::Sha1),
            "sha256" => Some(Self::Sha256),
            "md5" => Some(Self::Md5),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Sha1 => "sha1",
            Self::Sha256 => "sha256",
            Self::Md5 => "md5",
        }
    }

    fn output_len(self) -> usize {
        match self {
            Self::Sha1 => 20,
            Self::Sha256 => 32,
            Self::Md5 => 16,
        }
    }
}

/// A parsed digest value: algorithm plus raw hash bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DigestValue {
    /// The algorithm the value was computed with.
    pub algorithm: Algorithm,
    /// The raw hash bytes.
    pub bytes: Vec<u8>,
}

impl DigestValue {
    /// Parses `algorithm:value` where value is Base32 (padded or not), hex or Base64.
    /// Returns `None` for unknown algorithms or values of the wrong length.
    pub fn parse(text: &str) -> Option<Self> {
        let (label, value) = text.trim().split_once(':')?;
        let algorithm = Algorithm::from_label(label)?;
        let value = value.trim();
        let want = algorithm.output_len();
        let candidates = [
            BASE32.decode(value.to_ascii_uppercase().as_bytes()).ok(),
            BASE32_NOPAD
                .decode(value.to_ascii_uppercase().as_bytes())
                .ok(),
            HEXLOWER_PERMISSIVE.decode(value.as_bytes()).ok(),
            BASE64.decode(value.as_bytes()).ok(),
            BASE64_NOPAD.decode(value.as_bytes()).ok(),
            BASE64URL.decode(value.as_bytes()).ok(),
            BASE64URL_NOPAD.decode(value.as_bytes()).ok(),
        ];
        let bytes = candidates
            .into_iter()
            .flatten()
            .find(|bytes| bytes.len() == want)?;
        Some(Self { algorithm, bytes })
    }

    /// The canonical spelling: `sha1:` + upper-case Base32 (other algorithms alike).
    pub fn to_canonical(&self) -> String {
        format!("{}:{}", self.algorithm.label(), BASE32.encode(&self.bytes))
    }
}

/// Whether `text` (`algorithm:value`) names an algorithm ldwarc computes, whether or not
/// its value is well-formed: a malformed value of a known algorithm is an error, an
/// unknown algorithm only cannot be verified.
pub fn has_known_algorithm(text: &str) -> bool {
    text.trim()
        .split_once(':')
        .is_some_and(|(label, _)| Algorithm::from_label(label).is_some())
}

/// Normalises any accepted digest spelling to the canonical one; unknown spellings are
/// returned unchanged so nothing is lost.
pub fn canonical_digest(text: &str) -> String {
    DigestValue::parse(text)
        .map(|d| d.to_canonical())
        .unwrap_or_else(|| text.to_string())
}

/// An incremental hash of one algorithm.
#[derive(Clone)]
pub enum Hasher {
    /// SHA-1 state.
    Sha1(Sha1),
    /// SHA-256 state.
    Sha256(Sha256),
    /// MD5 state.
    Md5(Md5),
}

impl Hasher {
    /// A fresh hasher for `algorithm`.
    pub fn new(algorithm: Algorithm) -> Self {
        match algorithm {
            Algorithm::Sha1 => Self::Sha1(Sha1::new()),
            Algorithm::Sha256 => Self::Sha256(Sha256::new()),
            Algorithm::Md5 => Self::Md5(Md5::new()),
        }
    }

    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Self::Sha1(h) => h.update(bytes),
            Self::Sha256(h) => h.update(bytes),
            Self::Md5(h) => h.update(bytes),
        }
    }

    /// Finishes the hash.
    pub fn finish(self) -> DigestValue {
        let (algorithm, bytes) = match self {
            Self::Sha1(h) => (Algorithm::Sha1, h.finalize().to_vec()),
            Self::Sha256(h) => (Algorithm::Sha256, h.finalize().to_vec()),
            Self::Md5(h) => (Algorithm::Md5, h.finalize().to_vec()),
        };
        DigestValue { algorithm, bytes }
    }
}

/// The SHA-1 of `bytes` in the canonical spelling.
pub fn sha1_digest(bytes: &[u8]) -> String {
    let mut hasher = Hasher::new(Algorithm::Sha1);
    hasher.update(bytes);
    hasher.finish().to_canonical()
}

/// Finds where an HTTP message head ends while its bytes stream past: the first empty line,
/// whether lines end in CRLF or bare LF.
#[derive(Debug, Clone, Default)]
pub struct HeadEndScanner {
    /// 0: inside a line; 1: just after LF; 2: after LF CR.
    state: u8,
    seen: u64,
    end: Option<u64>,
}

impl HeadEndScanner {
    /// Feeds the next chunk; returns the index within `chunk` where the body starts, once.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<usize> {
        if self.end.is_some() {
            return None;
        }
        for (index, &byte) in chunk.iter().enumerate() {
            self.state = match (self.state, byte) {
                (1, b'\n') | (2, b'\n') => {
                    let body = index + 1;
                    self.end = Some(self.seen + body as u64);
                    self.seen += chunk.len() as u64;
                    return Some(body);
                }
                (1 | 2, b'\r') => 2,
                (_, b'\n') => 1,
                _ => 0,
            };
        }
        self.seen += chunk.len() as u64;
        None
    }

    /// The length of the head including its blank line, once found.
    pub fn head_len(&self) -> Option<u64> {
        self.end
    }
}

/// Computes the block digest and, for HTTP blocks, the payload digest (the bytes after the
/// HTTP head) in one pass over a block.
#[derive(Clone)]
pub struct BlockDigester {
    block: Hasher,
    payload: Option<(HeadEndScanner, Hasher)>,
    length: u64,
}

impl BlockDigester {
    /// `http_payload`: whether the block is an HTTP message whose body is the payload.
    pub fn new(block: Algorithm, payload: Option<Algorithm>, http_payload: bool) -> Self {
        let payload = payload.map(|algorithm| {
            let scanner = HeadEndScanner {
                end: if http_payload { None } else { Some(0) },
                ..HeadEndScanner::default()
            };
            (scanner, Hasher::new(algorithm))
        });
        Self {
            block: Hasher::new(block),
            payload,
            length: 0,
        }
    }

    /// SHA-1 block digest, plus a SHA-1 payload digest when `http_payload` (HTTP body) or
    /// `whole_block_payload` (payload = block, as in `resource` records).
    pub fn sha1(http_payload: bool, whole_block_payload: bool) -> Self {
        let payload = (http_payload || whole_block_payload).then_some(Algorithm::Sha1);
        Self::new(Algorithm::Sha1, payload, http_payload)
    }

    /// Feeds the next chunk of the block.
    pub fn update(&mut self, chunk: &[u8]) {
        self.block.update(chunk);
        self.length += chunk.len() as u64;
        if let Some((scanner, hasher)) = &mut self.payload {
            if scanner.head_len().is_some() {
                hasher.update(chunk);
            } else if let Some(body_start) = scanner.feed(chunk) {
                hasher.update(&chunk[body_start..]);
            }
        }
    }

    /// Bytes fed so far.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// Finishes: the block digest, and the payload digest if one was asked for and the
    /// HTTP head ended inside the block.
    pub fn finish(self) -> BlockDigests {
        let (payload, head_len) = match self.payload {
            Some((scanner, hasher)) => match scanner.head_len() {
                Some(head_len) => (Some(hasher.finish()), Some(head_len)),
                None => (None, None),
            },
            None => (None, None),
        };
        BlockDigests {
            block: self.block.finish(),
            payload,
            length: self.length,
            http_head_len: head_len,
        }
    }
}

/// The result of [`BlockDigester`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDigests {
    /// Digest of the whole block.
    pub block: DigestValue,
    /// Digest of the payload, when there is one.
    pub payload: Option<DigestValue>,
    /// Block length in bytes.
    pub length: u64,
    /// Length of the HTTP head (including its blank line) for HTTP blocks.
    pub http_head_len: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_spelling_of_known_sha1() {
        // sha1("") = da39a3ee5e6b4b0d3255bfef95601890afd80709
        assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        let hex = DigestValue::parse("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709")
            .expect("hex sha1 parses");
        assert_eq!(hex.to_canonical(), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(
            canonical_digest("SHA1:3i42h3s6nnfq2msvx7xzkyayscx5qbyj"),
            "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
        );
        assert_eq!(canonical_digest("sha1:nonsense"), "sha1:nonsense");
    }

    #[test]
    fn payload_digest_starts_after_http_head_across_chunks() {
        let message = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello world";
        let whole = {
            let mut d = BlockDigester::sha1(true, false);
            d.update(message);
            d.finish()
        };
        for split in 0..message.len() {
            let mut d = BlockDigester::sha1(true, false);
            d.update(&message[..split]);
            d.update(&message[split..]);
            assert_eq!(d.finish(), whole, "split at {split}");
        }
        assert_eq!(
            whole.payload.map(|p| p.to_canonical()),
            Some(sha1_digest(b"hello world"))
        );
        assert_eq!(whole.http_head_len, Some(45));
    }

    #[test]
    fn cr_cr_lf_head_is_found() {
        let mut d = BlockDigester::sha1(true, false);
        d.update(b"HTTP/1.0 302 \r\r\nA: b\r\r\n\r\r\nbody");
        assert_eq!(
            d.finish().payload.map(|p| p.to_canonical()),
            Some(sha1_digest(b"body"))
        );
    }

    #[test]
    fn lf_only_head_is_found() {
        let mut d = BlockDigester::sha1(true, false);
        d.update(b"HTTP/1.0 200 OK\nA: b\n\nbody");
        assert_eq!(
            d.finish().payload.map(|p| p.to_canonical()),
            Some(sha1_digest(b"body"))
        );
    }
}

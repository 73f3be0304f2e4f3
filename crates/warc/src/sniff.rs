//! Recognising compressions ldwarc does not read, so that a file in one of them is named
//! for what it is instead of being reported as garbage bytes.

/// The name of the compression whose magic number `bytes` start with, for the formats
/// WARC files are found in besides gzip: LZ4 frames (and the legacy LZ4 format),
/// Zstandard, bzip2 and xz.
pub(crate) fn foreign_compression(bytes: &[u8]) -> Option<&'static str> {
    const MAGICS: &[(&[u8], &str)] = &[
        (&[0x04, 0x22, 0x4D, 0x18], "LZ4"),
        (&[0x02, 0x21, 0x4C, 0x18], "LZ4"),
        (&[0x28, 0xB5, 0x2F, 0xFD], "Zstandard"),
        (b"BZh", "bzip2"),
        (&[0xFD, b'7', b'z', b'X', b'Z', 0x00], "xz"),
    ];
    MAGICS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_name_their_compression() {
        assert_eq!(
            foreign_compression(&[0x04, 0x22, 0x4D, 0x18, 0x64]),
            Some("LZ4")
        );
        assert_eq!(
            foreign_compression(&[0x28, 0xB5, 0x2F, 0xFD]),
            Some("Zstandard")
        );
        assert_eq!(foreign_compression(b"BZh91AY"), Some("bzip2"));
        assert_eq!(foreign_compression(b"WARC/1.1\r\n"), None);
        assert_eq!(foreign_compression(&[0x04, 0x22]), None);
    }
}

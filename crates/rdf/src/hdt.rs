//! An HDT 1.0 writer (the W3C member submission "HDT Binary RDF Representation", as
//! hdt-cpp reads it): a global control information block, an N-Triples header, a
//! four-section dictionary (shared subject-objects, subjects, predicates, objects, each
//! Plain Front Coded) and BitmapTriples in SPO order with log-array sequences.
//!
//! Why our own writer and not the `hdt` crate (0.7.3, KonradHoeffner/hdt): that crate can
//! write HDT (`Hdt::read_nt` / `from_triples` with its `nt` feature, then `Hdt::write`), but
//! even without its sophia default it brings 22 crates ldwarc does not have (qwt wavelet
//! trees, env_logger, bincode, ntriple, mem_dbg, ...) and 490 KB of stripped release binary,
//! and it takes its triples as strings to parse again. Measured on one generated archive
//! (benches/snapshot_throughput.rs, 21,800 documents, 185,480 statements, 2 loaded cores,
//! the dev profile, where dependencies and this crate are optimised):
//! `snapshot --format nq` 7.2-7.3 s, `--format hdt` 7.1-8.2 s with this writer, whose own
//! sorting and writing took 0.16-0.24 s of it (the terms are converted on the worker
//! threads); the `hdt` crate built the same HDT (1.44 MB, as here) from those triples as
//! N-Triples in 1.7-2.0 s (release build). Ours costs ~600 lines and no dependency.
//!
//! HDT has no named graphs: [`HdtWriter`] keeps the distinct triples of everything added,
//! whatever graph a statement came from.

use std::io::{self, Write};

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

use crate::Graph;

/// Strings per Plain Front Coding block (hdt-cpp's default).
const BLOCK_SIZE: usize = 16;

const HDT: &str = "http://purl.org/HDT/hdt#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const VOID: &str = "http://rdfs.org/ns/void#";
const DCT_FORMAT: &str = "http://purl.org/dc/terms/format";

/// Control information types (HDT §3.1).
const CI_GLOBAL: u8 = 1;
const CI_HEADER: u8 = 2;
const CI_DICTIONARY: u8 = 3;
const CI_TRIPLES: u8 = 4;

/// Section type bytes.
const TYPE_SEQUENCE_LOG: u8 = 1;
const TYPE_BITMAP_PLAIN: u8 = 1;
const TYPE_PFC: u8 = 2;

/// One document's statements in HDT spelling, prepared apart from the writer so that
/// documents can be converted on several threads and added in order on one.
#[derive(Clone, Debug, Default)]
pub struct HdtDocument {
    /// The document's distinct terms in HDT spelling, back to back.
    text: String,
    /// Where each term ends in `text`.
    ends: Vec<usize>,
    /// Statements as indexes into the terms.
    triples: Vec<[u32; 3]>,
    /// Statements HDT cannot hold.
    left_out: usize,
}

impl HdtDocument {
    /// Converts every statement of `graph` (in whatever graph it is) to HDT spelling,
    /// `blank_prefix` put before blank node labels as in the snapshot's N-Quads so that the
    /// documents of one file share no blank node. Statements with an RDF 1.2 triple term or
    /// a NUL character (which HDT's NUL-terminated strings cannot hold) are left out and
    /// counted.
    pub fn from_graph(graph: &Graph, blank_prefix: &str) -> Self {
        const UNSEEN: u32 = u32::MAX;
        const UNFIT: u32 = u32::MAX - 1;
        let mut document = HdtDocument::default();
        let mut local = vec![UNSEEN; graph.term_count()];
        let mut term = |id: u32, document: &mut HdtDocument| -> u32 {
            let slot = &mut local[id as usize];
            if *slot == UNSEEN {
                let start = document.text.len();
                *slot = if hdt_spelling(graph.term(id), blank_prefix, &mut document.text) {
                    document.ends.push(document.text.len());
                    (document.ends.len() - 1) as u32
                } else {
                    document.text.truncate(start);
                    UNFIT
                };
            }
            *slot
        };
        for quad in graph.quads() {
            let triple = [
                term(quad.subject, &mut document),
                term(quad.predicate, &mut document),
                term(quad.object, &mut document),
            ];
            if triple.contains(&UNFIT) {
                document.left_out += 1;
            } else {
                document.triples.push(triple);
            }
        }
        document
    }

    /// Statements kept.
    pub fn len(&self) -> usize {
        self.triples.len()
    }

    /// Whether no statement was kept.
    pub fn is_empty(&self) -> bool {
        self.triples.is_empty()
    }

    /// Statements left out (RDF 1.2 triple terms, NUL characters).
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    fn term(&self, index: usize) -> &str {
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.text[start..self.ends[index]]
    }
}

/// What [`HdtWriter::write`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HdtSummary {
    /// Distinct triples.
    pub triples: u64,
    /// Distinct subjects (shared ones included).
    pub subjects: u64,
    /// Distinct predicates.
    pub predicates: u64,
    /// Distinct objects (shared ones included).
    pub objects: u64,
    /// Terms both subject and object (HDT's shared section).
    pub shared: u64,
}

/// Collects triples and writes them as one HDT 1.0 file. Holds every distinct term once
/// and every statement as three numbers: HDT's dictionary is sorted, so nothing can be
/// written before the last statement is in.
#[derive(Default)]
pub struct HdtWriter {
    text: String,
    ends: Vec<usize>,
    hashes: Vec<u64>,
    ids: HashTable<u32>,
    hasher: RandomState,
    triples: Vec<[u32; 3]>,
}

impl HdtWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a document's statements.
    pub fn add_document(&mut self, document: &HdtDocument) {
        let ids: Vec<u32> = (0..document.ends.len())
            .map(|index| self.intern(document.term(index)))
            .collect();
        self.triples.extend(
            document
                .triples
                .iter()
                .map(|t| [ids[t[0] as usize], ids[t[1] as usize], ids[t[2] as usize]]),
        );
    }

    /// Adds every statement of `graph` (see [`HdtDocument::from_graph`]); returns how many
    /// were left out.
    pub fn add_graph(&mut self, graph: &Graph, blank_prefix: &str) -> usize {
        let document = HdtDocument::from_graph(graph, blank_prefix);
        self.add_document(&document);
        document.left_out
    }

    fn intern(&mut self, spelling: &str) -> u32 {
        let hash = self.hasher.hash_one(spelling);
        let HdtWriter {
            text,
            ends,
            hashes,
            ids,
            ..
        } = self;
        let entry = ids.entry(
            hash,
            |&id| spelling_at(text, ends, id) == spelling,
            |&id| hashes[id as usize],
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let id = ends.len() as u32;
                text.push_str(spelling);
                ends.push(text.len());
                hashes.push(hash);
                slot.insert(id);
                id
            }
        }
    }

    /// Writes the HDT file: the distinct triples of everything added, `base_iri` naming the
    /// dataset in the header.
    pub fn write(self, base_iri: &str, out: &mut dyn Write) -> io::Result<HdtSummary> {
        let HdtWriter {
            text,
            ends,
            mut triples,
            ..
        } = self;
        let term = |id: u32| spelling_at(&text, &ends, id);

        // Roles: which terms are subjects, predicates, objects.
        const S: u8 = 1;
        const P: u8 = 2;
        const O: u8 = 4;
        let mut roles = vec![0u8; ends.len()];
        for &[s, p, o] in &triples {
            roles[s as usize] |= S;
            roles[p as usize] |= P;
            roles[o as usize] |= O;
        }
        let section = |keep: &dyn Fn(u8) -> bool| {
            let mut ids: Vec<u32> = (0..ends.len() as u32)
                .filter(|&id| keep(roles[id as usize]))
                .collect();
            // HDT orders strings by their bytes (hdt-cpp's strcmp), as `str` compares.
            ids.sort_unstable_by(|&a, &b| term(a).cmp(term(b)));
            ids
        };
        let shared = section(&|r| r & S != 0 && r & O != 0);
        let subjects = section(&|r| r & S != 0 && r & O == 0);
        let predicates = section(&|r| r & P != 0);
        let objects = section(&|r| r & O != 0 && r & S == 0);

        // HDT ids: shared 1..=|SH|, then subjects and objects each from |SH|+1 (the
        // mapping hdt-cpp calls MAPPING2); predicates 1..=|P| on their own.
        let mut so_id = vec![0u32; ends.len()];
        let mut p_id = vec![0u32; ends.len()];
        for (n, &id) in shared.iter().enumerate() {
            so_id[id as usize] = n as u32 + 1;
        }
        let after_shared = shared.len() as u32;
        for part in [&subjects, &objects] {
            for (n, &id) in part.iter().enumerate() {
                so_id[id as usize] = after_shared + n as u32 + 1;
            }
        }
        for (n, &id) in predicates.iter().enumerate() {
            p_id[id as usize] = n as u32 + 1;
        }
        for triple in &mut triples {
            *triple = [
                so_id[triple[0] as usize],
                p_id[triple[1] as usize],
                so_id[triple[2] as usize],
            ];
        }
        triples.sort_unstable();
        triples.dedup();

        let summary = HdtSummary {
            triples: triples.len() as u64,
            subjects: (shared.len() + subjects.len()) as u64,
            predicates: predicates.len() as u64,
            objects: (shared.len() + objects.len()) as u64,
            shared: shared.len() as u64,
        };
        let size_strings: usize = [&shared, &subjects, &predicates, &objects]
            .iter()
            .flat_map(|part| part.iter())
            .map(|&id| term(id).len())
            .sum();

        control_info(out, CI_GLOBAL, &format!("<{HDT}HDTv1>"), "")?;
        let header = header_ntriples(base_iri, &summary, size_strings);
        control_info(
            out,
            CI_HEADER,
            "ntriples",
            &format!("length={};", header.len()),
        )?;
        out.write_all(header.as_bytes())?;

        control_info(
            out,
            CI_DICTIONARY,
            &format!("<{HDT}dictionaryFour>"),
            &format!("mapping=1;sizeStrings={size_strings};"),
        )?;
        for part in [&shared, &subjects, &predicates, &objects] {
            write_pfc(out, part.iter().map(|&id| term(id)), part.len())?;
        }

        control_info(
            out,
            CI_TRIPLES,
            &format!("<{HDT}triplesBitmap>"),
            &format!("order=1;numTriples={};", triples.len()),
        )?;
        write_bitmap_triples(out, &triples)?;
        out.flush()?;
        Ok(summary)
    }
}

fn spelling_at<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
    let id = id as usize;
    let start = id.checked_sub(1).map_or(0, |before| ends[before]);
    &text[start..ends[id]]
}

/// Appends the HDT spelling of an N-Triples term: IRIs bare, blank nodes `_:` and the
/// prefixed label, literals `"lexical"` unescaped with their `@lang` or `^^<datatype>`.
/// `false` when HDT cannot hold the term (a triple term, a NUL character).
fn hdt_spelling(spelling: &str, blank_prefix: &str, out: &mut String) -> bool {
    let fits = if let Some(label) = spelling.strip_prefix("_:") {
        out.push_str("_:");
        out.push_str(blank_prefix);
        out.push_str(label);
        true
    } else if let Some(literal) = spelling.strip_prefix('"') {
        // The suffix (`@lang`, `^^<iri>` with `"` escaped in IRIs) has no quote: the last
        // quote closes the lexical form.
        let Some(close) = literal.rfind('"') else {
            return false;
        };
        out.push('"');
        unescape(&literal[..close], out);
        out.push('"');
        let suffix = &literal[close + 1..];
        match suffix.strip_prefix("^^<").and_then(|s| s.strip_suffix('>')) {
            Some(datatype) => {
                out.push_str("^^<");
                unescape(datatype, out);
                out.push('>');
            }
            None => out.push_str(suffix),
        }
        true
    } else if spelling.starts_with("<<") {
        false
    } else if let Some(iri) = spelling.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
        unescape(iri, out);
        true
    } else {
        false
    };
    fits && !out.contains('\0')
}

/// Undoes N-Triples escapes (`\uXXXX`, `\UXXXXXXXX`, `\n` and the other single-character
/// ones). An escape that does not decode is kept as written.
fn unescape(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at + 1..];
        let (decoded, used) = match escape.as_bytes().first() {
            Some(b'u') => (hex_char(escape.get(1..5)), 5),
            Some(b'U') => (hex_char(escape.get(1..9)), 9),
            Some(b't') => (Some('\t'), 1),
            Some(b'b') => (Some('\u{8}'), 1),
            Some(b'n') => (Some('\n'), 1),
            Some(b'r') => (Some('\r'), 1),
            Some(b'f') => (Some('\u{c}'), 1),
            Some(b'"') => (Some('"'), 1),
            Some(b'\'') => (Some('\''), 1),
            Some(b'\\') => (Some('\\'), 1),
            _ => (None, 0),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &escape[used..];
            }
            None => {
                out.push('\\');
                rest = escape;
            }
        }
    }
    out.push_str(rest);
}

fn hex_char(digits: Option<&str>) -> Option<char> {
    let digits = digits?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(digits, 16).ok()?)
}

/// The header: hdt-cpp's VoID and format description of the dataset, as N-Triples.
fn header_ntriples(base_iri: &str, summary: &HdtSummary, size_strings: usize) -> String {
    let base = format!("<{base_iri}>");
    let number = |n: u64| format!("\"{n}\"");
    let lines: Vec<(String, String, String)> = vec![
        (base.clone(), iri(RDF_TYPE), iri(&format!("{HDT}Dataset"))),
        (base.clone(), iri(RDF_TYPE), iri(&format!("{VOID}Dataset"))),
        (
            base.clone(),
            iri(&format!("{VOID}triples")),
            number(summary.triples),
        ),
        (
            base.clone(),
            iri(&format!("{VOID}properties")),
            number(summary.predicates),
        ),
        (
            base.clone(),
            iri(&format!("{VOID}distinctSubjects")),
            number(summary.subjects),
        ),
        (
            base.clone(),
            iri(&format!("{VOID}distinctObjects")),
            number(summary.objects),
        ),
        (
            base,
            iri(&format!("{HDT}formatInformation")),
            "_:format".into(),
        ),
        (
            "_:format".into(),
            iri(&format!("{HDT}dictionary")),
            "_:dictionary".into(),
        ),
        (
            "_:format".into(),
            iri(&format!("{HDT}triples")),
            "_:triples".into(),
        ),
        (
            "_:dictionary".into(),
            iri(DCT_FORMAT),
            iri(&format!("{HDT}dictionaryFour")),
        ),
        (
            "_:dictionary".into(),
            iri(&format!("{HDT}dictionarynumSharedSubjectObject")),
            number(summary.shared),
        ),
        (
            "_:dictionary".into(),
            iri(&format!("{HDT}dictionarymapping")),
            number(1),
        ),
        (
            "_:dictionary".into(),
            iri(&format!("{HDT}dictionarysizeStrings")),
            number(size_strings as u64),
        ),
        (
            "_:dictionary".into(),
            iri(&format!("{HDT}dictionaryblockSize")),
            number(BLOCK_SIZE as u64),
        ),
        (
            "_:triples".into(),
            iri(DCT_FORMAT),
            iri(&format!("{HDT}triplesBitmap")),
        ),
        (
            "_:triples".into(),
            iri(&format!("{HDT}triplesnumTriples")),
            number(summary.triples),
        ),
        (
            "_:triples".into(),
            iri(&format!("{HDT}triplesOrder")),
            "\"SPO\"".into(),
        ),
    ];
    lines
        .into_iter()
        .map(|(s, p, o)| format!("{s} {p} {o} .\n"))
        .collect()
}

fn iri(iri: &str) -> String {
    format!("<{iri}>")
}

/// A control information block: `$HDT`, its type, format and properties, CRC16.
fn control_info(out: &mut dyn Write, kind: u8, format: &str, properties: &str) -> io::Result<()> {
    let mut block = Vec::with_capacity(8 + format.len() + properties.len());
    block.extend_from_slice(b"$HDT");
    block.push(kind);
    block.extend_from_slice(format.as_bytes());
    block.push(0);
    block.extend_from_slice(properties.as_bytes());
    block.push(0);
    let crc = crc16(&block);
    block.extend_from_slice(&crc.to_le_bytes());
    out.write_all(&block)
}

/// Appends HDT's variable-length number: 7 bits a byte, least significant first, the high
/// bit set on the last byte (the opposite of LEB128).
fn vbyte(mut value: u64, out: &mut Vec<u8>) {
    while value > 127 {
        out.push((value & 127) as u8);
        value >>= 7;
    }
    out.push(value as u8 | 0x80);
}

/// Bits needed for `value` (at least one).
fn bits_for(value: u64) -> u8 {
    (64 - value.leading_zeros()).max(1) as u8
}

/// A Plain Front Coding dictionary section over sorted, distinct strings.
fn write_pfc<'a>(
    out: &mut dyn Write,
    strings: impl Iterator<Item = &'a str>,
    count: usize,
) -> io::Result<()> {
    let mut text = Vec::new();
    let mut blocks: Vec<u64> = Vec::with_capacity(count / BLOCK_SIZE + 2);
    let mut previous: &[u8] = &[];
    for (n, string) in strings.enumerate() {
        let bytes = string.as_bytes();
        if n % BLOCK_SIZE == 0 {
            blocks.push(text.len() as u64);
            text.extend_from_slice(bytes);
        } else {
            let common = previous
                .iter()
                .zip(bytes)
                .take_while(|(a, b)| a == b)
                .count();
            vbyte(common as u64, &mut text);
            text.extend_from_slice(&bytes[common..]);
        }
        text.push(0);
        previous = bytes;
    }
    // The end of the last block closes the offsets, even in an empty section: hdt-cpp
    // counts the blocks as the offsets less one, and an empty list made it read past them.
    blocks.push(text.len() as u64);
    let mut head = vec![TYPE_PFC];
    vbyte(count as u64, &mut head);
    vbyte(text.len() as u64, &mut head);
    vbyte(BLOCK_SIZE as u64, &mut head);
    head.push(crc8(&head));
    out.write_all(&head)?;
    write_log_sequence(out, &blocks, bits_for(text.len() as u64))?;
    out.write_all(&text)?;
    out.write_all(&crc32c(&text).to_le_bytes())
}

/// A log-array sequence: `width` bits per entry, packed from the lowest bit up.
fn write_log_sequence(out: &mut dyn Write, values: &[u64], width: u8) -> io::Result<()> {
    let mut head = vec![TYPE_SEQUENCE_LOG, width];
    vbyte(values.len() as u64, &mut head);
    head.push(crc8(&head));
    out.write_all(&head)?;
    let mut packed = BitPacker::with_bits(values.len() * usize::from(width));
    for &value in values {
        packed.push(value, width);
    }
    let data = packed.into_bytes();
    out.write_all(&data)?;
    out.write_all(&crc32c(&data).to_le_bytes())
}

/// A plain bitmap: its length in bits, then the bits from the lowest up (one byte at least).
fn write_bitmap(out: &mut dyn Write, bits: &BitPacker) -> io::Result<()> {
    let mut head = vec![TYPE_BITMAP_PLAIN];
    vbyte(bits.len as u64, &mut head);
    head.push(crc8(&head));
    out.write_all(&head)?;
    let mut data = bits.bytes();
    if data.is_empty() {
        data.push(0);
    }
    out.write_all(&data)?;
    out.write_all(&crc32c(&data).to_le_bytes())
}

/// BitmapTriples in SPO order over sorted, distinct id triples: bitmap Y (a one ends each
/// subject's predicates), bitmap Z (a one ends each subject-predicate pair's objects), then
/// the predicate and object sequences.
fn write_bitmap_triples(out: &mut dyn Write, triples: &[[u32; 3]]) -> io::Result<()> {
    let mut ys: Vec<u64> = Vec::new();
    let mut zs: Vec<u64> = Vec::with_capacity(triples.len());
    let mut bitmap_y = BitPacker::with_bits(triples.len());
    let mut bitmap_z = BitPacker::with_bits(triples.len());
    let (mut max_y, mut max_z) = (0u64, 0u64);
    for (n, &[s, p, o]) in triples.iter().enumerate() {
        let next = triples.get(n + 1);
        if n == 0 || triples[n - 1][..2] != [s, p] {
            ys.push(u64::from(p));
            max_y = max_y.max(u64::from(p));
        }
        zs.push(u64::from(o));
        max_z = max_z.max(u64::from(o));
        let pair_ends = next.is_none_or(|t| t[..2] != [s, p]);
        bitmap_z.push(u64::from(pair_ends), 1);
        // A pair's bit in Y is known at its last triple: whether the subject ends there too.
        if pair_ends {
            bitmap_y.push(u64::from(next.is_none_or(|t| t[0] != s)), 1);
        }
    }
    write_bitmap(out, &bitmap_y)?;
    write_bitmap(out, &bitmap_z)?;
    write_log_sequence(out, &ys, bits_for(max_y))?;
    write_log_sequence(out, &zs, bits_for(max_z))
}

/// Bits packed into little-endian 64-bit words, the first bit lowest.
struct BitPacker {
    words: Vec<u64>,
    len: usize,
}

impl BitPacker {
    fn with_bits(bits: usize) -> Self {
        BitPacker {
            words: Vec::with_capacity(bits.div_ceil(64)),
            len: 0,
        }
    }

    fn push(&mut self, value: u64, width: u8) {
        let width = usize::from(width);
        let offset = self.len % 64;
        if offset == 0 {
            self.words.push(0);
        }
        let last = self.words.len() - 1;
        self.words[last] |= value << offset;
        if offset + width > 64 {
            self.words.push(value >> (64 - offset));
        }
        self.len += width;
    }

    /// The first `ceil(len / 8)` bytes.
    fn bytes(&self) -> Vec<u8> {
        let mut bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.truncate(self.len.div_ceil(8));
        bytes
    }

    fn into_bytes(self) -> Vec<u8> {
        self.bytes()
    }
}

/// CRC-8 (polynomial 0x07, initial 0): HDT's header checksums.
fn crc8(data: &[u8]) -> u8 {
    static TABLE: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut n = 0;
        while n < 256 {
            let mut crc = n as u8;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 0x80 != 0 {
                    (crc << 1) ^ 0x07
                } else {
                    crc << 1
                };
                bit += 1;
            }
            table[n] = crc;
            n += 1;
        }
        table
    };
    data.iter().fold(0, |crc, &b| TABLE[usize::from(crc ^ b)])
}

/// The byte table of a reflected CRC of up to 32 bits with the reflected polynomial `poly`
/// (CRC-16/ARC and CRC-32C share the algorithm, not the width).
const fn reflected_table(poly: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut crc = n as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[n] = crc;
        n += 1;
    }
    table
}

/// One step of a reflected table-driven CRC.
fn reflected_step(table: &[u32; 256], crc: u32, byte: u8) -> u32 {
    (crc >> 8) ^ table[usize::from((crc as u8) ^ byte)]
}

/// CRC-16/ARC (polynomial 0x8005 reflected, initial 0): control information checksums.
fn crc16(data: &[u8]) -> u16 {
    static TABLE: [u32; 256] = reflected_table(0xA001);
    data.iter()
        .fold(0u32, |crc, &b| reflected_step(&TABLE, crc, b)) as u16
}

/// CRC-32C (Castagnoli): data checksums.
fn crc32c(data: &[u8]) -> u32 {
    static TABLE: [u32; 256] = reflected_table(0x82F6_3B78);
    !data
        .iter()
        .fold(!0u32, |crc, &b| reflected_step(&TABLE, crc, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_their_standard_check_values() {
        // The catalogue's check value of each CRC: the checksum of "123456789".
        assert_eq!(crc8(b"123456789"), 0xF4);
        assert_eq!(crc16(b"123456789"), 0xBB3D);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn vbyte_marks_the_last_byte() {
        let mut out = Vec::new();
        vbyte(0, &mut out);
        vbyte(127, &mut out);
        vbyte(128, &mut out);
        vbyte(300, &mut out);
        assert_eq!(out, [0x80, 0xFF, 0x00, 0x81, 0x2C, 0x82]);
    }

    #[test]
    fn bits_pack_from_the_lowest_across_words() {
        let mut packed = BitPacker::with_bits(0);
        for value in [5u64, 0, 7, 1] {
            packed.push(value, 3);
        }
        // 101 000 111 001 from bit 0: 0b001_111_000_101.
        assert_eq!(packed.bytes(), [0b1100_0101, 0b0000_0011]);
        let mut wide = BitPacker::with_bits(0);
        wide.push(1, 63);
        wide.push(0b11, 2);
        let bytes = wide.bytes();
        assert_eq!(bytes.len(), 9);
        assert_eq!(bytes[7], 0x80);
        assert_eq!(bytes[8], 0x01);
    }

    #[test]
    fn a_subjects_last_pair_with_several_objects_ends_it_in_bitmap_y() {
        // Subject 1 has one predicate with two objects, subject 2 one triple.
        let mut out = Vec::new();
        write_bitmap_triples(&mut out, &[[1, 1, 1], [1, 1, 2], [2, 1, 1]]).unwrap();
        // Bitmap Y: two pairs, each the last of its subject.
        assert_eq!(&out[..2], &[TYPE_BITMAP_PLAIN, 0x82]);
        assert_eq!(out[3], 0b11);
        // Bitmap Z: three objects, the second and third end their pair.
        assert_eq!(&out[8..10], &[TYPE_BITMAP_PLAIN, 0x83]);
        assert_eq!(out[11], 0b110);
        // Y sequence [1, 1] in one bit each, Z sequence [1, 2, 1] in two bits each.
        assert_eq!(&out[16..19], &[TYPE_SEQUENCE_LOG, 1, 0x82]);
        assert_eq!(out[20], 0b11);
        assert_eq!(&out[25..28], &[TYPE_SEQUENCE_LOG, 2, 0x83]);
        assert_eq!(out[29], 0b01_10_01);
        assert_eq!(out.len(), 34);
    }

    #[test]
    fn terms_are_spelled_bare_and_unescaped() {
        let spell = |term: &str| {
            let mut out = String::new();
            hdt_spelling(term, "d1", &mut out).then_some(out)
        };
        assert_eq!(spell("<http://a/\\u0020b>").unwrap(), "http://a/ b");
        assert_eq!(spell("_:x").unwrap(), "_:d1x");
        assert_eq!(
            spell("\"say \\\"hi\\\"\\n\"@en").unwrap(),
            "\"say \"hi\"\n\"@en"
        );
        assert_eq!(
            spell("\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>").unwrap(),
            "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>"
        );
        assert_eq!(spell("<<( <a> <b> <c> )>>"), None);
        assert_eq!(spell("\"a\\u0000b\""), None);
    }

    #[test]
    fn front_coding_shares_prefixes_within_a_block() {
        let mut out = Vec::new();
        let strings = ["http://a/x", "http://a/xy", "http://b"];
        write_pfc(&mut out, strings.into_iter(), 3).unwrap();
        // type, 3 strings, text length, block size 16, crc8
        let text: &[u8] = b"http://a/x\0\x8ay\0\x87b\0";
        assert_eq!(&out[..4], &[2, 0x83, 0x80 | text.len() as u8, 0x90]);
        assert_eq!(out[4], crc8(&out[..4]));
        // the block offsets: two entries (0 and the text length) of five bits
        assert_eq!(&out[5..8], &[1, 5, 0x82]);
        assert_eq!(out[8], crc8(&out[5..8]));
        // 0 and 17 in five bits each: 17 starts at bit 5.
        assert_eq!(&out[9..11], &[0x20, 0x02]);
        assert_eq!(&out[11..15], &crc32c(&out[9..11]).to_le_bytes());
        assert_eq!(&out[15..15 + text.len()], text);
        assert_eq!(&out[15 + text.len()..], &crc32c(text).to_le_bytes());

        // An empty section still closes its offsets: one entry, 0.
        let mut empty = Vec::new();
        write_pfc(&mut empty, std::iter::empty(), 0).unwrap();
        assert_eq!(&empty[..4], &[2, 0x80, 0x80, 0x90]);
        assert_eq!(&empty[5..8], &[TYPE_SEQUENCE_LOG, 1, 0x81]);
        assert_eq!(empty[9], 0);
        assert_eq!(empty.len(), 10 + 4 + 4);
    }
}

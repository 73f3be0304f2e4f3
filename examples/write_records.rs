//! Writes captures into an archive until killed: the writing process of the SIGKILL test
//! (`tests/crash_recovery.rs`).
//!
//! ```text
//! cargo run --example write_records -- <root> [seed]
//! ```
//!
//! Opens an `ArchiveWriter` on `<root>` (recovering whatever a killed predecessor left open),
//! then writes request + response + metadata captures for several hosts and pay-level
//! domains, bodies from 0 bytes to a few hundred KB (compressible and not), in an endless
//! loop. Files rotate at 2 MB so closing and renaming happen often too. Prints nothing.

use std::io::Write;
use std::process::ExitCode;

use chrono::Utc;
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_warc::{Block, BlockBuilder, PayloadKind, WarcHeader, record_header};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const HOSTS: &[&str] = &[
    "dbpedia.org",
    "de.dbpedia.org",
    "data.example.co.uk",
    "www.example.co.uk",
    "bio2rdf.org",
    "127.0.0.1",
    "user.github.io",
];

/// Size of the pool of random bytes bodies are cut from.
const NOISE_BYTES: usize = 600 * 1024;

fn noise() -> &'static [u8] {
    static POOL: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = vec![0u8; NOISE_BYTES];
        StdRng::seed_from_u64(7).fill(&mut pool[..]);
        pool
    })
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(root) = args.next() else {
        eprintln!("usage: write_records <root> [seed]");
        return ExitCode::from(2);
    };
    let seed = args
        .next()
        .and_then(|s| s.to_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| u64::from(std::process::id()));
    match run(root.into(), seed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("write_records: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(root: std::path::PathBuf, seed: u64) -> std::io::Result<()> {
    let options = ArchiveWriterOptions {
        prefix: "crash".into(),
        max_file_bytes: 2_000_000,
        hostname: "crash-test".into(),
        ..ArchiveWriterOptions::default()
    };
    let (mut writer, _recoveries) = ArchiveWriter::open(root, options)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut serial = 0u64;
    loop {
        let host = HOSTS[rng.random_range(0..HOSTS.len())];
        let uri = format!("http://{host}/resource/{seed}/{serial}");
        serial += 1;
        let records = capture(&mut rng, &uri)?;
        writer.write_capture(host, records)?;
    }
}

/// One fetch: request, response and metadata sharing a date, linked by WARC-Concurrent-To.
fn capture(rng: &mut StdRng, uri: &str) -> std::io::Result<Vec<(WarcHeader, Block)>> {
    let date = Utc::now();
    let mut response = record_header("response", date, Some(uri));
    response.push("Content-Type", "application/http;msgtype=response");
    response.push("WARC-IP-Address", "192.0.2.1");
    let response_id = response.record_id().unwrap_or_default().to_string();

    let mut request = record_header("request", date, Some(uri));
    request.push("Content-Type", "application/http;msgtype=request");
    request.push("WARC-Concurrent-To", response_id.clone());
    let request_block = Block::from_bytes(
        format!(
            "GET {uri} HTTP/1.1\r\nAccept: text/turtle, application/rdf+xml;q=0.9\r\nUser-Agent: ldwarc-crash-test\r\n\r\n"
        )
        .into_bytes(),
        PayloadKind::Http,
    )?;

    // Body sizes from 0 to a few hundred KB; the large ones mostly incompressible, so their
    // gzip members outgrow the writer's buffer and reach the file in pieces: a kill then
    // often lands inside a record.
    let size = match rng.random_range(0..10) {
        0 => 0,
        1..=3 => rng.random_range(1..4096),
        4..=5 => rng.random_range(4096..64 * 1024),
        _ => rng.random_range(200 * 1024..500 * 1024),
    };
    let mut body = vec![0u8; size];
    if size > 100 * 1024 || rng.random_bool(0.3) {
        // Random bytes from a pool made once (cheaper than fresh ones per body).
        let start = rng.random_range(0..=NOISE_BYTES - size);
        body.copy_from_slice(&noise()[start..start + size]);
    } else {
        let line = format!(
            "<{uri}> <http://example.org/p> \"{}\" .\n",
            rng.random::<u32>()
        );
        for (i, byte) in body.iter_mut().enumerate() {
            *byte = line.as_bytes()[i % line.len()];
        }
    }
    let mut builder = BlockBuilder::with_spill(PayloadKind::Http, 128 * 1024);
    write!(
        builder,
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )?;
    for chunk in body.chunks(16 * 1024) {
        builder.write_all(chunk)?;
    }
    let response_block = builder.finish()?;

    let mut metadata = record_header("metadata", date, Some(uri));
    metadata.push("WARC-Concurrent-To", response_id);
    metadata.push("Content-Type", "application/warc-fields");
    let metadata_block = Block::from_bytes(
        format!(
            "fetchTimeMs: {}\r\nbodyBytes: {size}\r\n",
            rng.random_range(1..2000)
        )
        .into_bytes(),
        PayloadKind::None,
    )?;
    Ok(vec![
        (request, request_block),
        (response, response_block),
        (metadata, metadata_block),
    ])
}

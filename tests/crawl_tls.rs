//! `ldwarc crawl` of an HTTPS server whose certificate comes from a private CA made in the
//! test: refused with a certificate error without the CA, archived with `--ca-file`, with
//! `SSL_CERT_FILE`, with `SSL_CERT_DIR` and with the `ca-file` config key; the records pass
//! `warcio check` and carry `https://` target URIs.

use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{ldwarc, run};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_warc::reader::WarcReader;

const HOST: &str = "data.example";
const DOC: &str =
    "<https://data.example/doc> <http://www.w3.org/2000/01/rdf-schema#label> \"over TLS\" .\n";

/// A private CA and a server certificate for `data.example` it signed.
struct Pki {
    ca_pem: String,
    server: Arc<rustls::ServerConfig>,
}

fn pki() -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "ldwarc test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec![HOST.to_string()]).unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    Pki {
        ca_pem: ca_cert.pem(),
        server: Arc::new(server),
    }
}

/// An HTTPS server on 127.0.0.1 answering `/robots.txt` and `/doc`; stops when dropped.
struct TlsServer {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl TlsServer {
    fn start(config: Arc<rustls::ServerConfig>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let config = Arc::clone(&config);
                        std::thread::spawn(move || serve(stream, config));
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
        TlsServer { port, stop }
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One request on one connection; a failed handshake (the client refused the certificate)
/// just ends it.
fn serve(stream: TcpStream, config: Arc<rustls::ServerConfig>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let Ok(connection) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(connection, stream);
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tls.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let line = String::from_utf8_lossy(&head);
    let path = line.split_whitespace().nth(1).unwrap_or("");
    let (status, kind, body) = match path {
        "/robots.txt" => ("200 OK", "text/plain", "User-agent: *\nAllow: /\n"),
        "/doc" => ("200 OK", "application/n-triples", DOC),
        _ => ("404 Not Found", "text/plain", "not found\n"),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tls.write_all(response.as_bytes());
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
}

fn crawl(root: &Path, port: u16, extra: &[&str], env: &[(&str, &Path)]) -> std::process::Output {
    let mut command = ldwarc();
    command
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args([
            "--delay",
            "0s",
            "--hops",
            "0",
            "--timeout",
            "10s",
            "--format",
            "json",
        ])
        .arg("--resolve")
        .arg(format!("{HOST}=127.0.0.1:{port}"))
        .args(extra)
        .arg(format!("https://{HOST}:{port}/doc"))
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    for (name, value) in env {
        command.env(name, value);
    }
    run(&mut command)
}

/// The (type, target URI) of every record, and the files.
fn records(root: &Path) -> (Vec<(String, String)>, Vec<std::path::PathBuf>) {
    let files = walk_warc_files(&root.join("warc")).unwrap();
    let mut all = Vec::new();
    for file in &files {
        let mut reader = WarcReader::open(file).unwrap();
        while let Some(record) = reader.next_record() {
            let mut record = record.unwrap();
            let kind = record.header.record_type().unwrap_or("").to_string();
            let uri = record.header.target_uri().unwrap_or("").to_string();
            std::io::copy(&mut record, &mut std::io::sink()).unwrap();
            record.finish().unwrap();
            all.push((kind, uri));
        }
    }
    (all, files)
}

/// The crawl succeeded, captured the document over https and wrote valid WARC files.
fn assert_archived(root: &Path, port: u16, output: &std::process::Output, how: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{how}: {}\n{stderr}",
        output.status
    );
    let summary: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    assert_eq!(summary["captures"], 2, "{how}: {summary}");
    assert_eq!(summary["failed"], 0, "{how}: {summary}");
    let (records, files) = records(root);
    let doc = format!("https://{HOST}:{port}/doc");
    assert!(
        records.iter().any(|(k, u)| k == "response" && *u == doc),
        "{how}: no response record for {doc}: {records:?}"
    );
    assert!(
        records
            .iter()
            .filter(|(k, _)| k != "warcinfo")
            .all(|(_, u)| u.starts_with("https://")),
        "{how}: {records:?}"
    );
    common::assert_warcs_valid(&files);
}

#[test]
fn a_private_ca_is_trusted_only_when_configured() {
    let pki = pki();
    let server = TlsServer::start(Arc::clone(&pki.server));
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pki.ca_pem).unwrap();
    let ca_dir = dir.path().join("certs");
    std::fs::create_dir(&ca_dir).unwrap();
    std::fs::copy(&ca, ca_dir.join("private-ca.pem")).unwrap();

    let untrusted = tempfile::tempdir().unwrap();
    let output = crawl(untrusted.path(), server.port, &[], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("TLS") && stderr.to_lowercase().contains("certificate"),
        "no certificate error on stderr: {stderr}"
    );

    let with_flag = tempfile::tempdir().unwrap();
    let ca_arg = ca.to_string_lossy().into_owned();
    let output = crawl(with_flag.path(), server.port, &["--ca-file", &ca_arg], &[]);
    assert_archived(with_flag.path(), server.port, &output, "--ca-file");

    let with_env = tempfile::tempdir().unwrap();
    let output = crawl(with_env.path(), server.port, &[], &[("SSL_CERT_FILE", &ca)]);
    assert_archived(with_env.path(), server.port, &output, "SSL_CERT_FILE");

    let with_dir = tempfile::tempdir().unwrap();
    let output = crawl(
        with_dir.path(),
        server.port,
        &[],
        &[("SSL_CERT_DIR", &ca_dir)],
    );
    assert_archived(with_dir.path(), server.port, &output, "SSL_CERT_DIR");

    let with_config = tempfile::tempdir().unwrap();
    std::fs::copy(&ca, with_config.path().join("ca.pem")).unwrap();
    std::fs::write(
        with_config.path().join("ldwarc.toml"),
        "[crawl]\nca-file = [\"ca.pem\"]\n",
    )
    .unwrap();
    let output = crawl(with_config.path(), server.port, &[], &[]);
    assert_archived(with_config.path(), server.port, &output, "ca-file key");
}

#[test]
fn an_unusable_ca_file_is_a_usage_error_that_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.pem");
    std::fs::write(&bogus, "not a certificate\n").unwrap();
    let root = dir.path().join("archive");
    let bogus_arg = bogus.to_string_lossy().into_owned();
    let output = crawl(&root, 9, &["--ca-file", &bogus_arg], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--ca-file") && stderr.contains("bogus.pem"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(!root.join("warc").exists(), "a WARC directory was created");
}

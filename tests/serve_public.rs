//! Public read-only mode (`ldwarc serve --public`): no token is asked for, the read-only
//! routes answer, everything else is refused, and a token alongside it is refused at start.
//! (The non-loopback bind it allows is checked by the unit tests: tests listen on loopback.)

use crate::common;
use crate::serve_server;
use crate::warc_fixture;

use common::{ldwarc, run};
use serve_server::LdwarcServer;
use warc_fixture::{Exchange, write_archive};

const URL: &str = "http://example.org/a.ttl";

/// An archive under `dir` holding one Turtle capture of [`URL`], indexed.
fn one_document_archive(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.join("archive");
    write_archive(
        &root,
        &[Exchange::ok(
            URL,
            "2024-01-01T00:00:00Z",
            "text/turtle",
            b"<http://example.org/a> <http://example.org/p> 1 .\n",
        )],
    );
    root
}

#[test]
fn public_mode_serves_reads_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = one_document_archive(dir.path());
    let server = LdwarcServer::start(&root, &["--public"]);
    let cdx = server.get(&format!("/cdx?url={URL}"));
    assert_eq!(cdx.status, 200, "{}", cdx.text());
    assert_eq!(cdx.text().lines().count(), 1);
    let raw = server.get(&format!("/web/20240101000000id_/{URL}"));
    assert_eq!(raw.status, 200, "{}", raw.text());
    for path in ["/", "/timeline?url=http://example.org/a.ttl", "/overview"] {
        assert_eq!(server.get(path).status, 200, "{path}");
    }
    for path in ["/admin", "/admin/reindex", "/index"] {
        let refused = server.get(path);
        assert_eq!(refused.status, 403, "{path}: {}", refused.text());
        assert!(refused.text().contains("read-only"), "{path}");
    }
    let post = server
        .send(b"POST /cdx?url=x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .expect("send");
    assert_eq!(post.status, 405);

    let both = run(ldwarc()
        .args([
            "serve",
            "--public",
            "--token",
            "secret",
            "--bind",
            "127.0.0.1:0",
            "--root",
        ])
        .arg(&root));
    assert_eq!(both.status.code(), Some(2), "{both:?}");
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("--public"),
        "{both:?}"
    );
}

/// A record damaged after indexing: the operator's log has the error; a public server's
/// answer names the capture but not the server's files, a private one gives the error.
#[test]
fn a_damaged_record_is_logged_and_public_answers_keep_paths_private() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = one_document_archive(dir.path());
    let file = root.join("warc/fixture.warc");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[..4].copy_from_slice(b"XXXX");
    std::fs::write(&file, bytes).unwrap();
    let root_text = root.display().to_string();

    for public in [true, false] {
        let log = dir.path().join(format!("serve-{public}.log"));
        let mut command = ldwarc();
        command
            .arg("serve")
            .arg("--root")
            .arg(&root)
            .args(["--bind", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap());
        if public {
            command.arg("--public");
        }
        let mut child = command.spawn().expect("start ldwarc serve");
        let port = serve_server::read_listening_port(&mut child);
        let answer = serve_server::get_with(port, &format!("/web/20240101000000id_/{URL}"), &[]);
        let timeline = serve_server::get_with(port, &format!("/timeline?url={URL}"), &[]);
        let _ = child.kill();
        let page = timeline.text();
        assert_eq!(timeline.status, 200, "{page}");
        assert_eq!(
            page.contains(&root_text),
            !public,
            "public {public}: {page}"
        );
        assert!(page.contains("unreadable"), "{page}");
        let _ = child.wait();
        let body = answer.text();
        assert_eq!(answer.status, 502, "{body}");
        if public {
            assert!(body.contains(URL) && !body.contains(&root_text), "{body}");
        } else {
            assert!(
                body.contains(&format!("{root_text}/warc/fixture.warc")),
                "{body}"
            );
        }
        let logged = std::fs::read_to_string(&log).unwrap();
        assert!(
            logged.contains("could not read the archive") && logged.contains("fixture.warc"),
            "{logged}"
        );
    }
}

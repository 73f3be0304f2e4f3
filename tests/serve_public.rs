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

#[test]
fn public_mode_serves_reads_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    write_archive(
        &root,
        &[Exchange::ok(
            URL,
            "2024-01-01T00:00:00Z",
            "text/turtle",
            b"<http://example.org/a> <http://example.org/p> 1 .\n",
        )],
    );
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

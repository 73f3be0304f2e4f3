//! Captures of POST and PUT requests get the key pywb and cdxj-indexer (`--post-append`, as
//! py-wacz, ArchiveWeb.page and browsertrix index) give them: the URL with
//! `__wb_method=post` and the request body as a query, so replay tools find them, and two
//! POSTs to one URL stay apart. Compared with cdxj-indexer on a WARC warcio writes, and with
//! the index py-wacz puts in a package made of it.

use std::path::Path;

use crate::common::{ldwarc, pywb_bin, run, stdout_ok, venv_bin};

/// Writes `post.warc.gz` in the directory given: GET, POST (form, JSON, binary, JSON lines,
/// a length that is not a number), PUT, a lowercase `post`, a request before its response,
/// and a POST whose request is not beside its response (not paired).
const WRITE_WARC: &str = r#"
import sys
from io import BytesIO
from warcio.warcwriter import WARCWriter
from warcio.statusandheaders import StatusAndHeaders

out = open(sys.argv[1] + "/post.warc.gz", "wb")
writer = WARCWriter(out, gzip=True)

def response(url, body=b"<http://a.example/s> <http://a.example/p> 1 .\n"):
    headers = StatusAndHeaders("200 OK", [("Content-Type", "text/turtle")], protocol="HTTP/1.1")
    return writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers)

def request(url, method, content_type, body, length=None):
    path = "/" + url.split("/", 3)[3]
    fields = [("Host", url.split("/")[2])]
    if content_type:
        fields.append(("Content-Type", content_type))
    fields.append(("Content-Length", str(len(body)) if length is None else length))
    headers = StatusAndHeaders(method + " " + path + " HTTP/1.1", fields, is_http_request=True)
    return writer.create_warc_record(url, "request", payload=BytesIO(body), http_headers=headers)

def pair(url, method, content_type, body, length=None, request_first=False):
    resp = response(url)
    req = request(url, method, content_type, body, length)
    if request_first:
        resp.rec_headers.replace_header("WARC-Concurrent-To", req.rec_headers.get_header("WARC-Record-ID"))
        writer.write_record(req)
        writer.write_record(resp)
    else:
        req.rec_headers.replace_header("WARC-Concurrent-To", resp.rec_headers.get_header("WARC-Record-ID"))
        writer.write_record(resp)
        writer.write_record(req)

pair("http://example.com/page", "GET", None, b"")
pair("http://example.com/api", "POST", "application/x-www-form-urlencoded", b"q=linked+data&page=2&x=%C3%A9")
pair("http://example.com/api", "POST", "application/json", b'{"query": {"term": "rdf", "tags": ["a", "b"]}, "n": 1.5, "ok": true, "none": null}')
pair("http://example.com/api?v=1", "POST", "application/octet-stream", bytes(range(256)))
pair("http://example.com/api", "POST", "text/plain", b'{"a": 1}\n{"a": 2}')
pair("http://example.com/api", "POST", "application/x-www-form-urlencoded", b"a=b", length="many")
pair("http://example.com/doc", "PUT", "application/x-www-form-urlencoded", b"title=Linked%20Data")
pair("http://example.com/lower", "post", "application/x-www-form-urlencoded", b"a=b")
pair("http://example.com/first", "POST", "application/x-www-form-urlencoded", b"order=request-first", request_first=True)
# A response, something else, then its request: not beside each other, not paired.
resp = response("http://example.com/apart")
req = request("http://example.com/apart", "POST", "application/x-www-form-urlencoded", b"a=apart")
req.rec_headers.replace_header("WARC-Concurrent-To", resp.rec_headers.get_header("WARC-Record-ID"))
writer.write_record(resp)
writer.write_record(response("http://example.com/between"))
writer.write_record(req)
out.close()
"#;

/// Each line's key, timestamp, URL and offset (cdxj-indexer adds `method` and
/// `requestBody` fields to POST lines, which ldwarc's lines do not have).
fn keys(cdxj: &str) -> Vec<String> {
    let mut keys: Vec<String> = cdxj
        .lines()
        .filter(|line| !line.starts_with('!') && !line.is_empty())
        .map(|line| {
            let (key, rest) = line.split_once(' ').expect("key");
            let (timestamp, json) = rest.split_once(' ').expect("timestamp");
            let fields: serde_json::Value = serde_json::from_str(json).expect("JSON");
            format!(
                "{key} {timestamp} {} {}",
                fields["url"].as_str().expect("url"),
                fields["offset"].as_str().expect("offset")
            )
        })
        .collect();
    keys.sort();
    keys
}

fn cdx(root: &Path) -> String {
    stdout_ok(
        &run(ldwarc().arg("cdx").arg("--root").arg(root)),
        "ldwarc cdx",
    )
}

#[test]
fn post_captures_are_keyed_as_cdxj_indexer_and_py_wacz_key_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let made = run(std::process::Command::new(venv_bin("python"))
        .args(["-c", WRITE_WARC])
        .arg(dir.path()));
    assert!(made.status.success(), "{made:?}");
    let warc = dir.path().join("post.warc.gz");

    let root = dir.path().join("archive");
    std::fs::create_dir_all(root.join("warc")).expect("dir");
    std::fs::copy(&warc, root.join("warc/post.warc.gz")).expect("copy");
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    let ours = keys(&cdx(&root));
    let reference = run(std::process::Command::new(venv_bin("cdxj-indexer"))
        .arg("--post-append")
        .arg("post.warc.gz")
        .current_dir(root.join("warc")));
    let reference = keys(&stdout_ok(&reference, "cdxj-indexer --post-append"));
    assert_eq!(ours, reference);
    // The keys the WARC was written to reach.
    for key in [
        "com,example)/api?__wb_method=post&page=2&q=linked%20data&x=%c3%a9",
        "com,example)/api?__wb_method=post&n=1.5&none=none&ok=true&tags=a&tags.2_=b&term=rdf",
        "com,example)/api?__wb_method=post&a=1&a.2_=2",
        "com,example)/api?__wb_method=post",
        "com,example)/doc?__wb_method=put&title=linked%20data",
        "com,example)/lower?__wb_method=post",
        "com,example)/first?__wb_method=post&order=request-first",
        "com,example)/apart ",
        "com,example)/page ",
    ] {
        assert!(
            ours.iter().any(|line| line.starts_with(key)),
            "{key} not among {ours:#?}"
        );
    }
    assert!(
        ours.iter().any(|line| line
            .starts_with("com,example)/api?__wb_method=post&__wb_post_data=")
            && line.contains("&v=1 ")),
        "{ours:#?}"
    );

    // `query` finds a POST capture by the URL with its method and body, as pywb asks.
    let found = run(ldwarc()
        .args([
            "query",
            "http://example.com/api?__wb_method=POST&q=linked%20data&page=2&x=%C3%A9",
        ])
        .arg("--root")
        .arg(&root));
    let found = stdout_ok(&found, "ldwarc query");
    assert_eq!(found.lines().count(), 1, "{found}");
    assert!(
        found.starts_with("com,example)/api?__wb_method=post&page=2&q=linked%20data&x=%c3%a9 "),
        "{found}"
    );

    // A package py-wacz makes of the WARC: ldwarc's keys after import are the package's own.
    let package = dir.path().join("post.wacz");
    let created = run(std::process::Command::new(pywb_bin("wacz"))
        .args(["create", "-o"])
        .arg(&package)
        .arg(&warc));
    assert!(created.status.success(), "{created:?}");
    let imported = dir.path().join("imported");
    stdout_ok(
        &run(ldwarc()
            .args(["import", "--root"])
            .arg(&imported)
            .arg(&package)),
        "ldwarc import",
    );
    let listed = run(std::process::Command::new(venv_bin("python"))
        .args([
            "-c",
            "import gzip, sys, zipfile\n\
             z = zipfile.ZipFile(sys.argv[1])\n\
             name = [n for n in z.namelist() if n.startswith('indexes/') and n.endswith('.cdx.gz')][0]\n\
             sys.stdout.write(gzip.decompress(z.read(name)).decode())",
        ])
        .arg(&package));
    let packaged: Vec<String> = keys(&stdout_ok(&listed, "the package's index"))
        .into_iter()
        .map(|line| line.split(' ').next().unwrap_or("").to_string())
        .collect();
    let after_import: Vec<String> = keys(&cdx(&imported))
        .into_iter()
        .map(|line| line.split(' ').next().unwrap_or("").to_string())
        .collect();
    assert_eq!(after_import, packaged);
}

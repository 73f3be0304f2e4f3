//! Archives where real archives live: on read-only mounts and owned by other users. Every
//! read command and `serve` answer byte for byte as they do on the writable root, and
//! nothing on disk changes. A mistyped `--root` is exit 2 naming it, and creates nothing.
//!
//! The tests run as root (as CI does): `chmod` binds nothing for root, so the archive is
//! made read-only by a read-only bind mount in a private mount namespace (`unshare`), and
//! owned by someone else by running the binary as `nobody` (`setpriv`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{self, HttpResponse, ldwarc, run};

const ALICE: &str = "http://people.delta.example/alice";
const D1: &str = "http://beta.example/datasets/d1";

/// How the binary reaches the archive.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Access {
    /// As root, on the writable root: the reference answers.
    Owner,
    /// As `nobody` (uid 65534), on a root owned by root (world-readable, not writable).
    OtherUser,
    /// As root, with the root bind-mounted read-only over itself.
    ReadOnlyMount,
}

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_ldwarc")
}

/// A command running `ldwarc ARGS` with `access` to `root`.
fn command(access: Access, root: &Path, args: &[String]) -> Command {
    match access {
        Access::Owner => {
            let mut command = ldwarc();
            command.args(args);
            command
        }
        Access::OtherUser => {
            let mut command = Command::new("setpriv");
            command
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(binary())
                .args(args);
            command
        }
        Access::ReadOnlyMount => {
            let mut command = Command::new("unshare");
            command
                .args(["--mount", "--propagation", "private", "sh", "-c"])
                .arg(r#"mount --bind -o ro "$0" "$0" && exec "$@""#)
                .arg(root)
                .arg(binary())
                .args(args);
            command
        }
    }
}

/// Every path under `root` with its type, size, mode and modification time.
fn listing(root: &Path) -> BTreeMap<PathBuf, (bool, u64, u32, i64, i64)> {
    let mut entries = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                pending.push(path.clone());
            }
            entries.insert(
                path.strip_prefix(root).unwrap().to_path_buf(),
                (
                    meta.is_dir(),
                    meta.len(),
                    meta.mode(),
                    meta.mtime(),
                    meta.mtime_nsec(),
                ),
            );
        }
    }
    entries
}

/// A demo archive (three crawls, indexed, with its crawl log) in a directory `nobody` can
/// read but not write (every file as ldwarc wrote it, none made readable by the test), and
/// its capture timestamps.
fn readable_archive(dir: &Path) -> (PathBuf, Vec<String>) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = dir.join("archive");
    let demo = run(ldwarc().arg("demo").arg(&root));
    common::stdout_ok(&demo, "ldwarc demo");
    let triples = run(ldwarc().args(["index", "--triples", "--root"]).arg(&root));
    common::stdout_ok(&triples, "ldwarc index --triples");
    let query = run(ldwarc()
        .args([
            "query",
            "--output",
            "text",
            "--fields",
            "timestamp",
            "--root",
        ])
        .arg(&root)
        .arg(ALICE));
    let stamps: Vec<String> = common::stdout_ok(&query, "ldwarc query")
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(stamps.len(), 3, "three captures of Alice: {stamps:?}");
    (root, stamps)
}

/// The read commands, each as its argument list.
fn read_commands(root: &Path, stamps: &[String]) -> Vec<Vec<String>> {
    let root = root.display().to_string();
    let line = |args: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        all.push("--root".into());
        all.push(root.clone());
        all
    };
    let first = &stamps[0];
    let last = &stamps[2];
    vec![
        line(&["query", "http://people.delta.example/*"]),
        line(&["query", "--closest", first, "--output", "json", ALICE]),
        line(&["replay", &format!("{ALICE}@{first}"), "--format", "nt"]),
        line(&["replay", ALICE]),
        line(&["history", ALICE]),
        line(&["history", D1]),
        line(&["cdx"]),
        line(&["cdx", "--format", "cdx11"]),
        line(&["stats"]),
        line(&["snapshot", "@20991231"]),
        line(&["diff", &format!("{ALICE}@{first}"), last]),
        line(&["diff", &format!("@{first}"), &format!("@{last}")]),
        line(&["ls"]),
        line(&["check"]),
        line(&["index", "--verify"]),
        line(&["plan", "crawl-time"]),
        line(&["when", &format!("<{ALICE}#me> ?p ?o")]),
        line(&["when", "?s ?p ?o", "--from", "2024-02", "--to", "2099"]),
        line(&[
            "sparql",
            "--at",
            last,
            "--format",
            "csv",
            "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY ?p",
        ]),
    ]
}

/// Runs every read command with `access`; returns (arguments, output) pairs.
fn run_all(access: Access, root: &Path, commands: &[Vec<String>]) -> Vec<(String, Output)> {
    commands
        .iter()
        .map(|args| (args.join(" "), run(&mut command(access, root, args))))
        .collect()
}

/// `ldwarc serve` started with `access`, killed when dropped.
struct Server {
    child: std::process::Child,
    port: u16,
}

impl Server {
    fn start(access: Access, root: &Path) -> Server {
        let args: Vec<String> = ["serve", "--bind", "127.0.0.1:0", "--root"]
            .iter()
            .map(|a| a.to_string())
            .chain([root.display().to_string()])
            .collect();
        let mut child = command(access, root, &args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ldwarc serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|p| p.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "ldwarc serve ({access:?}) did not start: {line:?} {}",
                String::from_utf8_lossy(&output.stderr)
            );
        };
        Server { child, port }
    }

    fn get(&self, path: &str) -> HttpResponse {
        common::http_get(self.port, path).unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What `serve` answers to a few requests of each kind: status, type and body.
fn serve_answers(access: Access, root: &Path, stamps: &[String]) -> Vec<(String, u16, String)> {
    let server = Server::start(access, root);
    let paths = [
        format!("/cdx?url={ALICE}"),
        "/cdx?url=*.delta.example&output=json".to_string(),
        format!("/cdx/search/cdx?url={ALICE}&sort=reverse"),
        format!("/timemap/link/{ALICE}"),
        format!("/web/{}id_/{ALICE}", stamps[1]),
        format!("/web/{}/{ALICE}", stamps[0]),
        format!(
            "/tpf/{}?subject={}",
            stamps[2],
            url::form_urlencoded::byte_serialize(format!("{ALICE}#me").as_bytes())
                .collect::<String>()
        ),
        format!(
            "/sparql?at={}&query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D",
            stamps[2]
        ),
    ];
    paths
        .iter()
        .map(|path| {
            let answer = server.get(path);
            let kind = answer.header("content-type").unwrap_or("").to_string();
            // Links name the server's own address, which differs between the two servers.
            let body = answer
                .text()
                .replace(&format!("127.0.0.1:{}", server.port), "SERVER");
            (path.clone(), answer.status, format!("{kind}\n{body}"))
        })
        .collect()
}

fn compare(reference: &[(String, Output)], other: &[(String, Output)], access: Access) {
    for ((what, want), (_, got)) in reference.iter().zip(other) {
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{access:?}: {what}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        assert!(
            got.stdout == want.stdout,
            "{access:?}: {what}: standard output differs from the writable root's:\n{}",
            String::from_utf8_lossy(&got.stderr)
        );
    }
}

fn assert_read_only_access_works(access: Access) {
    let dir = tempfile::tempdir().unwrap();
    let (root, stamps) = readable_archive(dir.path());
    let commands = read_commands(&root, &stamps);
    let before = listing(&root);
    let reference = run_all(Access::Owner, &root, &commands);
    for (what, output) in &reference {
        assert_eq!(
            output.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!output.stdout.is_empty(), "{what} printed nothing");
    }
    let served = serve_answers(Access::Owner, &root, &stamps);
    assert!(
        served.iter().all(|(_, status, _)| *status == 200),
        "{served:?}"
    );

    assert_eq!(
        listing(&root),
        before,
        "reading as the owner changed the archive"
    );
    let answers = run_all(access, &root, &commands);
    compare(&reference, &answers, access);
    // SPARQL answered from the triple index there too, not by replaying the WARC files.
    for (what, output) in &answers {
        if what.starts_with("sparql") {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("(from the triple index)"),
                "{access:?}: {stderr}"
            );
        }
    }
    for (got, want) in serve_answers(access, &root, &stamps).iter().zip(&served) {
        assert!(got == want, "{access:?}: GET {} differs: {got:?}", want.0);
    }
    assert_eq!(
        listing(&root),
        before,
        "{access:?}: the archive changed on disk"
    );
}

#[test]
fn every_read_command_and_serve_work_on_a_root_owned_by_another_user() {
    assert_read_only_access_works(Access::OtherUser);
}

#[test]
fn every_read_command_and_serve_work_on_a_read_only_mount() {
    assert_read_only_access_works(Access::ReadOnlyMount);
}

#[test]
fn writing_on_a_read_only_mount_fails_naming_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = readable_archive(dir.path());
    let before = listing(&root);
    let args: Vec<String> = vec!["index".into(), "--root".into(), root.display().to_string()];
    let output = run(&mut command(Access::ReadOnlyMount, &root, &args));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&root.join("index").display().to_string()) && stderr.contains("Read-only"),
        "{stderr}"
    );
    assert_eq!(listing(&root), before);
}

#[test]
fn a_busy_index_writer_is_one_line_naming_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = readable_archive(dir.path());
    let lock = root.join("index/.tantivy-writer.lock");
    let mut holder = Command::new("flock")
        .arg("--exclusive")
        .arg(&lock)
        .args(["-c", "echo locked; exec sleep 60"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock (util-linux) runs");
    let mut line = String::new();
    BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    let output = run(ldwarc().args(["index", "--root"]).arg(&root));
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("another process holds the index writer"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&root.join("index").display().to_string()),
        "{stderr}"
    );
    assert!(!stderr.contains("LockBusy"), "{stderr}");
}

#[test]
fn a_mistyped_root_is_exit_2_naming_it_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/root");
    let commands: &[&[&str]] = &[
        &["check"],
        &["ls"],
        &["index"],
        &["index", "--rebuild"],
        &["index", "--verify"],
        &["cdx"],
        &["query", ALICE],
        &["replay", ALICE],
        &["history", ALICE],
        &["snapshot", "@2024"],
        &["diff", "@2023", "@2024"],
        &["stats"],
        &["recover"],
        &["plan", "crawl-time"],
        &[
            "plan",
            "currency",
            "--from-archive",
            "--alpha",
            "0.9",
            "--beta",
            "1d",
        ],
        &["serve", "--bind", "127.0.0.1:0"],
    ];
    for args in commands {
        let output = run(ldwarc().args(*args).arg("--root").arg(&missing));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains(&missing.display().to_string()),
            "{args:?}: {stderr}"
        );
        assert!(
            !dir.path().join("no").exists(),
            "{args:?} created part of the mistyped root"
        );
    }
}

#[test]
fn absurd_values_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let (root, _) = readable_archive(dir.path());
    let empty = dir.path().join("crawl");
    std::fs::create_dir(&empty).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["crawl".into(), "--delay".into(), "1e30".into()],
            "1e30",
        ),
        (
            vec!["crawl".into(), "--timeout".into(), "1e300".into()],
            "1e300",
        ),
        (
            vec!["crawl".into(), "--max-retry-after".into(), "1e20".into()],
            "1e20",
        ),
    ];
    for (args, named) in cases {
        let output = run(ldwarc()
            .args(&args)
            .arg("--root")
            .arg(&empty)
            .arg("http://127.0.0.1:9/"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    for (args, named) in [
        (vec!["--closest", "garbage"], "\"garbage\""),
        (vec!["--fields", "url,nosuch"], "\"nosuch\""),
    ] {
        let output = run(ldwarc()
            .arg("query")
            .args(&args)
            .arg("--root")
            .arg(&root)
            .arg(ALICE));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
    for flag in ["--request-timeout", "--head-timeout"] {
        let output = run(ldwarc()
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                flag,
                // Within the command line's 100 years, beyond the server's limit.
                "2000d",
                "--root",
            ])
            .arg(&root));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        assert!(stderr.contains("time limit of"), "{flag}: {stderr}");
    }
    let server = Server::start(Access::Owner, &root);
    for query in [
        format!("/cdx?url={ALICE}&fl=url,nosuch"),
        format!("/cdx/search/cdx?url={ALICE}&fl=nosuch"),
        format!("/cdx?url={ALICE}&closest=garbage"),
    ] {
        let answer = server.get(&query);
        assert_eq!(answer.status, 400, "{query}: {}", answer.text());
    }
    assert_eq!(server.get(&format!("/cdx?url={ALICE}&fl=url")).status, 200);
}

//! Logging and progress of the real binary: the libraries' events reach stderr as
//! `ldwarc: warning: …` by default, `-v` adds info events, `-q` keeps only errors, `RUST_LOG`
//! decides instead of the flags, `--log-format json` writes JSON lines with UTC timestamps,
//! a crawl whose stderr is not a terminal prints periodic progress lines, and no library
//! crate prints on its own.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{ldwarc, run, stdout_ok};
use ldwarc_testweb::{TestWebServer, Web};

fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `ldwarc [GLOBAL…] crawl --root ROOT SEEDS…` with `RUST_LOG` cleared (or set): a seed that
/// is not http(s), skipped with a warning, beside one on a closed port (a crawl with no usable
/// seed at all is refused before it starts), so the crawl runs, fetches nothing and exits 1.
fn crawl_invalid_seed(root: &Path, global: &[&str], rust_log: Option<&str>) -> Output {
    let mut command = ldwarc();
    command.env_remove("RUST_LOG");
    if let Some(value) = rust_log {
        command.env("RUST_LOG", value);
    }
    run(command
        .args(global)
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args(["--format", "json", "ftp://files.example/data.nt"])
        .arg(format!("http://127.0.0.1:{}/", common::free_port())))
}

#[test]
fn library_warnings_reach_stderr_by_default_and_quiet_drops_them() {
    let root = tempfile::tempdir().unwrap();
    let output = crawl_invalid_seed(root.path(), &[], None);
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.lines().any(|l| l
            == "ldwarc: warning: skipping seed ftp://files.example/data.nt: not an http(s) URL"),
        "{stderr}"
    );
    // Info events (the crawl start) stay hidden without -v.
    assert!(!stderr.contains("info:"), "{stderr}");

    let quiet = crawl_invalid_seed(root.path(), &["-q"], None);
    let stderr = stderr_of(&quiet);
    assert_eq!(quiet.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("skipping seed"), "{stderr}");
}

#[test]
fn verbose_shows_info_and_debug_events() {
    let root = tempfile::tempdir().unwrap();
    let verbose = crawl_invalid_seed(root.path(), &["-v"], None);
    let stderr = stderr_of(&verbose);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("ldwarc: info: crawl started")),
        "{stderr}"
    );
    assert!(
        stderr.contains("ldwarc: warning: skipping seed"),
        "{stderr}"
    );

    // An index run logs its result at info and each file it reads at debug.
    let archive = tempfile::tempdir().unwrap();
    common::generated::generate(archive.path(), 7);
    let index = |flags: &[&str]| {
        let output = run(ldwarc()
            .env_remove("RUST_LOG")
            .args(flags)
            .args(["index", "--rebuild", "--root"])
            .arg(archive.path()));
        stdout_ok(&output, "ldwarc index");
        stderr_of(&output)
    };
    let debug = index(&["-vv"]);
    assert!(debug.contains("ldwarc: info: index updated"), "{debug}");
    assert!(
        debug
            .lines()
            .any(|l| l.starts_with("ldwarc: debug: indexing (file=")),
        "{debug}"
    );
    let plain = index(&[]);
    assert!(!plain.contains("index updated"), "{plain}");
}

#[test]
fn rust_log_overrides_the_flags() {
    let root = tempfile::tempdir().unwrap();
    // RUST_LOG=error silences the warning even with -v.
    let output = crawl_invalid_seed(root.path(), &["-v"], Some("error"));
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("skipping seed"), "{stderr}");
    assert!(!stderr.contains("crawl started"), "{stderr}");
    // RUST_LOG for one crate turns on its info events without any flag.
    let output = crawl_invalid_seed(root.path(), &[], Some("ldwarc_crawl=info"));
    let stderr = stderr_of(&output);
    assert!(stderr.contains("ldwarc: info: crawl started"), "{stderr}");
}

#[test]
fn json_log_format_writes_json_lines_with_utc_timestamps() {
    let root = tempfile::tempdir().unwrap();
    let before = chrono::Utc::now();
    let output = crawl_invalid_seed(root.path(), &["--log-format", "json", "-v"], None);
    let after = chrono::Utc::now();
    let stderr = stderr_of(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let events: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
        })
        .collect();
    let warning = events
        .iter()
        .find(|e| e["level"] == "WARN")
        .unwrap_or_else(|| panic!("no warning in {stderr}"));
    assert_eq!(
        warning["message"],
        "skipping seed ftp://files.example/data.nt: not an http(s) URL"
    );
    assert_eq!(warning["seed"], "ftp://files.example/data.nt");
    assert_eq!(warning["target"], "ldwarc_crawl::crawler");
    assert!(events.iter().any(|e| e["level"] == "INFO"), "{stderr}");
    for event in &events {
        let timestamp = event["timestamp"].as_str().expect("timestamp");
        assert!(timestamp.ends_with('Z'), "not UTC: {timestamp}");
        let time = chrono::DateTime::parse_from_rfc3339(timestamp)
            .unwrap_or_else(|e| panic!("{timestamp}: {e}"));
        let slack = chrono::TimeDelta::seconds(1);
        assert!(
            time >= before - slack && time <= after + slack,
            "{timestamp}"
        );
    }
}

#[test]
fn crawl_on_a_non_terminal_prints_periodic_progress_lines() {
    let web = Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let output = run(ldwarc()
        .env_remove("RUST_LOG")
        .env("LDWARC_PROGRESS_SECONDS", "0.1")
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args([
            "--delay",
            "0.3s",
            "--hops",
            "2",
            "--timeout",
            "10s",
            "--format",
            "json",
        ])
        .args(common::loopback_resolve(server.port()))
        .args(&seeds));
    let elapsed = started.elapsed().as_secs_f64();
    let stdout = stdout_ok(&output, "ldwarc crawl");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let captures = summary["captures"].as_u64().unwrap();
    assert!(captures > 0, "{summary}");
    let stderr = stderr_of(&output);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ldwarc: progress: crawl: round "))
        .collect();
    // One line per 0.1 s of a crawl paced at 0.3 s per request to a PLD: several at least,
    // and never more than the time allows.
    assert!(
        elapsed > 0.5,
        "the crawl took {elapsed} s, too short to test"
    );
    assert!(lines.len() >= 3, "{stderr}");
    assert!(lines.len() as f64 <= elapsed / 0.1 + 1.0, "{stderr}");
    for line in &lines {
        assert!(line.contains(" documents ("), "{line}");
        assert!(line.contains("docs/s"), "{line}");
        assert!(line.ends_with(" elapsed)"), "{line}");
    }
    // The documents counted grow to the final count, never past it.
    let counts: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.split(" · ").nth(1)?.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(counts.len(), lines.len(), "{stderr}");
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert!(counts.iter().all(|&c| c <= captures), "{counts:?}");
}

#[test]
fn global_quiet_is_checks_quiet() {
    let archive = tempfile::tempdir().unwrap();
    common::generated::generate(archive.path(), 3);
    let check = |args: &[&str]| {
        let output = run(ldwarc().args(args).arg("--root").arg(archive.path()));
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let after = check(&["check", "-q"]);
    let before = check(&["-q", "check"]);
    let long = check(&["check", "--quiet"]);
    assert_eq!(after, before);
    assert_eq!(after, long);
    assert_eq!(after.1.lines().count(), 1, "{}", after.1);
    assert!(after.1.starts_with("checked "), "{}", after.1);
}

/// Library crates log through `tracing`; only the binary prints.
#[test]
fn library_crates_do_not_print() {
    let crates = common::manifest_dir().join("crates");
    let mut offenders = Vec::new();
    let files = rust_files(&crates);
    let test_modules = test_module_files(&files);
    for file in files {
        // Test code, example programs and benchmarks (which are binaries) may print.
        if test_modules.contains(&file)
            || file.components().any(|c| {
                c.as_os_str() == "tests"
                    || c.as_os_str() == "examples"
                    || c.as_os_str() == "benches"
            })
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let mut after_cfg_test = false;
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            // A unit-test module sits at the end of its file.
            if after_cfg_test && code.starts_with("mod ") && code.ends_with('{') {
                break;
            }
            after_cfg_test = code.starts_with("#[cfg(test)]");
            if code.starts_with("//") {
                continue;
            }
            let prints = ["println!", "eprintln!", "print!(", "eprint!(", "dbg!("]
                .iter()
                .any(|p| code.contains(p));
            let writes_std = code.contains("io::stdout()") || code.contains("io::stderr()");
            if prints || writes_std {
                offenders.push(format!("{}:{}: {code}", file.display(), number + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "library code prints:\n{}",
        offenders.join("\n")
    );
}

/// The files of unit-test modules declared in a file of their own (`#[cfg(test)]` on the
/// line before `mod NAME;`): `NAME.rs` beside a `lib.rs` or `mod.rs`, else in the folder
/// named after the declaring file.
fn test_module_files(files: &[PathBuf]) -> std::collections::HashSet<PathBuf> {
    let mut found = std::collections::HashSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            let Some(name) = pair[1]
                .strip_prefix("mod ")
                .and_then(|rest| rest.strip_suffix(';'))
            else {
                continue;
            };
            if pair[0] != "#[cfg(test)]" {
                continue;
            }
            let parent = file.parent().unwrap();
            let folder = match file.file_stem().and_then(|s| s.to_str()) {
                Some("lib" | "mod" | "main") => parent.to_path_buf(),
                Some(stem) => parent.join(stem),
                None => continue,
            };
            found.insert(folder.join(format!("{name}.rs")));
            found.insert(folder.join(name).join("mod.rs"));
        }
    }
    found
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect()
}

/// A daemon's JSON log: `serve` prints its address on stdout and logs it, as JSON, on stderr.
#[test]
fn serve_logs_json_lines_and_prints_its_address() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;

    let root = tempfile::tempdir().unwrap();
    common::generate_indexed(root.path(), 5);
    let mut child = ldwarc()
        .env_remove("RUST_LOG")
        .args([
            "--log-format",
            "json",
            "-v",
            "serve",
            "--bind",
            "127.0.0.1:0",
        ])
        .arg("--root")
        .arg(root.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ldwarc serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("the listening line");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let address = line
        .strip_prefix("ldwarc serve: listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    assert!(address.starts_with("127.0.0.1:"), "{line}");
    let listening = stderr
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{l:?}: {e}"))
        })
        .find(|event| event["message"] == "listening")
        .unwrap_or_else(|| panic!("no listening event in {stderr}"));
    assert_eq!(listening["address"], address);
    assert_eq!(listening["level"], "INFO");
    assert_eq!(listening["target"], "ldwarc_serve");
}

/// `index` counts bytes: its periodic lines show how much of all WARC bytes it has read.
#[test]
fn index_progress_lines_count_bytes_of_the_warc_files() {
    let root = tempfile::tempdir().unwrap();
    common::generate_indexed(root.path(), 11);
    let total: u64 = walkdir::WalkDir::new(root.path().join("warc"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let output = run(ldwarc()
        .env_remove("RUST_LOG")
        .env("LDWARC_PROGRESS_SECONDS", "0.001")
        .args(["index", "--rebuild", "--root"])
        .arg(root.path()));
    stdout_ok(&output, "ldwarc index");
    let stderr = stderr_of(&output);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ldwarc: progress: index: "))
        .collect();
    assert!(!lines.is_empty(), "{stderr}");
    let of_total = format!("/{} (", indicatif::HumanBytes(total));
    let with_total: Vec<&&str> = lines.iter().filter(|l| l.contains(&of_total)).collect();
    assert!(!with_total.is_empty(), "no line of {total} bytes: {stderr}");
    assert!(with_total.iter().all(|l| l.contains("%, ")), "{stderr}");
}

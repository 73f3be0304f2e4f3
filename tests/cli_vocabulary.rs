//! One command-line vocabulary: every command's help has EXAMPLES, EXIT STATUS, ENVIRONMENT
//! and FILES; every command that prints data takes `--format json` and prints JSON; durations
//! and sizes take units and refuse absurd values with exit status 2; old spellings still work
//! with a deprecation note.

use crate::common;

use std::path::Path;
use std::sync::OnceLock;

use common::{ldwarc, run, stdout_ok};
use ldwarc_testweb::{TestWebServer, Web};

/// The visible subcommands listed in the "Commands:" section of a help text.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.is_empty() || line.starts_with("  "))
        // Names start at column 2; wrapped descriptions are indented further.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

fn help_of(path: &[&str]) -> String {
    let output = run(ldwarc().args(path).arg("--help"));
    stdout_ok(&output, &format!("ldwarc {} --help", path.join(" ")))
}

#[test]
fn every_command_help_has_examples_exit_status_environment_and_files() {
    let top = help_of(&[]);
    let mut paths: Vec<Vec<String>> = vec![vec![]];
    let mut checked = 0;
    while let Some(path) = paths.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let help = help_of(&args);
        for section in ["EXAMPLES:", "EXIT STATUS:", "ENVIRONMENT:", "FILES:"] {
            assert!(
                help.lines().any(|line| line == section),
                "`ldwarc {} --help` lacks {section}\n{help}",
                path.join(" ")
            );
        }
        // Every example runs this very command.
        let example = help
            .lines()
            .skip_while(|line| *line != "EXAMPLES:")
            .nth(1)
            .unwrap_or_default()
            .trim()
            .to_string();
        let expected = ["ldwarc"]
            .into_iter()
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            example.contains(&expected),
            "first example {example:?} of `{expected}`"
        );
        for sub in subcommands(&help) {
            let mut child = path.clone();
            child.push(sub);
            paths.push(child);
        }
        checked += 1;
    }
    assert!(
        checked > subcommands(&top).len(),
        "checked {checked} help texts"
    );
}

/// The demo's archive (three crawls of the sample web, with a crawl log), made once.
fn demo_root() -> &'static Path {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let output = run(ldwarc().arg("demo").arg(dir.path().join("archive")));
        stdout_ok(&output, "ldwarc demo");
        dir
    })
    .path()
}

fn archive() -> std::path::PathBuf {
    demo_root().join("archive")
}

/// Runs `ldwarc ARGS --format json` on the demo archive; its stdout, which must be JSON
/// (one value, or one per line).
fn json_of(args: &[&str]) -> Vec<serde_json::Value> {
    let output = run(ldwarc()
        .args(args)
        .arg("--root")
        .arg(archive())
        .args(["--format", "json"]));
    let text = stdout_ok(&output, &format!("ldwarc {} --format json", args.join(" ")));
    assert!(!text.trim().is_empty(), "ldwarc {args:?}: no output");
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => vec![value],
        Err(_) => text
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("ldwarc {args:?}: {e}: not JSON: {line}"))
            })
            .collect(),
    }
}

const ALICE: &str = "http://people.delta.example/alice";

#[test]
fn data_commands_print_json_with_format_json() {
    let index = json_of(&["index"]);
    assert!(index[0]["files_seen"].as_u64().unwrap() > 0, "{index:?}");

    let cdx = json_of(&["cdx"]);
    assert!(cdx.len() > 10, "{} captures", cdx.len());
    assert!(
        cdx.iter()
            .all(|c| c["urlkey"].is_string() && c["timestamp"].is_string())
    );
    // The same captures, in the same order, as the CDXJ export.
    let cdxj = stdout_ok(
        &run(ldwarc().arg("cdx").arg("--root").arg(archive())),
        "ldwarc cdx",
    );
    let keys: Vec<String> = cdxj
        .lines()
        .map(|l| l.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    let json_keys: Vec<String> = cdx
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["urlkey"].as_str().unwrap(),
                c["timestamp"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(keys, json_keys);

    let captures = json_of(&["query", ALICE]);
    assert_eq!(captures.len(), 3, "{captures:?}");
    let first = captures[0]["timestamp"].as_str().unwrap().to_string();
    let last = captures[2]["timestamp"].as_str().unwrap().to_string();

    let graph = json_of(&["replay", &format!("{ALICE}@{first}")]);
    let nodes = graph[0].as_array().expect("expanded JSON-LD is an array");
    assert!(
        nodes.iter().any(|n| n["@id"] == format!("{ALICE}#me")),
        "{graph:?}"
    );

    let history = json_of(&["history", ALICE]);
    assert_eq!(history.len(), 3, "{history:?}");

    let snapshot = json_of(&["snapshot", &format!("@{last}")]);
    assert!(
        snapshot
            .iter()
            .any(|d| d["document"] == ALICE && d["graph"].is_array()),
        "{snapshot:?}"
    );

    let diff = json_of(&["diff", &format!("{ALICE}@{first}"), &last]);
    let removed = diff[0]["removed"].as_array().unwrap();
    let added = diff[0]["added"].as_array().unwrap();
    assert!(
        removed.iter().any(|s| s
            .as_str()
            .unwrap()
            .contains("<http://vocab.delta.example/ns#name> \"Alice\"")),
        "{diff:?}"
    );
    assert!(!added.is_empty(), "{diff:?}");

    let dataset = json_of(&["diff", &format!("@{first}"), &format!("@{last}")]);
    assert!(
        dataset.last().unwrap()["summary"]["changed"]
            .as_u64()
            .unwrap()
            >= 1,
        "{dataset:?}"
    );

    let stats = json_of(&["stats"]);
    assert!(!stats.is_empty());

    let plan = json_of(&[
        "plan",
        "currency",
        "--alpha",
        "0.95",
        "--beta",
        "7d",
        "--weibull",
        "1.4,152.2d",
    ]);
    let period = plan[0]["period_days"].as_f64().unwrap();
    assert!((period - 18.49).abs() < 0.05, "T(0.95, 7 d) = {period}");

    let crawl_time = json_of(&["plan", "crawl-time"]);
    assert!(!crawl_time.is_empty());
}

#[test]
fn simulate_crawl_and_monitor_print_json() {
    let output = run(ldwarc().args([
        "simulate",
        "--synthetic",
        "mixture",
        "--documents",
        "50",
        "--format",
        "json",
    ]));
    let text = stdout_ok(&output, "ldwarc simulate --format json");
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        assert!(value.is_object(), "{line}");
    }

    let web = Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "50ms", "--timeout", "10s", "--hops", "1"])
        .args(common::loopback_resolve(server.port()))
        .args(["--format", "json"])
        .args(&seeds));
    let summary: serde_json::Value =
        serde_json::from_str(stdout_ok(&output, "ldwarc crawl --format json").trim()).unwrap();
    assert!(summary["captures"].as_u64().unwrap() > 0, "{summary}");

    let output = run(ldwarc()
        .arg("monitor")
        .arg("--root")
        .arg(root.path())
        .args(["--once", "--delay", "50ms"])
        .args(common::loopback_resolve(server.port()))
        .args(["--format", "json"])
        .arg(&seeds[0]));
    let cycle: serde_json::Value = serde_json::from_str(
        stdout_ok(&output, "ldwarc monitor --format json")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(cycle.is_object(), "{cycle}");
}

#[test]
fn durations_and_sizes_take_units_and_refuse_absurd_values() {
    let root = tempfile::tempdir().unwrap();
    for (args, named) in [
        (
            vec!["crawl", "--delay", "1e30", "http://a.example/"],
            "--delay",
        ),
        (
            vec!["crawl", "--timeout", "200y", "http://a.example/"],
            "--timeout",
        ),
        (
            vec!["crawl", "--delay", "5 parsecs", "http://a.example/"],
            "--delay",
        ),
        (
            vec!["crawl", "--max-body", "12XB", "http://a.example/"],
            "--max-body",
        ),
        (vec!["serve", "--request-timeout=-1s"], "--request-timeout"),
        (
            vec!["monitor", "--once", "--every", "0s", "http://a.example/"],
            "--every",
        ),
        (
            vec![
                "monitor",
                "--every",
                "99999999999999999w",
                "http://a.example/",
            ],
            "--every",
        ),
        (
            vec!["plan", "currency", "--alpha", "0.9", "--beta", "1e9w"],
            "--beta",
        ),
    ] {
        let output = run(ldwarc().args(&args).arg("--root").arg(root.path()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(root.path()).unwrap().count(),
        0,
        "a refused command created files"
    );
}

#[test]
fn old_spellings_work_with_a_deprecation_note() {
    let output = run(ldwarc()
        .args(["history", ALICE, "--json", "--root"])
        .arg(archive()));
    let text = stdout_ok(&output, "ldwarc history --json");
    assert_eq!(text.lines().count(), 3);
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("JSON");
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("deprecated") && stderr.contains("--format json"),
        "{stderr}"
    );

    let output = run(ldwarc()
        .args(["query", ALICE, "--output", "json", "--root"])
        .arg(archive()));
    let text = stdout_ok(&output, "ldwarc query --output json");
    assert_eq!(text.lines().count(), 3, "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("deprecated") && stderr.contains("--format"),
        "{stderr}"
    );

    // A bare number is still a number of days for the planning commands.
    let bare = run(ldwarc().args([
        "plan",
        "currency",
        "--alpha",
        "0.95",
        "--beta",
        "7",
        "--weibull",
        "1.4,152.2",
    ]));
    let with_units = run(ldwarc().args([
        "plan",
        "currency",
        "--alpha",
        "0.95",
        "--beta",
        "7d",
        "--weibull",
        "1.4,152.2d",
    ]));
    assert_eq!(
        stdout_ok(&bare, "bare days"),
        stdout_ok(&with_units, "with units")
    );
    assert!(String::from_utf8_lossy(&bare.stderr).contains("deprecated"));
}

/// Runs `ldwarc ARGS` with `input` on its standard input.
fn run_with_stdin(args: &[&std::ffi::OsStr], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = ldwarc()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start ldwarc");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    child.wait_with_output().expect("ldwarc runs")
}

#[test]
fn dash_reads_stdin_and_writes_stdout() {
    let root = archive();
    let dir = tempfile::tempdir().unwrap();
    let os = |s: &str| std::ffi::OsString::from(s);
    let root_args = [os("--root"), root.clone().into_os_string()];

    // --truth FILE and --truth - print the same comparison.
    let truth = format!("{{\"{ALICE}\": 0.5}}");
    let truth_file = dir.path().join("truth.json");
    std::fs::write(&truth_file, &truth).unwrap();
    let stats = |truth_arg: std::ffi::OsString, input: &[u8]| {
        let mut args = vec![
            os("stats"),
            os("--min-observations"),
            os("1"),
            os("--truth"),
        ];
        args.push(truth_arg);
        args.extend(root_args.iter().cloned());
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        run_with_stdin(&refs, input)
    };
    let from_file = stats(truth_file.clone().into_os_string(), b"");
    let from_stdin = stats(os("-"), truth.as_bytes());
    let expected = stdout_ok(&from_file, "ldwarc stats --truth FILE");
    assert!(expected.contains("median relative error"), "{expected}");
    assert_eq!(stdout_ok(&from_stdin, "ldwarc stats --truth -"), expected);

    // snapshot -o - is standard output.
    let snapshot = |extra: &[&str]| {
        let mut command = ldwarc();
        command
            .args(["snapshot", "@2999"])
            .args(extra)
            .args(&root_args);
        run(&mut command)
    };
    let plain = stdout_ok(&snapshot(&[]), "ldwarc snapshot");
    assert!(plain.lines().count() > 10, "{plain}");
    assert_eq!(
        stdout_ok(&snapshot(&["-o", "-"]), "ldwarc snapshot -o -"),
        plain
    );
    assert!(!Path::new("-").exists(), "a file named - was written");

    // Seeds from @-: the crawl tries the host of the seed it was given (no server listens
    // there; without a seed it would refuse to start, with exit status 2).
    let seed = "http://127.0.0.1:9/from-stdin";
    let crawl_root = dir.path().join("crawl");
    let crawl = run_with_stdin(
        &[
            &os("crawl"),
            &os("--root"),
            crawl_root.as_os_str(),
            &os("--hops"),
            &os("0"),
            &os("--timeout"),
            &os("2s"),
            &os("@-"),
        ],
        format!("# one seed\n{seed}\n").as_bytes(),
    );
    let stderr = String::from_utf8_lossy(&crawl.stderr);
    assert_eq!(crawl.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("http://127.0.0.1:9/robots.txt"),
        "the failure names the seed's host: {stderr}"
    );
}

/// `query --from/--to` take the dates the other commands take, refuse what is not one, and
/// `--limit 0` means no limit as on the server.
#[test]
fn query_bounds_are_dates_and_nonsense_is_refused() {
    let query = |extra: &[&str]| {
        let output = run(ldwarc()
            .args(["query", ALICE])
            .args(extra)
            .arg("--root")
            .arg(archive()));
        stdout_ok(&output, &format!("ldwarc query {extra:?}"))
    };
    let all = query(&[]);
    let stamps: Vec<String> = all
        .lines()
        .map(|line| line.split(' ').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(stamps.len(), 3, "{all}");
    let second = &stamps[1];
    let iso = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &second[..4],
        &second[4..6],
        &second[6..8],
        &second[8..10],
        &second[10..12],
        &second[12..14]
    );
    let day = &iso[..10];
    assert_eq!(query(&["--to", &iso]), query(&["--to", second]));
    assert_eq!(query(&["--to", &iso]).lines().count(), 2);
    assert_eq!(query(&["--from", &iso]).lines().count(), 2);
    assert_eq!(
        query(&["--to", day]),
        all,
        "a day as --to is its last second"
    );
    assert_eq!(
        query(&["--from", day]),
        all,
        "a day as --from is its first second"
    );
    assert_eq!(query(&["--limit", "0"]), all);
    assert_eq!(query(&["--limit", "1"]).lines().count(), 1);

    for (flag, value) in [
        ("--from", "abc"),
        ("--to", "yesterday"),
        ("--to", "2026-13-01"),
    ] {
        let output = run(ldwarc()
            .args(["query", ALICE, flag, value, "--root"])
            .arg(archive()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(output.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(flag) && stderr.contains(value), "{stderr}");
    }
}

/// Reading commands on a directory that was never indexed say so instead of answering
/// nothing, and create nothing there.
#[test]
fn reading_a_directory_without_an_index_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let not_archive = dir.path();
    // An archive (it has warc/) never indexed; a folder without warc/ is not one at all
    // (cli_refusals).
    std::fs::create_dir(not_archive.join("warc")).unwrap();
    let commands: [&[&str]; 4] = [
        &["query", ALICE],
        &["cdx"],
        &["index", "--verify"],
        &["history", ALICE],
    ];
    for args in commands {
        let output = run(ldwarc().args(args).arg("--root").arg(not_archive));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        // The library says what is wrong; the binary adds what to run.
        let root = not_archive.display();
        assert!(
            stderr.contains(&format!(
                "{root}: no capture index (run `ldwarc index --root {root}` first)"
            )),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read_dir(not_archive).unwrap().count(),
            1,
            "{args:?}"
        );
    }
}

/// Errors about output places, addresses and files name the one at fault, on one line,
/// exit status 2.
#[test]
fn errors_name_the_path_address_or_file_at_fault() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.ttl");
    std::fs::write(&file, "<http://a.example/s> <http://a.example/p> \"1\" .\n").unwrap();
    let missing = dir.path().join("missing.ttl");
    let no_dir = dir.path().join("no/such/dir");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy_address = busy.local_addr().unwrap().to_string();

    let cases: Vec<(Vec<std::ffi::OsString>, String)> = vec![
        (
            vec!["diff".into(), file.clone().into(), missing.clone().into()],
            missing.display().to_string(),
        ),
        (
            vec!["diff".into(), missing.clone().into(), file.clone().into()],
            missing.display().to_string(),
        ),
        (
            vec![
                "snapshot".into(),
                "@2026".into(),
                "-o".into(),
                no_dir.join("x.nq").into(),
            ],
            no_dir.join("x.nq").display().to_string(),
        ),
        (
            vec![
                "export".into(),
                "--wacz".into(),
                no_dir.join("x.wacz").into(),
            ],
            no_dir.join("x.wacz").display().to_string(),
        ),
        (
            vec!["serve".into(), "--bind".into(), busy_address.clone().into()],
            format!("--bind {busy_address}"),
        ),
    ];
    for (args, named) in cases {
        let output = run(ldwarc().args(&args).arg("--root").arg(archive()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(&named), "{args:?}: {named} not in {stderr}");
        assert!(!stderr.contains("at path"), "{args:?}: {stderr}");
    }
    assert!(!no_dir.exists());
    drop(busy);
}

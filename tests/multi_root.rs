//! Several archive roots answered as one archive (issue #9, archives per node): a generated
//! archive's WARC files split across three roots (revisits then refer to originals in other
//! roots, and one file is copied into two roots), each root indexed on its own; `query`,
//! `replay`, `history`, `snapshot` and `diff` over the three roots answer exactly what they
//! answer over one root holding every file, in either root order. A file name in two roots
//! with different content is refused naming both roots.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::serve_server::LdwarcServer;
use common::{generated, ldwarc, query_encode, run, stdout_ok};
use ldwarc_timetravel::replay::{ReplayArchive, is_replayable};
use ldwarc_warc::RecordType;

/// Runs `ldwarc <args> --root R…` for every root given.
fn over(roots: &[PathBuf], args: &[&str]) -> Output {
    let mut command = ldwarc();
    command.args(args);
    for root in roots {
        command.arg("--root").arg(root);
    }
    run(&mut command)
}

/// Asserts two runs ended alike and printed the same standard output, once the roots'
/// paths (in messages naming a file, such as `history`'s reasons) are spelled `<root>`.
fn assert_same(one: &Output, many: &Output, roots: &[&[PathBuf]], what: &str) {
    assert_eq!(
        one.status.code(),
        many.status.code(),
        "{what}: exit codes differ\none root: {}\nroots: {}",
        String::from_utf8_lossy(&one.stderr),
        String::from_utf8_lossy(&many.stderr)
    );
    let neutral = |output: &Output| {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        for root in roots.iter().flat_map(|r| r.iter()) {
            text = text.replace(&root.display().to_string(), "<root>");
        }
        text
    };
    let (expected, actual) = (neutral(one), neutral(many));
    assert!(
        expected == actual,
        "{what}: outputs differ\none root:\n{expected}\nroots:\n{actual}\nroots' stderr: {}",
        String::from_utf8_lossy(&many.stderr)
    );
}

/// Every WARC file under `root/warc`, relative to it, in path order.
fn warc_files(root: &Path) -> Vec<String> {
    let warc = root.join("warc");
    ldwarc_archive::archive::walk_warc_files(&warc)
        .expect("walk")
        .iter()
        .map(|path| {
            path.strip_prefix(&warc)
                .expect("under warc/")
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn copy_file(from_root: &Path, to_root: &Path, name: &str) {
    let target = to_root.join("warc").join(name);
    std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
    std::fs::copy(from_root.join("warc").join(name), target).expect("copy");
}

fn index(root: &Path) {
    stdout_ok(
        &run(ldwarc().args(["index", "--root"]).arg(root)),
        "ldwarc index",
    );
}

/// The combined root and three node roots holding its files round-robin (the first file
/// also copied into the second node), every root indexed.
fn split_archive(dir: &Path) -> (PathBuf, Vec<PathBuf>, BTreeSet<String>) {
    let all = dir.join("all");
    let generated = generated::generate(&all, 0x9_0DE5);
    let urls: BTreeSet<String> = generated.captures.iter().map(|c| c.url.clone()).collect();
    let nodes: Vec<PathBuf> = (0..3).map(|n| dir.join(format!("node{n}"))).collect();
    let files = warc_files(&all);
    assert!(files.len() >= 30, "files: {files:?}");
    for (position, name) in files.iter().enumerate() {
        copy_file(&all, &nodes[position % nodes.len()], name);
    }
    copy_file(&all, &nodes[1], &files[0]);
    for root in std::iter::once(&all).chain(&nodes) {
        index(root);
    }
    (all, nodes, urls)
}

/// Revisits that no single node root can resolve on its own.
fn cross_root_revisits(nodes: &[PathBuf]) -> usize {
    let mut count = 0;
    for root in nodes {
        let archive = ReplayArchive::open(root).expect("open node");
        let mut captures = Vec::new();
        archive
            .index()
            .scan_range("", None, |c| captures.push(c))
            .expect("scan");
        count += captures
            .iter()
            .filter(|c| {
                is_replayable(c) && c.record_type == RecordType::Revisit && c.original.is_none()
            })
            .filter(|c| archive.response(c).is_err())
            .count();
    }
    count
}

#[test]
fn several_roots_answer_as_one_root_holding_every_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (all, nodes, urls) = split_archive(dir.path());
    assert!(
        cross_root_revisits(&nodes) > 0,
        "the split should leave revisits whose original is in another root"
    );
    let one = [all.clone()];
    let mut reversed = nodes.clone();
    reversed.reverse();
    let mut commands: Vec<Vec<String>> = Vec::new();
    for url in &urls {
        commands.push(vec!["query".into(), url.clone()]);
        commands.push(vec![
            "history".into(),
            "--format".into(),
            "json".into(),
            url.clone(),
        ]);
        commands.push(vec!["replay".into(), format!("{url}@2024")]);
        commands.push(vec![
            "replay".into(),
            "--pick".into(),
            "closest".into(),
            format!("{url}@20240229123000"),
        ]);
        commands.push(vec!["replay".into(), "--raw".into(), url.clone()]);
    }
    let fixed: &[&[&str]] = &[
        &["query", "*.example.org"],
        &["query", "*.dbpedia.org", "--sort", "reverse"],
        &[
            "query",
            "http://example.org/",
            "--match",
            "host",
            "--limit",
            "7",
        ],
        &[
            "query",
            "*.example.com",
            "--closest",
            "2024",
            "--output",
            "json",
        ],
        &["query", "*.w3.org", "--from", "2024", "--to", "2025"],
        &["snapshot", "@2023"],
        &["snapshot", "@20240229123000"],
        &["snapshot", "--format", "trig", "@2026"],
        &["diff", "--format", "json", "--all", "@2023", "@2025"],
        &[
            "diff",
            "--triples",
            "--domain",
            "example.org",
            "@20231231",
            "@20240301",
        ],
        &["diff", "http://example.org/resource/Berlin@2023", "2025"],
        &["stats", "--format", "json"],
    ];
    commands.extend(
        fixed
            .iter()
            .map(|args| args.iter().map(|a| a.to_string()).collect()),
    );
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let expected = over(&one, &args);
        if args[0] == "snapshot" {
            assert!(!expected.stdout.is_empty(), "{args:?}: empty snapshot");
        }
        for roots in [&nodes, &reversed] {
            assert_same(
                &expected,
                &over(roots, &args),
                &[&one, &nodes],
                &args.join(" "),
            );
        }
    }
}

/// `ldwarc serve` over the three roots answers CDX queries, `id_` replays and TimeMaps as the
/// server over one root holding every file does.
#[test]
fn serve_over_several_roots_answers_as_one_root() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (all, nodes, urls) = split_archive(dir.path());
    let single = LdwarcServer::start(&all, &[]);
    let extra: Vec<String> = nodes[1..]
        .iter()
        .flat_map(|root| ["--root".to_string(), root.display().to_string()])
        .collect();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let merged = LdwarcServer::start(&nodes[0], &extra);
    let mut replays = 0;
    for url in &urls {
        let encoded = query_encode(url);
        for path in [
            format!("/cdx?url={encoded}&output=json"),
            format!("/cdx?url={encoded}&matchType=host&limit=20"),
            format!("/timemap/link/{url}"),
        ] {
            let (expected, got) = (single.get(&path), merged.get(&path));
            assert_eq!(expected.status, got.status, "{path}");
            // TimeMaps name the server they came from.
            let neutral = |text: String, server: &LdwarcServer| {
                text.replace(&format!("127.0.0.1:{}", server.port), "<server>")
            };
            assert_eq!(
                neutral(expected.text(), &single),
                neutral(got.text(), &merged),
                "{path}"
            );
        }
        let archive = ReplayArchive::open(&all).expect("open the archive");
        for capture in archive.captures(url).expect("captures") {
            if !is_replayable(&capture) || !url.is_ascii() || url.contains('#') {
                continue;
            }
            let path = format!("/web/{}id_/{url}", capture.timestamp);
            let (expected, got) = (single.get(&path), merged.get(&path));
            assert_eq!(expected.status, got.status, "{path}");
            // Error answers name the damaged record's file under its own root.
            if expected.status < 400 {
                assert_eq!(expected.body, got.body, "{path}: body");
                replays += 1;
            }
        }
    }
    assert!(replays >= 20, "only {replays} replays compared");
}

#[test]
fn a_file_name_with_other_content_in_another_root_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = dir.path().join("first");
    generated::generate(&first, 7);
    let files = warc_files(&first);
    let clash = dir.path().join("clash");
    // Another file's bytes under the first file's name.
    let target = clash.join("warc").join(&files[0]);
    std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
    std::fs::copy(first.join("warc").join(&files[1]), &target).expect("copy");
    index(&first);
    index(&clash);
    let roots = [first.clone(), clash.clone()];
    for args in [
        &["query", "*.example.org"][..],
        &["replay", "http://example.org/resource/Berlin"],
        &["snapshot", "@2025"],
    ] {
        let output = over(&roots, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} accepted a clash");
        for needle in [
            format!("warc/{}", files[0]),
            first.display().to_string(),
            clash.display().to_string(),
        ] {
            assert!(stderr.contains(&needle), "{args:?}: {stderr}");
        }
    }
    let unindexed = dir.path().join("unindexed");
    std::fs::create_dir_all(unindexed.join("warc")).expect("mkdir");
    let output = over(
        &[first, unindexed.clone()],
        &["history", "http://example.org/"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!("{}: no capture index", unindexed.display())),
        "{stderr}"
    );
}

//! The triple index against `snapshot` and `diff_dataset` on a generated archive: documents
//! whose statements change from day to day, go missing (404), turn into redirects, come back,
//! are revisited with identical payloads and hold blank nodes.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{Block, PayloadKind, WarcHeader, profiles, record_header, sha1_digest};

use super::*;
use crate::replay::{ReplayArchive, ReplayDate, Scope, SnapshotFormat, diff_dataset, snapshot};
use ldwarc_archive::archive::{Archive, ArchiveWriter, ArchiveWriterOptions};
use ldwarc_archive::index::{IndexOptions, update_index};

const DOCS: usize = 14;
const DAYS: i64 = 9;

/// A statement with its document, all spelled as N-Triples.
type Quad4 = (String, String, String, String);

fn day(n: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 3, 1, 6, 0, 0).unwrap() + TimeDelta::days(n)
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn response(
    time: DateTime<Utc>,
    url: &str,
    status: &str,
    headers: &str,
    body: &[u8],
) -> (WarcHeader, Block) {
    let mut header = record_header("response", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    let mut bytes = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    (header, Block::from_bytes(bytes, PayloadKind::Http).unwrap())
}

fn revisit(
    time: DateTime<Utc>,
    url: &str,
    body: &[u8],
    original: DateTime<Utc>,
) -> (WarcHeader, Block) {
    let mut header = record_header("revisit", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
    header.push("WARC-Refers-To-Target-URI", url);
    header.push("WARC-Refers-To-Date", format_warc_date(original));
    header.push("WARC-Payload-Digest", sha1_digest(body));
    header.push("WARC-Truncated", "length");
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    (
        header,
        Block::from_bytes(head.into_bytes(), PayloadKind::None).unwrap(),
    )
}

fn url_of(doc: usize) -> String {
    format!("http://data.example.org/doc/{doc}")
}

/// The Turtle of a document: a few properties whose values move with `state`.
fn body(doc: usize, state: &[u64]) -> Vec<u8> {
    let mut text = format!(
        "@prefix ex: <http://vocab.example.org/> .\n<http://data.example.org/res/{doc}> a ex:Thing"
    );
    for (k, value) in state.iter().enumerate() {
        if *value % 5 != 0 {
            text.push_str(&format!(" ;\n  ex:p{k} \"value {value}\""));
        }
    }
    text.push_str(&format!(
        " ;\n  ex:link <http://data.example.org/res/{}> .\n",
        (doc + 1) % DOCS
    ));
    if doc == 3 {
        // Blank nodes, relabelled per capture.
        text.push_str(&format!(
            "_:x ex:size {} .\n_:x ex:of <http://data.example.org/res/3> .\n",
            state[0] % 3
        ));
    }
    text.into_bytes()
}

/// Captures `days` days of the documents (in `from_day..to_day`) into `root`.
fn write_days(
    root: &Path,
    seed: u64,
    days: std::ops::Range<i64>,
    states: &mut [Vec<u64>],
    originals: &mut [Option<(Vec<u8>, DateTime<Utc>)>],
) {
    let (mut writer, _) = ArchiveWriter::open(root, ArchiveWriterOptions::default()).unwrap();
    let mut rng = Rng(seed);
    for d in days {
        for doc in 0..DOCS {
            let time = day(d) + TimeDelta::seconds(doc as i64 * 7) + TimeDelta::microseconds(1234);
            let url = url_of(doc);
            for value in states[doc].iter_mut() {
                if rng.below(4) == 0 {
                    *value = rng.below(1000);
                }
            }
            let record = if doc == 5 && (3..5).contains(&d) {
                response(
                    time,
                    &url,
                    "404 Not Found",
                    "Content-Type: text/plain\r\n",
                    b"gone",
                )
            } else if doc == 6 && d >= 4 {
                let location = format!("Location: {}\r\n", url_of(0));
                response(time, &url, "301 Moved Permanently", &location, b"")
            } else if doc == 7 && d % 3 == 1 {
                response(
                    time,
                    &url,
                    "200 OK",
                    "Content-Type: text/html\r\n",
                    b"<!doctype html><p>no data",
                )
            } else {
                let content = body(doc, &states[doc]);
                match &originals[doc] {
                    Some((bytes, first)) if *bytes == content => {
                        revisit(time, &url, &content, *first)
                    }
                    _ => {
                        originals[doc] = Some((content.clone(), time));
                        response(
                            time,
                            &url,
                            "200 OK",
                            "Content-Type: text/turtle\r\n",
                            &content,
                        )
                    }
                }
            };
            writer
                .write_capture("data.example.org", vec![record])
                .unwrap();
        }
    }
    writer.close().unwrap();
}

fn index_all(root: &Path) -> TripleIndexRun {
    update_index(
        &Archive::new(root),
        &IndexOptions {
            rebuild: false,
            threads: 1,
        },
        &|_, _| {},
    )
    .unwrap();
    update_triple_index(root, false, &|_, _| {}).unwrap()
}

/// Splits one N-Quads line of a snapshot into its four terms.
fn split_quad(line: &str) -> Quad4 {
    let line = line.trim_end().strip_suffix(" .").unwrap();
    let (rest, graph) = line.rsplit_once(' ').unwrap();
    let (subject, rest) = rest.split_once(' ').unwrap();
    let (predicate, object) = rest.split_once(' ').unwrap();
    (
        subject.into(),
        predicate.into(),
        object.into(),
        graph.trim_matches(['<', '>']).into(),
    )
}

fn has_blank(q: &Quad4) -> bool {
    q.0.starts_with("_:") || q.2.starts_with("_:")
}

/// The snapshot at `date` as statements: the ground ones, and the number with blank nodes.
fn snapshot_quads(archive: &ReplayArchive, date: &ReplayDate) -> (BTreeSet<Quad4>, usize) {
    let mut out = Vec::new();
    snapshot(
        archive,
        &Scope::All,
        date,
        SnapshotFormat::NQuads,
        &mut out,
        &mut |_| {},
    )
    .unwrap();
    let all: Vec<Quad4> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(split_quad)
        .collect();
    let blanks = all.iter().filter(|q| has_blank(q)).count();
    (all.into_iter().filter(|q| !has_blank(q)).collect(), blanks)
}

fn as_quads(matches: &[Match<'_>]) -> (BTreeSet<Quad4>, usize) {
    let all: Vec<Quad4> = matches
        .iter()
        .map(|m| {
            (
                m.subject.into(),
                m.predicate.into(),
                m.object.into(),
                m.document.into(),
            )
        })
        .collect();
    let blanks = all.iter().filter(|q| has_blank(q)).count();
    (all.into_iter().filter(|q| !has_blank(q)).collect(), blanks)
}

fn dates() -> Vec<ReplayDate> {
    let mut dates = vec![ReplayDate::from_instant(day(-1))];
    for d in 0..DAYS {
        // Before the day's captures, between two documents' captures, after all of them.
        dates.push(ReplayDate::from_instant(day(d) + TimeDelta::seconds(30)));
        dates.push(ReplayDate::from_instant(day(d) + TimeDelta::hours(5)));
    }
    dates
}

fn generated(root: &Path) -> TripleIndexRun {
    let mut states = vec![vec![1u64, 2, 3, 4]; DOCS];
    let mut originals = vec![None; DOCS];
    write_days(root, 7, 0..DAYS, &mut states, &mut originals);
    index_all(root)
}

#[test]
fn version_materialisation_equals_the_snapshot_at_every_date() {
    let dir = tempfile::tempdir().unwrap();
    let run = generated(dir.path());
    assert_eq!(run.documents, DOCS as u64);
    assert_eq!(run.versions_added, (DOCS as i64 * DAYS) as u64);
    let archive = ReplayArchive::open(dir.path()).unwrap();
    let index = TripleIndex::open(dir.path()).unwrap();
    let mut differing = BTreeSet::new();
    for date in dates() {
        let expected = snapshot_quads(&archive, &date);
        let got = as_quads(&index.at(&TriplePattern::any(), date.at.timestamp()));
        assert_eq!(got, expected, "at {}", date.text);
        assert_eq!(
            index.count_at(&TriplePattern::any(), date.at.timestamp()),
            got.0.len() + got.1
        );
        differing.insert(expected.0.len());
        // Bound patterns answer what filtering the snapshot answers.
        let patterns = [
            "?s <http://vocab.example.org/p1> ?o",
            "<http://data.example.org/res/2> ?p ?o",
            "?s ?p <http://data.example.org/res/4>",
            "<http://data.example.org/res/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ?o",
            "?s <http://vocab.example.org/p0> \"value 1\"",
        ];
        for text in patterns {
            let pattern = TriplePattern::parse(text).unwrap();
            let want: BTreeSet<Quad4> = expected
                .0
                .iter()
                .filter(|q| {
                    [
                        (&pattern.subject, &q.0),
                        (&pattern.predicate, &q.1),
                        (&pattern.object, &q.2),
                    ]
                    .iter()
                    .all(|(t, v)| t.bound().is_none_or(|b| b == v.as_str()))
                })
                .cloned()
                .collect();
            assert_eq!(
                as_quads(&index.at(&pattern, date.at.timestamp())).0,
                want,
                "{text} at {}",
                date.text
            );
        }
    }
    assert!(
        differing.len() > 3,
        "the dates should see different datasets"
    );
}

#[test]
fn delta_materialisation_equals_the_dataset_diff() {
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path());
    let archive = ReplayArchive::open(dir.path()).unwrap();
    let index = TripleIndex::open(dir.path()).unwrap();
    let dates = dates();
    let mut nonempty = 0;
    for (a, b) in [
        (0, 5),
        (2, 3),
        (4, 11),
        (7, 18),
        (1, dates.len() - 1),
        (9, 6),
    ] {
        let (first, second) = (&dates[a], &dates[b]);
        let mut added = BTreeSet::new();
        let mut removed = BTreeSet::new();
        diff_dataset(&archive, &Scope::All, first, second, &mut |document| {
            if let Some(diff) = &document.diff {
                let quad = |q: &ldwarc_rdf::DiffQuad| -> Quad4 {
                    (
                        q.subject.clone(),
                        q.predicate.clone(),
                        q.object.clone(),
                        document.url.clone(),
                    )
                };
                added.extend(diff.added.iter().map(quad).filter(|q| !has_blank(q)));
                removed.extend(diff.removed.iter().map(quad).filter(|q| !has_blank(q)));
            }
        })
        .unwrap();
        let changes = index.changes(
            &TriplePattern::any(),
            first.at.timestamp(),
            second.at.timestamp(),
        );
        assert_eq!(
            as_quads(&changes.added).0,
            added,
            "added {} → {}",
            first.text,
            second.text
        );
        assert_eq!(
            as_quads(&changes.removed).0,
            removed,
            "removed {} → {}",
            first.text,
            second.text
        );
        nonempty += usize::from(!added.is_empty() && !removed.is_empty());
    }
    assert!(nonempty >= 3);
}

#[test]
fn version_queries_give_the_intervals_snapshots_agree_with() {
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path());
    let archive = ReplayArchive::open(dir.path()).unwrap();
    let index = TripleIndex::open(dir.path()).unwrap();
    let pattern = TriplePattern::parse("?s <http://vocab.example.org/link> ?o").unwrap();
    let histories = index.intervals(&pattern, None, None);
    // Document 5 was gone for two days, document 6 became a redirect: both show in gaps.
    let of = |doc: usize| {
        histories
            .iter()
            .find(|h| h.triple.document == url_of(doc))
            .unwrap()
    };
    assert_eq!(of(5).intervals.len(), 2);
    assert_eq!(
        of(5).intervals[0].end_micros,
        Some((day(3) + TimeDelta::seconds(35) + TimeDelta::microseconds(1234)).timestamp_micros())
    );
    assert_eq!(of(6).intervals.len(), 1);
    assert!(of(6).intervals[0].end_micros.is_some());
    assert!(of(0).intervals[0].end_micros.is_none());
    // Every interval boundary agrees with the snapshots just before and at it.
    for history in &histories {
        for interval in &history.intervals {
            let start = interval.start_micros.div_euclid(1_000_000);
            let key = |q: &Match<'_>| {
                (
                    q.subject.to_string(),
                    q.object.to_string(),
                    q.document.to_string(),
                )
            };
            let holds = |seconds: i64| {
                index
                    .at(&pattern, seconds)
                    .iter()
                    .map(key)
                    .any(|k| k == key(&history.triple))
            };
            assert!(holds(start) && !holds(start - 1));
            if let Some(end) = interval.end_micros {
                let end = end.div_euclid(1_000_000);
                assert!(holds(end - 1) && !holds(end));
                let (ground, _) = snapshot_quads(
                    &archive,
                    &ReplayDate::from_instant(Utc.timestamp_opt(end, 0).unwrap()),
                );
                assert!(!ground.iter().any(|q| q.0 == history.triple.subject
                    && q.1 == history.triple.predicate
                    && q.2 == history.triple.object
                    && q.3 == history.triple.document));
            }
        }
    }
    // A window keeps exactly the intervals overlapping it: after document 6 became a
    // redirect it is gone; document 7 (not RDF on days 1, 4 and 7) keeps the two intervals
    // around day 4 only.
    let (from, to) = (day(5).timestamp(), day(6).timestamp());
    let window = index.intervals(&pattern, Some(from), Some(to));
    let expected: Vec<(String, Vec<Interval>)> = histories
        .iter()
        .map(|h| {
            let kept = h.intervals.iter().copied().filter(|i| {
                i.start_micros.div_euclid(1_000_000) <= to
                    && i.end_micros
                        .is_none_or(|end| end.div_euclid(1_000_000) > from)
            });
            (h.triple.document.to_string(), kept.collect::<Vec<_>>())
        })
        .filter(|(_, kept)| !kept.is_empty())
        .collect();
    let got: Vec<(String, Vec<Interval>)> = window
        .iter()
        .map(|h| (h.triple.document.to_string(), h.intervals.clone()))
        .collect();
    assert_eq!(got, expected);
    assert!(!got.iter().any(|(doc, _)| *doc == url_of(6)));
    assert_eq!(
        got.iter()
            .filter(|(doc, _)| *doc == url_of(7))
            .map(|(_, i)| i.len())
            .sum::<usize>(),
        1
    );
    assert_eq!(of(7).intervals.len(), 4);
}

#[test]
fn new_captures_extend_the_index_as_a_rebuild_would() {
    let dir = tempfile::tempdir().unwrap();
    let mut states = vec![vec![1u64, 2, 3, 4]; DOCS];
    let mut originals = vec![None; DOCS];
    write_days(dir.path(), 7, 0..4, &mut states, &mut originals);
    let first = index_all(dir.path());
    assert_eq!(first.versions_added, (DOCS * 4) as u64);
    write_days(dir.path(), 8, 4..DAYS, &mut states, &mut originals);
    let second = index_all(dir.path());
    assert_eq!(second.versions_added, (DOCS as i64 * (DAYS - 4)) as u64);
    assert_eq!(second.documents_reread, 0);
    let incremental = TripleIndex::open(dir.path()).unwrap();
    update_triple_index(dir.path(), true, &|_, _| {}).unwrap();
    let rebuilt = TripleIndex::open(dir.path()).unwrap();
    assert_eq!(incremental.docs, rebuilt.docs);
    for date in dates() {
        let seconds = date.at.timestamp();
        assert_eq!(
            as_quads(&incremental.at(&TriplePattern::any(), seconds)),
            as_quads(&rebuilt.at(&TriplePattern::any(), seconds))
        );
    }
    // Nothing new: nothing added, the file unchanged in content.
    let again = update_triple_index(dir.path(), false, &|_, _| {}).unwrap();
    assert_eq!(again.versions_added, 0);
    assert_eq!(again.entries, rebuilt.entry_count() as u64);
}

#[test]
fn a_damaged_or_missing_index_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = TripleIndex::open(dir.path()).unwrap_err().to_string();
    assert_eq!(
        missing,
        format!(
            "{}: no triple index was built for this archive",
            dir.path().display()
        )
    );
    std::fs::create_dir_all(dir.path().join("triples")).unwrap();
    std::fs::write(index_path(dir.path()), b"not gzip").unwrap();
    let damaged = TripleIndex::open(dir.path()).unwrap_err().to_string();
    assert!(damaged.contains("not a readable triple index"), "{damaged}");
}

/// Every statement of a SPARQL dataset with its graph, as sorted TSV lines; blank nodes
/// reduced to `_:b` (each path labels them its own way).
fn dataset_lines(dataset: &crate::sparql::ArchiveDataset) -> Vec<String> {
    use crate::sparql::{DefaultGraph, GraphSyntax, OutputChoice, ResultsFormat, SparqlQuery};
    let query =
        SparqlQuery::parse("SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }", None).unwrap();
    let output = OutputChoice {
        results: ResultsFormat::Tsv,
        graph: GraphSyntax::NTriples,
    };
    let mut out = Vec::new();
    crate::sparql::answer(
        &query,
        dataset,
        DefaultGraph::Union,
        output,
        None,
        None,
        &mut out,
    )
    .unwrap();
    let mut lines: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .skip(1)
        .map(|line| {
            line.split('\t')
                .map(|term| if term.starts_with("_:") { "_:b" } else { term })
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn the_sparql_dataset_from_the_index_is_the_replayed_one_at_every_date() {
    use crate::sparql::{DatasetSource, LoadLimits, load_dataset, load_dataset_at};
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path());
    let archive = ReplayArchive::open(dir.path()).unwrap();
    let index = TripleIndex::open(dir.path()).unwrap();
    let limits = LoadLimits::default();
    for scope in [
        Scope::All,
        Scope::Prefix(format!("{}/", url_of(1).trim_end_matches("/doc/1"))),
        Scope::Prefix(url_of(3)),
    ] {
        for date in dates() {
            let (mut replay_report, mut index_report) = (Vec::new(), Vec::new());
            let replayed = load_dataset(&archive, &scope, &date, &limits, &mut |l| {
                replay_report.push(l.to_string())
            })
            .unwrap();
            let from_index =
                load_dataset_at(&archive, Some(&index), &scope, &date, &limits, &mut |l| {
                    index_report.push(l.to_string())
                })
                .unwrap();
            assert_eq!(from_index.source, DatasetSource::TripleIndex);
            assert_eq!(replayed.source, DatasetSource::Replay);
            assert_eq!(dataset_lines(&from_index), dataset_lines(&replayed));
            assert_eq!(from_index.len(), replayed.len());
            assert_eq!(from_index.summary, replayed.summary, "{scope:?} {date:?}");
            replay_report.sort();
            index_report.sort();
            assert_eq!(index_report, replay_report);
        }
    }
    // Scoped to one document, the dataset is that document's graph.
    let date = dates().pop().unwrap();
    let one = load_dataset_at(
        &archive,
        Some(&index),
        &Scope::Prefix(url_of(3)),
        &date,
        &limits,
        &mut |_| {},
    )
    .unwrap();
    assert!(!one.is_empty());
    assert!(
        dataset_lines(&one)
            .iter()
            .all(|line| line.ends_with(&format!("<{}>", url_of(3)))),
    );
}

#[test]
fn new_captures_make_the_index_stale_until_it_is_updated() {
    use crate::sparql::{DatasetSource, LoadLimits, load_dataset_at};
    let dir = tempfile::tempdir().unwrap();
    let mut states = vec![vec![1u64, 2, 3, 4]; DOCS];
    let mut originals = vec![None; DOCS];
    write_days(dir.path(), 7, 0..4, &mut states, &mut originals);
    index_all(dir.path());
    let index = TripleIndex::open(dir.path()).unwrap();
    let archive = ReplayArchive::open(dir.path()).unwrap();
    assert!(index.is_current_for(archive.index()).unwrap());
    // Indexing the same files again changes nothing.
    update_index(
        &Archive::new(dir.path()),
        &IndexOptions {
            rebuild: false,
            threads: 1,
        },
        &|_, _| {},
    )
    .unwrap();
    let archive = ReplayArchive::open(dir.path()).unwrap();
    assert!(index.is_current_for(archive.index()).unwrap());
    // New captures in the capture index only: stale.
    write_days(dir.path(), 8, 4..6, &mut states, &mut originals);
    update_index(
        &Archive::new(dir.path()),
        &IndexOptions {
            rebuild: false,
            threads: 1,
        },
        &|_, _| {},
    )
    .unwrap();
    let archive = ReplayArchive::open(dir.path()).unwrap();
    assert!(!index.is_current_for(archive.index()).unwrap());
    assert!(matches!(
        triple_index_currency(dir.path(), archive.index()).unwrap(),
        Currency::Stale(_)
    ));
    let error = open_current(dir.path()).unwrap_err();
    let inner = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<RootUnavailable>());
    assert_eq!(inner.map(|e| e.reason), Some(Unavailable::Stale), "{error}");
    assert!(error.to_string().contains("older than the capture index"));
    let date = ReplayDate::from_instant(day(5) + TimeDelta::hours(5));
    let dataset = load_dataset_at(
        &archive,
        Some(&index),
        &Scope::All,
        &date,
        &LoadLimits::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(dataset.source, DatasetSource::Replay);
    update_triple_index(dir.path(), false, &|_, _| {}).unwrap();
    let index = open_current(dir.path()).unwrap();
    let dataset_now = load_dataset_at(
        &archive,
        Some(&index),
        &Scope::All,
        &date,
        &LoadLimits::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(dataset_now.source, DatasetSource::TripleIndex);
    assert_eq!(dataset_lines(&dataset_now), dataset_lines(&dataset));
}

#[test]
fn an_index_of_an_older_layout_is_refused_by_readers_and_rebuilt_by_an_update() {
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let run = generated(dir.path());
    let current = std::fs::read(index_path(dir.path())).unwrap();
    let mut old = GzEncoder::new(Vec::new(), Compression::default());
    old.write_all(b"ldwarc-triples 1\n\x00\x00\x00\x00")
        .unwrap();
    std::fs::write(index_path(dir.path()), old.finish().unwrap()).unwrap();
    let refused = TripleIndex::open(dir.path()).unwrap_err().to_string();
    assert!(
        refused.contains("not an ldwarc triple index of this version"),
        "{refused}"
    );
    let again = update_triple_index(dir.path(), false, &|_, _| {}).unwrap();
    assert_eq!(again.versions_added, run.versions_added);
    let rebuilt = TripleIndex::open(dir.path()).unwrap();
    assert_eq!(rebuilt.entry_count() as u64, run.entries);
    assert_eq!(std::fs::read(index_path(dir.path())).unwrap(), current);
}

#[test]
fn several_roots_answer_version_queries_as_one_archive() {
    let dir = tempfile::tempdir().unwrap();
    let (one, first, second) = (
        dir.path().join("one"),
        dir.path().join("first"),
        dir.path().join("second"),
    );
    // The same captures: days 0-3 and 4-8 in one root, or split over two.
    for (days, roots) in [(0..4, [&one, &first]), (4..DAYS, [&one, &second])] {
        for root in roots {
            let mut states = vec![vec![1u64, 2, 3, 4]; DOCS];
            let mut originals = vec![None; DOCS];
            // Replays the generator to the state at the first of these days.
            write_days(
                &dir.path().join("scratch"),
                7,
                0..days.start,
                &mut states,
                &mut originals,
            );
            let mut originals = vec![None; DOCS];
            write_days(
                root,
                7 + days.start as u64,
                days.clone(),
                &mut states,
                &mut originals,
            );
        }
    }
    for root in [&one, &first, &second] {
        index_all(root);
    }
    let whole = TripleIndex::open(&one).unwrap();
    let parts = [
        TripleIndex::open(&first).unwrap(),
        TripleIndex::open(&second).unwrap(),
    ];
    let ground = |histories: Vec<TripleHistory<'_>>| {
        let mut rows: Vec<String> = histories
            .into_iter()
            .filter(|h| !h.triple.subject.starts_with("_:") && !h.triple.object.starts_with("_:"))
            .map(|h| format!("{:?} {:?}", h.triple, h.intervals))
            .collect();
        rows.sort();
        rows
    };
    let window = (
        Some(day(2).timestamp()),
        Some((day(6) + TimeDelta::hours(1)).timestamp()),
    );
    for (from, to) in [(None, None), window] {
        let merged = ground(intervals_across(&parts, &TriplePattern::any(), from, to));
        assert!(!merged.is_empty());
        assert_eq!(
            merged,
            ground(whole.intervals(&TriplePattern::any(), from, to))
        );
    }
    // Unmerged, the first root's statements would seem to hold until now.
    assert_ne!(
        ground(parts[0].intervals(&TriplePattern::any(), None, None)),
        ground(whole.intervals(&TriplePattern::any(), None, None))
    );
}

#[test]
fn skolem_iris_name_a_capture_blank_node_and_join_back_at_its_dates_only() {
    let dir = tempfile::tempdir().unwrap();
    generated(dir.path());
    let index = TripleIndex::open(dir.path()).unwrap();
    let prefix = "http://h:1/.well-known/genid/";
    let size = TriplePattern::parse("?s <http://vocab.example.org/size> ?o").unwrap();
    let doc3 = &index.documents()[index
        .documents()
        .iter()
        .position(|d| d.url == url_of(3))
        .unwrap()];
    // Two dates in force of two different captures of document 3.
    let first = day(0) + TimeDelta::hours(5);
    let second = day(1) + TimeDelta::hours(5);
    let at = |date: DateTime<Utc>| index.at_skolemised(&size, date.timestamp(), prefix);
    let [subject, _, _] = at(first).pop().expect("document 3's blank node");
    let capture = &doc3.versions[doc3.version_at(first.timestamp()).unwrap() as usize];
    let key = DateTime::<Utc>::from_timestamp_micros(capture.time_micros)
        .unwrap()
        .format("%Y%m%d%H%M%S%6f");
    assert_eq!(
        subject,
        format!("<{prefix}{key}/http%3A%2F%2Fdata.example.org%2Fdoc%2F3/b0>")
    );
    // The same request gives the same IRI; a rebuilt index too.
    assert_eq!(at(first)[0][0], subject);
    update_triple_index(dir.path(), true, &|_, _| {}).unwrap();
    let rebuilt = TripleIndex::open(dir.path()).unwrap();
    assert_eq!(
        rebuilt.at_skolemised(&size, first.timestamp(), prefix)[0][0],
        subject
    );
    // The IRI given back as a subject joins to the blank node's other statements.
    let bare = subject.trim_start_matches('<').trim_end_matches('>');
    let of = TriplePattern::from_fragment_parameters(Some(bare), None, None).unwrap();
    let mut rows = index.at_skolemised(&of, first.timestamp(), prefix);
    rows.sort();
    let value = &index.at(&size, first.timestamp())[0].object.to_string();
    assert_eq!(
        rows,
        vec![
            [
                subject.clone(),
                "<http://vocab.example.org/of>".to_string(),
                "<http://data.example.org/res/3>".to_string()
            ],
            [
                subject.clone(),
                "<http://vocab.example.org/size>".to_string(),
                value.clone()
            ],
        ]
    );
    // As an object too (no statement has it there): nothing, and no error.
    let as_object = TriplePattern::from_fragment_parameters(None, None, Some(bare)).unwrap();
    assert!(
        index
            .at_skolemised(&as_object, first.timestamp(), prefix)
            .is_empty()
    );
    // At a date when another capture of document 3 is in force, the IRI names nothing.
    assert_ne!(
        doc3.version_at(second.timestamp()),
        doc3.version_at(first.timestamp())
    );
    assert!(
        index
            .at_skolemised(&of, second.timestamp(), prefix)
            .is_empty()
    );
    // A capture that does not exist, a document that does not exist: nothing.
    for gone in [
        bare.replace(&key.to_string(), "20240301060000000000"),
        bare.replace("doc%2F3", "doc%2F99"),
    ] {
        let pattern = TriplePattern::from_fragment_parameters(Some(&gone), None, None).unwrap();
        assert!(
            index
                .at_skolemised(&pattern, first.timestamp(), prefix)
                .is_empty(),
            "{gone}"
        );
    }
}

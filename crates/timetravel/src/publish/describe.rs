//! The VoID + DCAT 3 description of an archive.
//!
//! An *archived dataset* is everything the archive holds from one pay-level domain (as
//! `ldwarc-surt`'s `pld_of_url` computes it, the unit of the WARC layout's `<pld>` folders and
//! of politeness). Its *versions* are its crawls: one per UTC day on which the archive captured
//! something of the domain (the `YYYY/MM/DD` of the layout), standing for the dataset as
//! `ldwarc snapshot` has it at the end of that day — every document of the domain whose latest
//! capture by then was a successful RDF answer, one named graph per document. The server
//! offers exactly that snapshot as the version's N-Quads download, so its statements are the
//! `void:triples` counted here.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use chrono::{DateTime, Utc};
use ldwarc_archive::index::Capture;
use ldwarc_archive::parallel::parallel_map;
use ldwarc_rdf::{DEFAULT_GRAPH, Graph, OutputFormat, TermSort};
use ldwarc_surt::pld_of_url;

use super::terms::{
    DCAT, DCT, FOAF, PROV, RDF_TYPE, RDFS, VOID, date, date_time, instant, integer, iri, literal,
    segment, term,
};
use crate::replay::dataset::{NoGraph, blank_prefix, document_at, graph_of, scan_urls};
use crate::replay::{OpenWarcFiles, ReplayArchive, ReplayDate, ReplayError, Scope};

/// Documents parsed on the worker threads at once.
const BATCH: usize = 256;

/// VoID statistics of one dataset version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionStats {
    /// Statements (one per statement of each document; the download's lines).
    pub triples: u64,
    /// Distinct IRIs in subject position.
    pub entities: u64,
    /// Distinct subjects (IRIs and blank nodes).
    pub distinct_subjects: u64,
    /// Distinct objects (IRIs, blank nodes and literals).
    pub distinct_objects: u64,
    /// Distinct predicates.
    pub properties: u64,
    /// Per class (its IRI): distinct subjects typed with it.
    pub classes: BTreeMap<String, u64>,
    /// Per predicate (its IRI): statements using it.
    pub property_triples: BTreeMap<String, u64>,
}

/// One version of an archived dataset: a pay-level domain as of the end of a crawl day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetVersion {
    /// The pay-level domain.
    pub pld: String,
    /// The crawl day, `YYYYMMDD` (UTC).
    pub day: String,
    /// The last capture of the domain that day: when the version was complete.
    pub issued: DateTime<Utc>,
    /// The oldest capture among its documents.
    pub start: Option<DateTime<Utc>>,
    /// The newest capture among its documents.
    pub end: Option<DateTime<Utc>>,
    /// Its documents: URL and the 14-digit timestamp of the capture holding it.
    pub documents: Vec<(String, String)>,
    /// Its statistics.
    pub stats: VersionStats,
}

/// Every archived dataset's versions, by domain then day.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    /// The versions, sorted by domain, then day.
    pub versions: Vec<DatasetVersion>,
}

impl Description {
    /// The version of `pld` on `day` (`YYYYMMDD`), if the archive has one.
    pub fn version(&self, pld: &str, day: &str) -> Option<&DatasetVersion> {
        self.versions
            .binary_search_by(|v| (v.pld.as_str(), v.day.as_str()).cmp(&(pld, day)))
            .ok()
            .map(|at| &self.versions[at])
    }

    /// Bytes held, roughly (for the server's memory accounting).
    pub fn approximate_bytes(&self) -> usize {
        self.versions
            .iter()
            .map(|v| {
                256 + v
                    .documents
                    .iter()
                    .map(|(url, ts)| url.len() + ts.len() + 48)
                    .sum::<usize>()
                    + v.stats
                        .classes
                        .keys()
                        .chain(v.stats.property_triples.keys())
                        .map(|k| k.len() + 40)
                        .sum::<usize>()
            })
            .sum()
    }
}

/// Per-domain accumulator of one day's statistics.
#[derive(Default)]
struct Tally {
    documents: Vec<(String, String)>,
    start: Option<i64>,
    end: Option<i64>,
    triples: u64,
    entities: HashSet<String>,
    subjects: HashSet<String>,
    objects: HashSet<String>,
    classes: HashMap<String, HashSet<String>>,
    properties: HashMap<String, u64>,
}

impl Tally {
    fn add(&mut self, capture: &Capture, graph: &Graph, prefix: &str) {
        self.documents
            .push((capture.url.clone(), capture.timestamp.clone()));
        self.start = Some(
            self.start
                .map_or(capture.time_micros, |t| t.min(capture.time_micros)),
        );
        self.end = Some(
            self.end
                .map_or(capture.time_micros, |t| t.max(capture.time_micros)),
        );
        let spell = |id| {
            let spelling = graph.term(id);
            match spelling.strip_prefix("_:") {
                // Blank nodes of two documents are never the same node.
                Some(label) => format!("_:{prefix}{label}"),
                None => spelling.to_string(),
            }
        };
        for quad in graph.quads() {
            self.triples += 1;
            let subject = spell(quad.subject);
            if graph.sort(quad.subject) == TermSort::Iri {
                self.entities.insert(subject.clone());
            }
            let predicate = graph.term(quad.predicate);
            *self.properties.entry(predicate.to_string()).or_default() += 1;
            if predicate == RDF_TYPE && graph.sort(quad.object) == TermSort::Iri {
                self.classes
                    .entry(graph.term(quad.object).to_string())
                    .or_default()
                    .insert(subject.clone());
            }
            self.subjects.insert(subject);
            self.objects.insert(spell(quad.object));
        }
    }

    fn finish(mut self, pld: &str, day: &str, issued: i64) -> DatasetVersion {
        self.documents.sort();
        let unbracket = |s: &str| s.trim_start_matches('<').trim_end_matches('>').to_string();
        DatasetVersion {
            pld: pld.to_string(),
            day: day.to_string(),
            issued: instant(issued),
            start: self.start.map(instant),
            end: self.end.map(instant),
            documents: self.documents,
            stats: VersionStats {
                triples: self.triples,
                entities: self.entities.len() as u64,
                distinct_subjects: self.subjects.len() as u64,
                distinct_objects: self.objects.len() as u64,
                properties: self.properties.len() as u64,
                classes: self
                    .classes
                    .iter()
                    .map(|(class, members)| (unbracket(class), members.len() as u64))
                    .collect(),
                property_triples: self
                    .properties
                    .iter()
                    .map(|(property, n)| (unbracket(property), *n))
                    .collect(),
            },
        }
    }
}

/// Describes every archived dataset of `archive`: its crawl days, then per day one pass over
/// the documents current at the end of that day (parsed on the worker threads), tallied for
/// the domains crawled that day. `report` receives one line per document left out or partial.
pub fn describe(
    archive: &ReplayArchive,
    report: &mut dyn FnMut(&str),
) -> Result<Description, ReplayError> {
    // pld → day → the last capture's time that day.
    let mut crawls: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    scan_urls(archive, &Scope::All, |url, captures| {
        let pld = pld_of_url(url);
        if pld.is_empty() {
            return;
        }
        let days = crawls.entry(pld).or_default();
        for capture in captures {
            if capture.timestamp.len() >= 8 {
                let last = days.entry(capture.timestamp[..8].to_string()).or_default();
                *last = (*last).max(capture.time_micros);
            }
        }
    })?;
    let mut by_day: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (pld, days) in &crawls {
        for day in days.keys() {
            by_day.entry(day).or_default().push(pld);
        }
    }
    let mut versions = Vec::new();
    for (day, plds) in by_day {
        let wanted: HashSet<&str> = plds.iter().copied().collect();
        let mut tallies: HashMap<String, Tally> = HashMap::new();
        visit_domain_documents(
            archive,
            &|pld| wanted.contains(pld),
            day,
            &mut |pld, capture, graph, prefix| {
                tallies
                    .entry(pld.to_string())
                    .or_default()
                    .add(capture, graph, prefix)
            },
            report,
        )?;
        for pld in plds {
            let tally = tallies.remove(pld).unwrap_or_default();
            versions.push(tally.finish(pld, day, crawls[pld][day]));
        }
    }
    versions.sort_by(|a, b| (&a.pld, &a.day).cmp(&(&b.pld, &b.day)));
    Ok(Description { versions })
}

/// Calls `visit` with every document whose pay-level domain `keep` accepts, as it stood at
/// the end of `day`, with its domain, capture, graph and blank node prefix, in SURT order.
fn visit_domain_documents(
    archive: &ReplayArchive,
    keep: &dyn Fn(&str) -> bool,
    day: &str,
    visit: &mut dyn FnMut(&str, &Capture, &Graph, &str),
    report: &mut dyn FnMut(&str),
) -> Result<(), ReplayError> {
    let date = ReplayDate::parse(day).map_err(ReplayError::io)?;
    let files = OpenWarcFiles::for_scan();
    let mut batch: Vec<(String, Capture)> = Vec::with_capacity(BATCH);
    let mut run = |batch: &mut Vec<(String, Capture)>| {
        let graphs = parallel_map(batch, |(_, capture)| graph_of(archive, &files, capture));
        for ((pld, capture), graph) in batch.iter().zip(graphs) {
            match graph {
                Ok((graph, partial)) => {
                    if let Some(error) = partial {
                        report(&format!("{}: partial graph: {error}", capture.url));
                    }
                    visit(pld, capture, &graph, &blank_prefix(capture));
                }
                Err(NoGraph::NotDocument) => {}
                Err(NoGraph::Failed(reason)) => report(&format!("left out: {reason}")),
            }
        }
        batch.clear();
    };
    scan_urls(archive, &Scope::All, |url, captures| {
        let pld = pld_of_url(url);
        if pld.is_empty() || !keep(&pld) {
            return;
        }
        if let Some(capture) = document_at(captures, &date) {
            batch.push((pld, capture));
            if batch.len() >= BATCH {
                run(&mut batch);
            }
        }
    })?;
    run(&mut batch);
    Ok(())
}

/// Writes the download of `pld` on `day` (`YYYYMMDD`): N-Quads, the document URL as graph
/// name of its statements, blank nodes kept apart per document — the statements the
/// description counts. Returns the statements written.
pub fn write_download(
    archive: &ReplayArchive,
    pld: &str,
    day: &str,
    out: &mut dyn Write,
    report: &mut dyn FnMut(&str),
) -> Result<u64, ReplayError> {
    let mut written = 0u64;
    let mut failure: Option<std::io::Error> = None;
    let mut line = String::new();
    visit_domain_documents(
        archive,
        &|candidate| candidate == pld,
        day,
        &mut |_, capture, graph, prefix| {
            let name = iri(&capture.url);
            for quad in graph.quads() {
                line.clear();
                // Statements the document put in its own named graphs are kept there.
                let graph_name = (quad.graph == DEFAULT_GRAPH).then_some(name.as_str());
                graph.spell_quad(quad, graph_name, prefix, &mut line);
                if failure.is_none()
                    && let Err(error) = out.write_all(line.as_bytes())
                {
                    failure = Some(error);
                }
                written += 1;
            }
        },
        report,
    )?;
    match failure {
        Some(error) => Err(ReplayError::io(format!("writing the download: {error}"))),
        None => Ok(written),
    }
}

/// The server path of a version's N-Quads download: `/download/YYYYMMDD/PLD.nq.gz`.
pub fn download_path(pld: &str, day: &str) -> String {
    format!("/download/{day}/{}.nq.gz", segment(pld))
}

/// The description as a graph, its IRIs under `base` (the server's `http://host:port`, no
/// trailing slash): the catalogue `<base/.well-known/void#catalog>`, one series per domain,
/// one dataset per version, each with its N-Quads distribution, its documents (`dct:source`)
/// and their mementos (`prov:wasDerivedFrom`, each a `dct:isVersionOf` its URL), and per
/// document its TimeMap (`rdfs:seeAlso`).
pub fn description_graph(description: &Description, base: &str) -> Graph {
    let mut graph = Graph::new();
    let mut add = |s: &str, p: &str, o: &str| {
        graph.insert_spelled(s, p, o, None);
    };
    let a = RDF_TYPE;
    let void_doc = format!("{base}/.well-known/void");
    let catalog = iri(&format!("{void_doc}#catalog"));
    let publisher = iri(&format!("{void_doc}#archive"));
    let title = term(DCT, "title");
    let description_p = term(DCT, "description");
    let issued_p = term(DCT, "issued");
    add(
        &void_doc_iri(&void_doc),
        a,
        &term(VOID, "DatasetDescription"),
    );
    add(
        &void_doc_iri(&void_doc),
        &term(FOAF, "primaryTopic"),
        &catalog,
    );
    add(&catalog, a, &term(DCAT, "Catalog"));
    add(
        &catalog,
        &title,
        &literal(&format!("Linked Data archived at {base}")),
    );
    add(
        &catalog,
        &description_p,
        &literal(
            "The datasets of this ldwarc archive: one dataset series per pay-level domain, one \
             dataset per crawl day (the domain's documents as they stood at the end of that day).",
        ),
    );
    add(&catalog, &term(DCT, "publisher"), &publisher);
    add(&catalog, &term(FOAF, "homepage"), &iri(&format!("{base}/")));
    add(&publisher, a, &term(FOAF, "Agent"));
    add(
        &publisher,
        &term(FOAF, "name"),
        &literal(&format!("the ldwarc archive at {base}")),
    );
    let mut blank = 0usize;
    let mut fresh = || {
        blank += 1;
        format!("_:n{blank}")
    };
    let mut timemaps: HashSet<&str> = HashSet::new();
    for series_versions in description.versions.chunk_by(|x, y| x.pld == y.pld) {
        let pld = &series_versions[0].pld;
        let series = iri(&format!("{void_doc}#{}", segment(pld)));
        add(&catalog, &term(DCAT, "dataset"), &series);
        add(&series, a, &term(DCAT, "DatasetSeries"));
        add(&series, &title, &literal(&format!("{pld}, as archived")));
        add(
            &series,
            &description_p,
            &literal(&format!(
                "The Linked Data documents of the pay-level domain {pld}, one dataset per crawl day."
            )),
        );
        add(&series, &term(DCT, "publisher"), &publisher);
        let version_iri =
            |v: &DatasetVersion| iri(&format!("{void_doc}#{}-{}", segment(pld), v.day));
        add(
            &series,
            &term(DCAT, "first"),
            &version_iri(&series_versions[0]),
        );
        add(
            &series,
            &term(DCAT, "last"),
            &version_iri(&series_versions[series_versions.len() - 1]),
        );
        let mut previous: Option<String> = None;
        for version in series_versions {
            let dataset = version_iri(version);
            let day = format!(
                "{}-{}-{}",
                &version.day[..4],
                &version.day[4..6],
                &version.day[6..8]
            );
            add(&catalog, &term(DCAT, "dataset"), &dataset);
            add(&dataset, a, &term(DCAT, "Dataset"));
            add(&dataset, a, &term(VOID, "Dataset"));
            add(&dataset, &title, &literal(&format!("{pld} on {day}")));
            add(
                &dataset,
                &description_p,
                &literal(&format!(
                    "The documents of {pld} as the archive held them at the end of {day} (UTC)."
                )),
            );
            add(&dataset, &term(DCAT, "inSeries"), &series);
            add(&dataset, &term(DCAT, "version"), &literal(&day));
            add(&dataset, &term(DCT, "publisher"), &publisher);
            add(&dataset, &issued_p, &date_time(version.issued));
            if let Some(previous) = &previous {
                add(&dataset, &term(DCAT, "prev"), previous);
            }
            previous = Some(dataset.clone());
            if let (Some(start), Some(end)) = (version.start, version.end) {
                let period = fresh();
                add(&dataset, &term(DCT, "temporal"), &period);
                add(&period, a, &term(DCT, "PeriodOfTime"));
                add(&period, &term(DCAT, "startDate"), &date(start));
                add(&period, &term(DCAT, "endDate"), &date(end));
            }
            let stats = &version.stats;
            add(&dataset, &term(VOID, "triples"), &integer(stats.triples));
            add(&dataset, &term(VOID, "entities"), &integer(stats.entities));
            add(
                &dataset,
                &term(VOID, "distinctSubjects"),
                &integer(stats.distinct_subjects),
            );
            add(
                &dataset,
                &term(VOID, "distinctObjects"),
                &integer(stats.distinct_objects),
            );
            add(
                &dataset,
                &term(VOID, "properties"),
                &integer(stats.properties),
            );
            add(
                &dataset,
                &term(VOID, "classes"),
                &integer(stats.classes.len() as u64),
            );
            for (class, entities) in &stats.classes {
                let partition = fresh();
                add(&dataset, &term(VOID, "classPartition"), &partition);
                add(&partition, &term(VOID, "class"), &iri(class));
                add(&partition, &term(VOID, "entities"), &integer(*entities));
            }
            for (property, triples) in &stats.property_triples {
                let partition = fresh();
                add(&dataset, &term(VOID, "propertyPartition"), &partition);
                add(&partition, &term(VOID, "property"), &iri(property));
                add(&partition, &term(VOID, "triples"), &integer(*triples));
            }
            let download = iri(&format!("{base}{}", download_path(pld, &version.day)));
            let distribution = iri(&format!("{void_doc}#{}-{}-nq", segment(pld), version.day));
            add(&dataset, &term(VOID, "dataDump"), &download);
            add(&dataset, &term(DCAT, "distribution"), &distribution);
            add(&distribution, a, &term(DCAT, "Distribution"));
            add(
                &distribution,
                &title,
                &literal(&format!("{pld} on {day}, N-Quads, gzip")),
            );
            add(&distribution, &term(DCAT, "accessURL"), &download);
            add(&distribution, &term(DCAT, "downloadURL"), &download);
            add(
                &distribution,
                &term(DCAT, "mediaType"),
                "<http://www.iana.org/assignments/media-types/application/n-quads>",
            );
            add(
                &distribution,
                &term(DCAT, "compressFormat"),
                "<http://www.iana.org/assignments/media-types/application/gzip>",
            );
            for (url, timestamp) in &version.documents {
                let memento = iri(&format!("{base}/web/{timestamp}/{url}"));
                add(&dataset, &term(DCT, "source"), &iri(url));
                add(&dataset, &term(PROV, "wasDerivedFrom"), &memento);
                add(&memento, &term(DCT, "isVersionOf"), &iri(url));
                if timemaps.insert(url) {
                    add(
                        &iri(url),
                        &term(RDFS, "seeAlso"),
                        &iri(&format!("{base}/timemap/link/{url}")),
                    );
                }
            }
        }
    }
    graph
}

fn void_doc_iri(void_doc: &str) -> String {
    iri(void_doc)
}

/// Writes the description in `format` (Turtle, N-Triples or JSON-LD).
pub fn write_description(
    description: &Description,
    base: &str,
    format: OutputFormat,
    out: &mut dyn Write,
) -> Result<(), ReplayError> {
    let graph = description_graph(description, base);
    ldwarc_rdf::write_graph(&graph, format, None, out)
        .map_err(|e| ReplayError::io(format!("writing the description: {e}")))
}

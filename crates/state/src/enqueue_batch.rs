//! Frontier entries as the column arrays of one batched PostgreSQL insert (`unnest`).

use std::collections::BTreeMap;

use super::FrontierEntry;
use ldwarc_surt::pld_of_url;

/// The columns of a batch of frontier rows, one URL once (with its fewest hops), in URL
/// order: two nodes inserting overlapping batches then lock rows in the same order and
/// cannot deadlock, and one statement never touches a row twice.
pub(super) struct EnqueueBatch<'a> {
    pub urls: Vec<&'a str>,
    pub plds: Vec<String>,
    pub hops: Vec<i64>,
    pub rounds: Vec<i64>,
    pub inlinks: Vec<i64>,
    pub vias: Vec<Option<&'a str>>,
    pub paths: Vec<&'a str>,
    pub redirects: Vec<i64>,
    /// The PLDs of the batch, each once, sorted (lease rows are created in this order).
    pub distinct_plds: Vec<String>,
}

impl<'a> EnqueueBatch<'a> {
    /// The batch of `entries`; of several entries for one URL the one with fewest hops.
    pub fn of(entries: &'a [FrontierEntry]) -> Self {
        let mut by_url: BTreeMap<&str, &FrontierEntry> = BTreeMap::new();
        for entry in entries {
            by_url
                .entry(entry.url.as_str())
                .and_modify(|kept| {
                    if entry.hops < kept.hops {
                        *kept = entry;
                    }
                })
                .or_insert(entry);
        }
        let mut batch = Self {
            urls: Vec::with_capacity(by_url.len()),
            plds: Vec::with_capacity(by_url.len()),
            hops: Vec::with_capacity(by_url.len()),
            rounds: Vec::with_capacity(by_url.len()),
            inlinks: Vec::with_capacity(by_url.len()),
            vias: Vec::with_capacity(by_url.len()),
            paths: Vec::with_capacity(by_url.len()),
            redirects: Vec::with_capacity(by_url.len()),
            distinct_plds: Vec::new(),
        };
        for (url, entry) in by_url {
            batch.urls.push(url);
            batch.plds.push(pld_of_url(url));
            batch.hops.push(i64::from(entry.hops));
            batch.rounds.push(i64::from(entry.round));
            batch.inlinks.push(i64::from(entry.inlinks));
            batch.vias.push(entry.via.as_deref());
            batch.paths.push(entry.path.as_str());
            batch.redirects.push(i64::from(entry.redirects));
        }
        batch.distinct_plds = batch.plds.clone();
        batch.distinct_plds.sort();
        batch.distinct_plds.dedup();
        batch
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A frontier entry reached by `hops` links (also for the other store tests).
    pub(crate) fn entry(url: &str, hops: u32) -> FrontierEntry {
        FrontierEntry {
            url: url.into(),
            hops,
            round: hops,
            inlinks: 1,
            via: None,
            path: "L".repeat(hops as usize),
            redirects: 0,
        }
    }

    #[test]
    fn a_batch_holds_each_url_once_with_its_fewest_hops_in_url_order() {
        let entries = [
            entry("http://b.example/x", 3),
            entry("http://a.example/y", 2),
            entry("http://b.example/x", 1),
            entry("http://b.example/x", 2),
        ];
        let batch = EnqueueBatch::of(&entries);
        assert_eq!(batch.urls, ["http://a.example/y", "http://b.example/x"]);
        assert_eq!(batch.hops, [2, 1]);
        assert_eq!(batch.paths, ["LL", "L"]);
        assert_eq!(batch.distinct_plds, ["a.example", "b.example"]);
    }
}

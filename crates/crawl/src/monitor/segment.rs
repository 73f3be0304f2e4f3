//! Kernel and adaptive segment (DyLDO §6): the kernel is the seed list, monitored in every
//! cycle it is due and never dropped; the segment is every document within `hops` links of the
//! kernel over the links of the latest captures the monitor holds. It is recomputed at the end
//! of every cycle, so it follows the kernel's neighbourhood as its documents change: a newly
//! linked document joins (due at once), a document no longer reachable leaves (kept inactive
//! with its schedule, so it resumes where it was if it comes back).

use std::collections::{BTreeMap, VecDeque};

/// Hop distance from the kernel of every URL reachable within `max_hops`, by breadth-first
/// search over `links` (URL → its links). Kernel URLs are at 0.
pub fn reachable(
    kernel: &[String],
    links: &BTreeMap<String, Vec<String>>,
    max_hops: u32,
) -> BTreeMap<String, u32> {
    let mut hops: BTreeMap<String, u32> = BTreeMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for url in kernel {
        if hops.insert(url.clone(), 0).is_none() {
            queue.push_back(url.clone());
        }
    }
    while let Some(url) = queue.pop_front() {
        let depth = hops[&url];
        if depth >= max_hops {
            continue;
        }
        for link in links.get(&url).into_iter().flatten() {
            if !hops.contains_key(link) {
                hops.insert(link.clone(), depth + 1);
                queue.push_back(link.clone());
            }
        }
    }
    hops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_segment_is_the_kernels_neighbourhood_within_the_hop_limit() {
        let s = |x: &str| x.to_string();
        let links: BTreeMap<String, Vec<String>> = [
            (s("k1"), vec![s("a"), s("k2")]),
            (s("k2"), vec![s("b")]),
            (s("a"), vec![s("c"), s("k1")]),
            (s("c"), vec![s("d")]),
        ]
        .into_iter()
        .collect();
        let kernel = vec![s("k1"), s("k2")];
        let within_1 = reachable(&kernel, &links, 1);
        assert_eq!(
            within_1.into_iter().collect::<Vec<_>>(),
            vec![(s("a"), 1), (s("b"), 1), (s("k1"), 0), (s("k2"), 0)]
        );
        let within_2 = reachable(&kernel, &links, 2);
        assert_eq!(within_2.get("c"), Some(&2));
        assert_eq!(within_2.get("d"), None);
        assert_eq!(reachable(&kernel, &links, 0).len(), 2, "kernel only");
    }
}

//! Resource planning across crawler nodes: how long a cycle takes on N nodes and how many
//! nodes a cycle needs to fit in its length (`shared/papers/001_…` §2 asks how many
//! distributed archivers a given load needs).
//!
//! Nodes share one frontier and lease work per pay-level domain, one holder at a time, so
//! politeness holds across the cluster. Two ways of handing out domains are modelled:
//!
//! - **leased**: a node with a free connection claims the ready domain with most queued URLs,
//!   whatever node crawled it before. Since a domain is only ever asked one request at a
//!   time, N nodes of c connections behave like one crawler of N·c connections, and the time
//!   is [`simulate_rounds`] with N·c connections.
//! - **partitioned**: every domain belongs to one node, chosen by rendezvous hashing
//!   ([`rendezvous_owners`]); each node crawls only its own domains and the cycle ends when
//!   the slowest node is done. This is what redundancy (r owners per domain, backups claiming
//!   only after the lease lapses) falls back to when nodes do not steal work.
//!
//! No number of nodes makes a cycle shorter than its slowest domain crawled one request at a
//! time (the politeness floor), which [`plan_nodes`] reports instead of a node count.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::crawl_time::{PldWorkload, simulate_rounds};

/// The nodes of a cluster that own `pld`, best first: rendezvous (highest random weight)
/// hashing, so adding or removing a node moves only the domains that node wins or held.
/// Returns at most `redundancy` node indices (at least one when there are nodes).
pub fn rendezvous_owners(pld: &str, nodes: &[String], redundancy: usize) -> Vec<usize> {
    let mut ranked: Vec<(u64, usize)> = nodes
        .iter()
        .enumerate()
        .map(|(index, node)| (rendezvous_weight(pld, node), index))
        .collect();
    ranked.sort_unstable_by(|a, b| b.cmp(a));
    ranked
        .into_iter()
        .take(redundancy.max(1))
        .map(|(_, index)| index)
        .collect()
}

/// The weight of `node` for `pld`: the first 8 bytes of SHA-256 over both names, stable
/// across processes, machines and releases (unlike std's randomly keyed hasher).
fn rendezvous_weight(pld: &str, node: &str) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(node.as_bytes());
    hasher.update([0u8]);
    hasher.update(pld.as_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The name rendezvous hashing gives the node at `index` when a plan has no real names.
pub fn planned_node_name(index: usize) -> String {
    format!("node-{}", index + 1)
}

/// How long a cycle of crawl `rounds` takes on `nodes` nodes of `connections` each.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusterEstimate {
    /// Nodes in the cluster.
    pub nodes: usize,
    /// Connections per node.
    pub connections_per_node: usize,
    /// Domains leased to whichever node is free, seconds.
    pub leased_seconds: f64,
    /// Domains partitioned by rendezvous hashing, seconds (the slowest node).
    pub partitioned_seconds: f64,
}

/// Estimates a cycle of `rounds` on `nodes` nodes, both ways of handing out domains.
pub fn estimate_on_nodes(
    rounds: &[Vec<PldWorkload>],
    nodes: usize,
    connections_per_node: usize,
) -> ClusterEstimate {
    let nodes = nodes.max(1);
    let connections_per_node = connections_per_node.max(1);
    let leased_seconds = simulate_rounds(rounds, nodes * connections_per_node);
    let partitioned_seconds = partitioned_time(rounds, nodes, connections_per_node);
    ClusterEstimate {
        nodes,
        connections_per_node,
        leased_seconds,
        partitioned_seconds,
    }
}

/// The slowest node's time when every domain is crawled only by its rendezvous owner.
fn partitioned_time(rounds: &[Vec<PldWorkload>], nodes: usize, connections_per_node: usize) -> f64 {
    let names: Vec<String> = (0..nodes).map(planned_node_name).collect();
    let mut owner_of: std::collections::HashMap<&str, usize> = Default::default();
    let mut per_node: Vec<Vec<Vec<PldWorkload>>> = vec![vec![Vec::new(); rounds.len()]; nodes];
    for (round_index, round) in rounds.iter().enumerate() {
        for workload in round {
            let owner = *owner_of
                .entry(workload.pld.as_str())
                .or_insert_with(|| rendezvous_owners(&workload.pld, &names, 1)[0]);
            per_node[owner][round_index].push(workload.clone());
        }
    }
    per_node
        .iter()
        .map(|own| simulate_rounds(own, connections_per_node))
        .fold(0.0, f64::max)
}

/// The answer to "how many nodes for this cycle".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodePlan {
    /// The cycle length asked for, seconds.
    pub cycle_seconds: f64,
    /// The politeness floor: the slowest domain's URLs one after another, over all rounds.
    pub floor_seconds: f64,
    /// The smallest cluster whose leased estimate fits the cycle, if any up to the maximum.
    pub fits: Option<ClusterEstimate>,
    /// Why no cluster fits, when none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The fewest nodes (up to `max_nodes`) of `connections_per_node` connections that crawl
/// `rounds` within `cycle_seconds`, judged by the leased estimate. When the politeness floor
/// alone exceeds the cycle, no count of nodes helps and the plan says so.
pub fn plan_nodes(
    rounds: &[Vec<PldWorkload>],
    connections_per_node: usize,
    cycle_seconds: f64,
    max_nodes: usize,
) -> NodePlan {
    let floor_seconds = politeness_floor(rounds);
    let mut plan = NodePlan {
        cycle_seconds,
        floor_seconds,
        fits: None,
        reason: None,
    };
    if floor_seconds > cycle_seconds {
        plan.reason = Some(format!(
            "the slowest domain alone takes {floor_seconds:.0} s at its crawl delay: \
             more nodes cannot shorten it"
        ));
        return plan;
    }
    // More connections do not lengthen the leased time (but for Graham's list-scheduling
    // anomalies, which greedy claiming can show by a fetch or so), so the smallest fitting
    // count is found by bisection over 1..=max_nodes.
    let max_nodes = max_nodes.max(1);
    let connections_per_node = connections_per_node.max(1);
    let leased = |nodes: usize| simulate_rounds(rounds, nodes * connections_per_node);
    let largest = leased(max_nodes);
    if largest > cycle_seconds {
        plan.reason = Some(format!("{max_nodes} nodes still take {largest:.0} s"));
        return plan;
    }
    let (mut low, mut high) = (1, max_nodes);
    while low < high {
        let middle = low + (high - low) / 2;
        if leased(middle) <= cycle_seconds {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    let best = estimate_on_nodes(rounds, low, connections_per_node);
    plan.fits = Some(best);
    plan
}

/// The slowest domain's serial time, its URLs of every round together.
fn politeness_floor(rounds: &[Vec<PldWorkload>]) -> f64 {
    let mut per_pld: std::collections::HashMap<&str, PldWorkload> = Default::default();
    for workload in rounds.iter().flatten() {
        let merged = per_pld
            .entry(workload.pld.as_str())
            .or_insert_with(|| PldWorkload {
                pld: workload.pld.clone(),
                delay: workload.delay,
                fetch_times: Vec::new(),
            });
        merged.delay = merged.delay.max(workload.delay);
        merged.fetch_times.extend_from_slice(&workload.fetch_times);
    }
    per_pld
        .values()
        .map(PldWorkload::serial_time)
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(pld: &str, urls: usize, fetch: f64, delay: f64) -> PldWorkload {
        PldWorkload {
            pld: pld.to_string(),
            delay,
            fetch_times: vec![fetch; urls],
        }
    }

    #[test]
    fn rendezvous_is_stable_and_moves_only_the_lost_nodes_domains() {
        let four: Vec<String> = (0..4).map(planned_node_name).collect();
        let three: Vec<String> = four[..3].to_vec();
        let plds: Vec<String> = (0..400).map(|i| format!("site{i}.example")).collect();
        let mut moved = 0;
        let mut per_node = [0usize; 4];
        for pld in &plds {
            let owner4 = rendezvous_owners(pld, &four, 1)[0];
            assert_eq!(owner4, rendezvous_owners(pld, &four, 1)[0]);
            per_node[owner4] += 1;
            let owner3 = rendezvous_owners(pld, &three, 1)[0];
            if owner4 < 3 {
                assert_eq!(owner3, owner4, "{pld} moved though its node stayed");
            } else {
                moved += 1;
            }
        }
        assert_eq!(moved, per_node[3]);
        // Roughly even: each node holds 100 ± 35 of 400 domains.
        assert!(
            per_node.iter().all(|&n| (65..=135).contains(&n)),
            "{per_node:?}"
        );
    }

    #[test]
    fn redundant_owners_are_distinct_and_start_with_the_primary() {
        let nodes: Vec<String> = (0..5).map(planned_node_name).collect();
        let owners = rendezvous_owners("dbpedia.org", &nodes, 3);
        assert_eq!(owners.len(), 3);
        assert_eq!(owners[0], rendezvous_owners("dbpedia.org", &nodes, 1)[0]);
        let mut unique = owners.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 3);
    }

    #[test]
    fn leased_nodes_multiply_connections() {
        // 40 domains of 10 URLs, 1 s fetch, 1 s delay; one connection per node.
        let round: Vec<PldWorkload> = (0..40)
            .map(|i| workload(&format!("d{i}.example"), 10, 1.0, 1.0))
            .collect();
        let rounds = vec![round];
        let one = estimate_on_nodes(&rounds, 1, 1);
        assert_eq!(one.leased_seconds, 400.0);
        let four = estimate_on_nodes(&rounds, 4, 1);
        assert_eq!(four.leased_seconds, 100.0);
        // Partitioning can only be as fast as leasing, never faster.
        assert!(four.partitioned_seconds >= four.leased_seconds);
    }

    #[test]
    fn plan_finds_the_fewest_nodes_that_fit() {
        let round: Vec<PldWorkload> = (0..40)
            .map(|i| workload(&format!("d{i}.example"), 10, 1.0, 1.0))
            .collect();
        let rounds = vec![round];
        let plan = plan_nodes(&rounds, 1, 150.0, 64);
        let fits = plan.fits.expect("a cluster fits");
        // 400 s of fetching over n busy connections: 3 nodes take about 134 s, 2 take 200 s.
        assert_eq!(fits.nodes, 3);
        assert!(fits.leased_seconds <= 150.0);
        assert!(estimate_on_nodes(&rounds, 2, 1).leased_seconds > 150.0);
    }

    #[test]
    fn plan_reports_the_politeness_floor() {
        // One domain of 100 URLs at 1 s fetch and 2 s delay: 100 + 99·2 = 298 s whatever
        // the cluster.
        let rounds = vec![vec![workload("big.example", 100, 1.0, 2.0)]];
        let plan = plan_nodes(&rounds, 8, 120.0, 1000);
        assert_eq!(plan.floor_seconds, 298.0);
        assert!(plan.fits.is_none());
        assert!(plan.reason.expect("a reason").contains("slowest domain"));
    }
}

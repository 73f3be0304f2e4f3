//! Data parallelism for reading many documents of the archive at once (snapshots, dataset
//! diffs, archive statistics): record reads and RDF parsing are CPU-bound and independent.

/// Runs `work` over `items` on all cores, results in input order. A panic in `work` is
/// re-raised here rather than dropping that part's results, which would shift every later
/// result onto the wrong item.
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads <= 1 || items.len() < 2 {
        return items.iter().map(&work).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let work = &work;
                scope.spawn(move || part.iter().map(work).collect::<Vec<R>>())
            })
            .collect();
        let mut results = Vec::with_capacity(items.len());
        for handle in handles {
            match handle.join() {
                Ok(part) => results.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::parallel_map;

    #[test]
    fn results_keep_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = parallel_map(&items, |n| n * n);
        assert_eq!(squares.len(), items.len());
        assert!(squares.iter().zip(&items).all(|(sq, n)| *sq == n * n));
    }

    #[test]
    fn a_panic_in_work_is_not_swallowed() {
        let items: Vec<u32> = (0..64).collect();
        let outcome = std::panic::catch_unwind(|| {
            parallel_map(&items, |n| {
                assert!(*n != 50, "item 50");
                *n
            })
        });
        assert!(outcome.is_err());
    }
}

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

/// Streams items through `work` on all cores while they are still being produced, and hands
/// each item with its result to `consume` in production order, on the calling thread.
///
/// `produce` runs on a thread of its own and calls its argument with each item; items go to
/// the workers in batches of `batch` (a batch is the unit of hand-over, so that channel
/// traffic stays small next to the work). Memory holds a bounded number of batches: a slow
/// `consume` holds the producer back rather than letting results pile up. Returns what
/// `produce` returned. A panic in `produce` or `work` is re-raised here.
pub(crate) fn ordered_pipeline<T: Send, R: Send, P: Send>(
    batch: usize,
    produce: impl FnOnce(&mut dyn FnMut(T)) -> P + Send,
    work: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(T, R),
) -> P {
    use std::collections::BTreeMap;
    use std::sync::mpsc::sync_channel;
    use std::sync::{Arc, Mutex};

    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let batch = batch.max(1);
    // Batches waiting for a worker, and finished ones waiting for their turn.
    let (jobs, job_queue) = sync_channel::<(u64, Vec<T>)>(threads * 2);
    let (done, finished) = sync_channel::<(u64, Vec<(T, R)>)>(threads * 2);
    let job_queue = Arc::new(Mutex::new(job_queue));
    std::thread::scope(|scope| {
        let producer = scope.spawn(move || {
            let mut next = 0u64;
            let mut pending = Vec::with_capacity(batch);
            // Once every worker is gone (one panicked), the rest is produced and dropped.
            let mut send = |pending: &mut Vec<T>| {
                let full = std::mem::replace(pending, Vec::with_capacity(batch));
                let _gone = jobs.send((next, full));
                next += 1;
            };
            let produced = produce(&mut |item| {
                pending.push(item);
                if pending.len() >= batch {
                    send(&mut pending);
                }
            });
            if !pending.is_empty() {
                send(&mut pending);
            }
            produced
        });
        for _ in 0..threads {
            let job_queue = Arc::clone(&job_queue);
            let done = done.clone();
            let work = &work;
            scope.spawn(move || {
                loop {
                    // The lock is held only while taking a batch, never while working.
                    let job = job_queue.lock().map(|queue| queue.recv());
                    let Ok(Ok((sequence, items))) = job else {
                        return;
                    };
                    let results = items
                        .into_iter()
                        .map(|item| {
                            let result = work(&item);
                            (item, result)
                        })
                        .collect();
                    if done.send((sequence, results)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        let mut waiting = BTreeMap::new();
        let mut next = 0u64;
        for (sequence, results) in finished.iter() {
            waiting.insert(sequence, results);
            while let Some(results) = waiting.remove(&next) {
                for (item, result) in results {
                    consume(item, result);
                }
                next += 1;
            }
        }
        match producer.join() {
            Ok(produced) => produced,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{ordered_pipeline, parallel_map};

    #[test]
    fn the_pipeline_consumes_in_production_order() {
        let mut seen = Vec::new();
        let produced = ordered_pipeline(
            7,
            |emit| {
                for n in 0..1000u64 {
                    emit(n);
                }
                "all"
            },
            |n| {
                // Uneven work, so that batches finish out of order.
                if n % 13 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                n * n
            },
            |n, square| seen.push((n, square)),
        );
        assert_eq!(produced, "all");
        let expected: Vec<(u64, u64)> = (0..1000).map(|n| (n, n * n)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_pipeline_handles_nothing_and_a_partial_batch() {
        let mut none = Vec::new();
        ordered_pipeline(64, |_| (), |n: &u32| *n, |n, _| none.push(n));
        assert!(none.is_empty());
        let mut seen = Vec::new();
        ordered_pipeline(
            64,
            |emit| (0..5).for_each(&mut *emit),
            |n: &u32| *n + 1,
            |n, r| seen.push((n, r)),
        );
        assert_eq!(seen, vec![(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]);
    }

    #[test]
    fn a_panic_in_pipeline_work_is_not_swallowed() {
        let outcome = std::panic::catch_unwind(|| {
            ordered_pipeline(
                4,
                |emit| (0..200u32).for_each(&mut *emit),
                |n| {
                    assert!(*n != 50, "item 50");
                    *n
                },
                |_, _| {},
            )
        });
        assert!(outcome.is_err());
    }

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

//! Data parallelism for reading many records or documents of the archive at once (capture
//! exports, snapshots, dataset diffs, archive statistics): record reads and RDF parsing are
//! CPU-bound and independent.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Mutex, PoisonError, mpsc};

/// Batches handed out per worker and not yet consumed, at most: bounds memory when one
/// batch is slow and the others run ahead of it.
const IN_FLIGHT_PER_WORKER: usize = 4;

fn worker_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` over `items` on all cores, results in input order. A panic in `work` is
/// re-raised here rather than dropping that part's results, which would shift every later
/// result onto the wrong item.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = worker_count();
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

/// A batch's items and what `work` made of each (or the panic that stopped it).
type Done<T, R> = (u64, Vec<T>, std::thread::Result<Vec<R>>);

/// Runs `work` over every item of the batches `produce` emits, on all cores, while `produce`
/// goes on (on a thread of its own) and `consume` takes each batch with its results strictly
/// in the order the batches were emitted (on the calling thread). Unlike [`parallel_map`]
/// over consecutive batches, no core waits for the slowest item of a batch or for the
/// producer. `emit` blocks while `IN_FLIGHT_PER_WORKER` batches per worker are unconsumed.
/// A panic in `work` or `consume` is re-raised here once the threads have stopped.
pub fn ordered_pipeline<T: Send, R: Send, P: Send>(
    produce: impl FnOnce(&mut dyn FnMut(Vec<T>)) -> P + Send,
    work: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(Vec<T>, Vec<R>),
) -> P {
    let workers = worker_count();
    let in_flight = IN_FLIGHT_PER_WORKER * workers;
    let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Vec<T>)>(in_flight);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|scope| {
        let (ticket_tx, ticket_rx) = mpsc::sync_channel::<()>(in_flight);
        for _ in 0..in_flight {
            // Cannot block: the channel holds exactly `in_flight` tickets.
            let _ = ticket_tx.send(());
        }
        let (done_tx, done_rx) = mpsc::channel::<Done<T, R>>();
        let producer = scope.spawn(move || {
            let mut next = 0u64;
            let mut emit = |batch: Vec<T>| {
                // A closed ticket channel means the consumer is gone (it panicked): the
                // rest is dropped, and the panic is raised when the scope ends.
                if batch.is_empty() || ticket_rx.recv().is_err() {
                    return;
                }
                if job_tx.send((next, batch)).is_ok() {
                    next += 1;
                }
            };
            produce(&mut emit)
        });
        let (job_rx, work) = (&job_rx, &work);
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    let job = job_rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok((number, batch)) = job else { break };
                    let results =
                        catch_unwind(AssertUnwindSafe(|| batch.iter().map(work).collect()));
                    if done_tx.send((number, batch, results)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut waiting: BTreeMap<u64, (Vec<T>, std::thread::Result<Vec<R>>)> = BTreeMap::new();
        let mut next = 0u64;
        for (number, batch, results) in done_rx {
            waiting.insert(number, (batch, results));
            while let Some((batch, results)) = waiting.remove(&next) {
                consume(batch, results.unwrap_or_else(|panic| resume_unwind(panic)));
                next += 1;
                let _ = ticket_tx.send(());
            }
        }
        match producer.join() {
            Ok(outcome) => outcome,
            Err(panic) => resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{AssertUnwindSafe, ordered_pipeline, parallel_map};

    #[test]
    fn a_pipeline_consumes_every_batch_in_emitted_order() {
        let numbers: Vec<u64> = (0..10_000).collect();
        let mut seen = Vec::new();
        let produced = ordered_pipeline(
            |emit| {
                // Uneven batch sizes, one empty (skipped), so that workers finish out of order.
                let mut rest = &numbers[..];
                let mut size = 1;
                while !rest.is_empty() {
                    let (batch, tail) = rest.split_at(size.min(rest.len()));
                    emit(batch.to_vec());
                    emit(Vec::new());
                    rest = tail;
                    size = size % 97 + 13;
                }
                numbers.len()
            },
            |n| {
                if n % 1000 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                n * 3
            },
            |batch, results| {
                assert_eq!(batch.len(), results.len());
                for (n, tripled) in batch.iter().zip(results) {
                    assert_eq!(tripled, n * 3);
                    seen.push(*n);
                }
            },
        );
        assert_eq!(produced, numbers.len());
        assert_eq!(seen, numbers);
    }

    #[test]
    fn a_panic_in_pipeline_work_reaches_the_caller_without_a_hang() {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            ordered_pipeline(
                |emit| {
                    for n in 0..100_000u32 {
                        emit(vec![n]);
                    }
                },
                |n| {
                    assert!(*n != 50, "item 50");
                    *n
                },
                |_, _| {},
            )
        }));
        let panic = outcome.expect_err("the panic in work is re-raised");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"item 50"));
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

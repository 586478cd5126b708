//! An experiment's configurations run side by side: each configuration is its own simulation
//! (its own device, workload source and seed), so running several at once on threads changes
//! nothing in any result — only the wall-clock time. Results come back in the configurations'
//! order, and an error is the one a sequential run would have stopped at.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::config::DeviceConfig;
use crate::error::Result;
use crate::sim::{memory_budget, memory_estimate, SimOptions};

/// `jobs` as the experiment commands take it: 0 = one per CPU.
pub const AUTO_JOBS: usize = 0;

/// How many of `items` configurations to run at once: `requested` (0: one per CPU), at most
/// `items`, and no more than the memory budget holds of the largest configuration (each
/// running simulation holds its whole device state), at least 1.
pub fn jobs_for(
    requested: usize,
    items: usize,
    devices: &[DeviceConfig],
    opts: &SimOptions,
) -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let largest = devices
        .iter()
        .map(|d| memory_estimate(d, opts).total())
        .max()
        .unwrap_or(0);
    // An unreadable budget (a malformed SSDLAB_MEMORY_LIMIT) is reported by the simulations
    // themselves, on one line; here it only means no cap.
    let avail = memory_budget().ok().flatten().map(|a| a.bytes);
    jobs_within(requested, items, cpus, largest, avail)
}

/// [`jobs_for`] with the machine's figures given: `cpus`, the largest configuration's memory
/// estimate and the bytes available (`None`: no budget).
fn jobs_within(
    requested: usize,
    items: usize,
    cpus: usize,
    largest: u64,
    avail: Option<u64>,
) -> usize {
    let wanted = if requested == AUTO_JOBS {
        cpus
    } else {
        requested
    };
    let mut jobs = wanted.min(items).max(1);
    if let (Some(avail), true) = (avail, largest > 0) {
        jobs = jobs.min(
            usize::try_from(avail / largest)
                .unwrap_or(usize::MAX)
                .max(1),
        );
    }
    jobs
}

/// How far an experiment has got, for a progress bar: the simulations done, of those known so
/// far (each stage of an experiment adds its own when it starts, so the total can grow). Read
/// from another thread while the experiment runs (the bindings' progress callback); it never
/// changes a result.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
}

impl Progress {
    /// `n` more simulations to come.
    pub fn add(&self, n: u64) {
        self.total.fetch_add(n, Ordering::Relaxed);
    }

    /// One of them done.
    pub fn one_done(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// (done, total) now.
    pub fn get(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

/// `f` applied to every item, on up to `jobs` threads, the results in item order; `progress`
/// counts the items (added when the map starts, done as each finishes). Items are taken in
/// order, so when item k fails every item before it has been run: the error returned is the
/// first in item order, as a sequential run's. No item after a failure is started.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    progress: &Progress,
    f: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    progress.add(items.len() as u64);
    let f = |item: &T| {
        let r = f(item);
        progress.one_done();
        r
    };
    if jobs <= 1 || items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<R>>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(items.len()) {
            s.spawn(|| {
                while !failed.load(Ordering::Acquire) {
                    let k = next.fetch_add(1, Ordering::AcqRel);
                    let Some(item) = items.get(k) else { break };
                    let r = f(item);
                    if r.is_err() {
                        failed.store(true, Ordering::Release);
                    }
                    slots.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(r);
                }
            });
        }
    });
    let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    // Taken in order: the slots are filled up to the first failure (and maybe beyond it).
    slots.into_iter().map_while(|r| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SsdError;

    #[test]
    fn results_in_item_order_whatever_the_jobs() {
        let items: Vec<u64> = (0..23).collect();
        let f = |&x: &u64| -> Result<u64> {
            // Uneven work, so that threads finish out of order.
            let mut h = x;
            for _ in 0..(x % 5) * 20_000 {
                h = h.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            std::hint::black_box(h);
            Ok(x * 1000)
        };
        let one = map(&items, 1, &Progress::default(), f).unwrap();
        for jobs in [2, 3, 8, 64] {
            assert_eq!(
                map(&items, jobs, &Progress::default(), f).unwrap(),
                one,
                "jobs {jobs}"
            );
        }
        assert_eq!(one[7], 7000);
    }

    #[test]
    fn the_first_error_in_item_order() {
        let items: Vec<u32> = (0..40).collect();
        let f = |&x: &u32| -> Result<u32> {
            if x == 9 || x == 30 {
                Err(SsdError::Invalid(format!("item {x}")))
            } else {
                Ok(x)
            }
        };
        for jobs in [1, 2, 4] {
            let e = map(&items, jobs, &Progress::default(), f)
                .unwrap_err()
                .to_string();
            assert!(e.contains("item 9"), "jobs {jobs}: {e}");
        }
    }

    #[test]
    fn jobs_are_bounded_by_cpus_items_and_memory_and_at_least_one() {
        // (requested, items, cpus, largest estimate, available) -> jobs
        for (req, items, cpus, largest, avail, want) in [
            (AUTO_JOBS, 7, 2, 100, None, 2),
            (AUTO_JOBS, 7, 16, 100, None, 7),
            (5, 2, 1, 100, None, 2),
            (1, 7, 8, 100, None, 1),
            (3, 0, 8, 100, None, 1),
            (AUTO_JOBS, 7, 4, 100, Some(350), 3),
            (AUTO_JOBS, 7, 4, 100, Some(150), 1),
            (AUTO_JOBS, 7, 4, 100, Some(50), 1),
            (6, 7, 1, 0, Some(10), 6),
        ] {
            assert_eq!(
                jobs_within(req, items, cpus, largest, avail),
                want,
                "{req} {items} {cpus} {largest} {avail:?}"
            );
        }
        let opts = SimOptions::default();
        assert_eq!(jobs_for(5, 2, &[], &opts), 2);
        assert!(jobs_for(AUTO_JOBS, 64, &[], &opts) >= 1);
    }
}

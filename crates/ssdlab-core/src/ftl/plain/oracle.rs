//! Future knowledge for the `oracle` placement: the workload is materialised in memory and,
//! for every host page write, the index of the same page's next write is precomputed.

use crate::error::Result;
use crate::ftl::map::NEVER;
use crate::trace::{OpKind, RequestSource, VecSource};

/// Next-write times of every host page write of the workload, in order.
pub struct OracleHints {
    next: Vec<u64>,
    cursor: usize,
    /// Host-write clock of the FTL when the measured phase starts.
    offset: u64,
}

impl OracleHints {
    /// Drain `source` (returned as an in-memory source) and index its page writes.
    pub fn build(
        mut source: Box<dyn RequestSource>,
        page_size: u64,
        logical_pages: u64,
    ) -> Result<(Box<dyn RequestSource>, Self)> {
        let mut reqs = Vec::new();
        while let Some(r) = source.next_request()? {
            reqs.push(r);
        }
        let mut writes: Vec<u64> = Vec::new();
        for r in &reqs {
            if r.op == OpKind::Write && r.size_bytes > 0 {
                let first = r.offset_bytes / page_size;
                let last = (r.offset_bytes + r.size_bytes - 1) / page_size;
                writes.extend(first..=last);
            }
        }
        let mut next = vec![NEVER; writes.len()];
        let mut seen = vec![NEVER; logical_pages as usize];
        for (i, &lpn) in writes.iter().enumerate().rev() {
            if let Some(slot) = seen.get_mut(lpn as usize) {
                next[i] = *slot;
                *slot = i as u64;
            }
        }
        Ok((
            Box::new(VecSource::new(reqs)),
            OracleHints {
                next,
                cursor: 0,
                offset: 0,
            },
        ))
    }

    pub fn set_offset(&mut self, clock: u64) {
        self.offset = clock;
    }

    /// The next-write clock of the next host page write.
    #[inline]
    pub fn next_hint(&mut self) -> u64 {
        let h = self.next.get(self.cursor).copied().unwrap_or(NEVER);
        self.cursor += 1;
        if h == NEVER {
            NEVER
        } else {
            h + self.offset
        }
    }
}

//! Future knowledge of a trace, precomputed once: the write sequence the model replays (optional
//! sequential prefill, then the trace) and, for every write position, the position of the next
//! write to the same logical page — the "death" time of the data written there (Shafaei &
//! Desnoyers, §II, "page lifetime"). All per-slot and per-block death-time queries of the
//! pruning (§III-A) are O(1) lookups in this table; the trace is never rescanned.

/// Death time of data that is never overwritten: a *static* page (§II, LBA 1 of Fig. 3).
pub const NEVER: u32 = u32::MAX;

/// The write sequence and its next-write index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FutureIndex {
    ops: Vec<u32>,
    next_write: Vec<u32>,
    prefill_len: u32,
}

impl FutureIndex {
    /// Build from the trace; `prefill` prepends one sequential write of each of the
    /// `logical_pages` pages (§IV-C: "initialized by prepending sequential writes to the entire
    /// LBA space"). The caller has already checked every page number is `< logical_pages` and
    /// that the total length fits in a `u32`.
    pub fn new(trace: &[u32], logical_pages: u32, prefill: bool) -> Self {
        let prefill_len = if prefill { logical_pages } else { 0 };
        let mut ops = Vec::with_capacity(prefill_len as usize + trace.len());
        ops.extend(0..prefill_len);
        ops.extend_from_slice(trace);
        let mut next_write = vec![NEVER; ops.len()];
        let mut last_seen = vec![NEVER; logical_pages as usize];
        for i in (0..ops.len()).rev() {
            let lpn = ops[i] as usize;
            next_write[i] = last_seen[lpn];
            last_seen[lpn] = i as u32;
        }
        FutureIndex {
            ops,
            next_write,
            prefill_len,
        }
    }

    /// The full write sequence (prefill then trace).
    #[inline]
    pub fn ops(&self) -> &[u32] {
        &self.ops
    }

    /// Number of writes in the sequence.
    #[inline]
    pub fn len(&self) -> u32 {
        self.ops.len() as u32
    }

    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Number of leading prefill writes.
    pub fn prefill_len(&self) -> u32 {
        self.prefill_len
    }

    /// Death time of the data written at position `t` (the next write to the same page), or
    /// [`NEVER`] if it is static. Positions past the end are treated as never written.
    #[inline]
    pub fn death(&self, t: u32) -> u32 {
        self.next_write.get(t as usize).copied().unwrap_or(NEVER)
    }

    /// Whether the data written at `t` is static (never overwritten).
    #[inline]
    pub fn is_static(&self, t: u32) -> bool {
        self.death(t) == NEVER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_future_next_write_matches_scan() {
        let trace = [1, 2, 3, 2, 4, 0, 3, 2, 1];
        let f = FutureIndex::new(&trace, 5, false);
        for i in 0..trace.len() {
            let expect = (i + 1..trace.len())
                .find(|&j| trace[j] == trace[i])
                .map_or(NEVER, |j| j as u32);
            assert_eq!(f.death(i as u32), expect, "position {i}");
        }
        let g = FutureIndex::new(&trace, 5, true);
        assert_eq!(g.len(), 14);
        assert_eq!(g.death(0), 5 + 5); // prefill write of page 0 dies at trace position 5
        assert!(g.is_static(4 + 5)); // trace write of page 4 is never overwritten
    }
}

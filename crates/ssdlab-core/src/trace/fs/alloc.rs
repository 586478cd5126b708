//! The file-system model's space: one partition of the logical space in allocation clusters,
//! its free extents, next-fit allocation with a rotating cursor, files as extent lists, and the
//! set of extents the host has deleted but not yet TRIMmed ("pending").
//!
//! **Next-fit with a rotating cursor.** A new file takes the first free extent at or after the
//! cursor that holds it whole (classic next-fit, Knuth, TAOCP vol. 1 §2.5: first fit from a
//! roving pointer; ext4's mballoc likewise looks for a contiguous extent of the request's
//! length), wrapping at the end of the partition; only when no free extent is large enough is
//! the file split over free extents in address order from the cursor. The cursor then moves
//! past it. This is the placement that matters for TRIM: ext4's allocators spread new files over the partition
//! (Orlov spreads directories over block groups, mballoc's goals move on with each allocation),
//! and log-structured file systems (F2FS, NILFS) write at a log head that sweeps the whole
//! space. Either way a freed extent is not written again until the allocation point comes
//! round to it, so it stays valid — stale — on the device until then, unless a TRIM tells the
//! device. An allocator that always reused the lowest free blocks (first-fit) would overwrite
//! freed space at once and hide the effect TRIM has. A file that grows (an append) first takes
//! the clusters right after its last extent when they are free (ext4's goal block: files stay
//! contiguous), and only then goes to the cursor.
//!
//! **Clusters.** The allocation unit is the least common multiple of the 4 KiB file-system
//! block and the device page (ext4's `bigalloc` clusters). A TRIM can only invalidate whole
//! mapping units, and Linux drops the parts of a discard smaller than the device's discard
//! granularity; with 4 KiB blocks on 8 KiB pages two files would share a page, a deleted
//! file's half-page could never be trimmed, and a TRIM rounded out to the page would discard a
//! neighbour's live data. On 4 KiB pages a cluster is the 4 KiB block.
//!
//! **Pending extents.** Deleting a file frees its extents and (unless TRIMmed at once, the
//! `discard` mount option) adds them to the pending set, coalesced. Allocating a pending
//! cluster removes it from the set and counts it as *reallocated*: the device sees an
//! overwrite, which invalidates the old data as a TRIM would have, only later. So at any time
//! `deleted = trimmed + pending + reallocated` (in clusters), pending ∩ live = ∅ and
//! pending ⊆ free.

use std::collections::BTreeMap;

/// The file-system block: every request is a multiple of it, at a multiple of it.
pub(crate) const FS_BLOCK: u64 = 4096;

/// A run of clusters `[start, start + len)` of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extent {
    pub start: u64,
    pub len: u64,
}

impl Extent {
    fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// Disjoint, coalesced extents (start → length), with their total.
#[derive(Debug, Default, Clone)]
pub(crate) struct ExtentSet {
    map: BTreeMap<u64, u64>,
    total: u64,
}

impl ExtentSet {
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn iter(&self) -> impl Iterator<Item = Extent> + '_ {
        self.map.iter().map(|(&start, &len)| Extent { start, len })
    }

    /// Adds `e`, which must not overlap the set; merges it with its neighbours.
    pub fn insert(&mut self, e: Extent) {
        if e.len == 0 {
            return;
        }
        self.total += e.len;
        let (mut start, mut len) = (e.start, e.len);
        if let Some((&s, &l)) = self.map.range(..start).next_back() {
            if s + l == start {
                self.map.remove(&s);
                start = s;
                len += l;
            }
        }
        if let Some(l) = self.map.remove(&(e.start + e.len)) {
            len += l;
        }
        self.map.insert(start, len);
    }

    /// Removes the part of the set inside `e`; returns how many clusters that was.
    pub fn remove(&mut self, e: Extent) -> u64 {
        let mut hit: Vec<(u64, u64)> = Vec::new();
        if let Some((&s, &l)) = self.map.range(..e.start).next_back() {
            if s + l > e.start {
                hit.push((s, l));
            }
        }
        hit.extend(self.map.range(e.start..e.end()).map(|(&s, &l)| (s, l)));
        let mut removed = 0;
        for (s, l) in hit {
            self.map.remove(&s);
            let (lo, hi) = (s.max(e.start), (s + l).min(e.end()));
            removed += hi - lo;
            if s < lo {
                self.map.insert(s, lo - s);
            }
            if hi < s + l {
                self.map.insert(hi, s + l - hi);
            }
        }
        self.total -= removed;
        removed
    }

    /// Empties the set, returning its extents in address order.
    pub fn take_all(&mut self) -> Vec<Extent> {
        let out = self.iter().collect();
        self.map.clear();
        self.total = 0;
        out
    }

    /// The extent containing cluster `c`, else the first one after it.
    fn at_or_after(&self, c: u64) -> Option<Extent> {
        if let Some((&s, &l)) = self.map.range(..=c).next_back() {
            if s + l > c {
                return Some(Extent { start: s, len: l });
            }
        }
        self.map
            .range(c..)
            .next()
            .map(|(&start, &len)| Extent { start, len })
    }
}

/// A file: its size in bytes and the clusters holding it, in file order.
#[derive(Debug, Default, Clone)]
pub(crate) struct File {
    pub size: u64,
    pub extents: Vec<Extent>,
}

impl File {
    pub fn clusters(&self) -> u64 {
        self.extents.iter().map(|e| e.len).sum()
    }
}

/// A piece of a transfer: `len` bytes at device byte `dev`, `logical` bytes into what is
/// transferred (the file offset, or for TRIMs the offset in the partition) — chunk boundaries
/// are counted in `logical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seg {
    pub dev: u64,
    pub len: u64,
    pub logical: u64,
}

/// One partition: `clusters` clusters of `cluster` bytes from device byte `base`.
#[derive(Debug, Clone)]
pub(crate) struct Partition {
    pub base: u64,
    pub cluster: u64,
    pub clusters: u64,
    free: ExtentSet,
    pending: ExtentSet,
    cursor: u64,
    /// Clusters deleted, trimmed (queued as TRIMs), and reallocated while pending.
    pub deleted: u64,
    pub trimmed: u64,
    pub reallocated: u64,
}

impl Partition {
    /// An empty partition (every cluster free, nothing pending, the cursor at its start).
    pub fn new(base: u64, cluster: u64, clusters: u64) -> Self {
        let mut free = ExtentSet::default();
        free.insert(Extent {
            start: 0,
            len: clusters,
        });
        Partition {
            base,
            cluster,
            clusters,
            free,
            pending: ExtentSet::default(),
            cursor: 0,
            deleted: 0,
            trimmed: 0,
            reallocated: 0,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.clusters * self.cluster
    }
    pub fn free_clusters(&self) -> u64 {
        self.free.total()
    }
    pub fn pending_clusters(&self) -> u64 {
        self.pending.total()
    }
    pub fn pending(&self) -> impl Iterator<Item = Extent> + '_ {
        self.pending.iter()
    }

    /// Grows `file` to `new_size` bytes, allocating the clusters it lacks (goal: right after
    /// its last extent, then next-fit from the cursor). A full partition is an error message
    /// and leaves the file and the partition as they were.
    pub fn grow(&mut self, file: &mut File, new_size: u64) -> Result<(), String> {
        let need = new_size
            .div_ceil(self.cluster)
            .saturating_sub(file.clusters());
        if need > self.free.total() {
            return Err(format!(
                "the {:.1} MiB partition is full: {} KiB more needed, {} KiB free",
                self.bytes() as f64 / 1048576.0,
                need * self.cluster / 1024,
                self.free.total() * self.cluster / 1024
            ));
        }
        let mut left = need;
        if let Some(last) = file.extents.last().copied() {
            if let Some(f) = self.free.at_or_after(last.end()) {
                if f.start == last.end() && left > 0 {
                    let take = left.min(f.len);
                    self.take(
                        file,
                        Extent {
                            start: f.start,
                            len: take,
                        },
                    );
                    left -= take;
                }
            }
        }
        if left > 0 {
            if let Some(from) = self.fit(left) {
                self.take(
                    file,
                    Extent {
                        start: from,
                        len: left,
                    },
                );
                self.cursor = (from + left) % self.clusters.max(1);
                left = 0;
            }
        }
        while left > 0 {
            // No free extent holds the rest whole: take free clusters in address order from
            // the cursor. `left` ≤ free clusters, so some extent exists; wrap to the start
            // when none is at or after the cursor.
            let Some(f) = self
                .free
                .at_or_after(self.cursor)
                .or_else(|| self.free.at_or_after(0))
            else {
                break;
            };
            let from = if f.start <= self.cursor && self.cursor < f.end() {
                self.cursor
            } else {
                f.start
            };
            let take = left.min(f.end() - from);
            self.take(
                file,
                Extent {
                    start: from,
                    len: take,
                },
            );
            self.cursor = (from + take) % self.clusters.max(1);
            left -= take;
        }
        file.size = new_size;
        Ok(())
    }

    /// Next-fit: the start of the first free run of `need` clusters at or after the cursor
    /// (the rest of the extent holding the cursor first), wrapping once.
    fn fit(&self, need: u64) -> Option<u64> {
        let c = self.cursor;
        if let Some(f) = self.free.at_or_after(c) {
            if f.start <= c && f.end() - c >= need {
                return Some(c);
            }
        }
        self.free
            .map
            .range(c..)
            .chain(self.free.map.range(..c))
            .find(|(_, &l)| l >= need)
            .map(|(&s, _)| s)
    }

    /// Moves free clusters `e` to `file` (merging with its last extent when contiguous).
    fn take(&mut self, file: &mut File, e: Extent) {
        self.free.remove(e);
        self.reallocated += self.pending.remove(e);
        match file.extents.last_mut() {
            Some(last) if last.end() == e.start => last.len += e.len,
            _ => file.extents.push(e),
        }
    }

    /// Frees a deleted file's clusters. Without `discard` they join the pending set; with it
    /// they count as trimmed at once and are returned for TRIM requests.
    pub fn delete(&mut self, file: File, discard: bool) -> Vec<Extent> {
        let mut trims = Vec::new();
        for e in file.extents {
            self.free.insert(e);
            self.deleted += e.len;
            if discard {
                self.trimmed += e.len;
                trims.push(e);
            } else {
                self.pending.insert(e);
            }
        }
        trims
    }

    /// Every pending extent, now counted as trimmed (the caller queues the TRIMs).
    pub fn take_pending(&mut self) -> Vec<Extent> {
        let v = self.pending.take_all();
        self.trimmed += v.iter().map(|e| e.len).sum::<u64>();
        v
    }

    /// The device ranges of bytes `[from, to)` of `file`, widened to whole 4 KiB blocks.
    pub fn segs(&self, file: &File, from: u64, to: u64) -> Vec<Seg> {
        let (lo, hi) = (from / FS_BLOCK * FS_BLOCK, to.div_ceil(FS_BLOCK) * FS_BLOCK);
        let mut out = Vec::new();
        let mut file_off = 0;
        for e in &file.extents {
            let (e_lo, e_hi) = (file_off, file_off + e.len * self.cluster);
            file_off = e_hi;
            let (a, b) = (lo.max(e_lo), hi.min(e_hi));
            if a < b {
                out.push(Seg {
                    dev: self.base + e.start * self.cluster + (a - e_lo),
                    len: b - a,
                    logical: a,
                });
            }
            if e_hi >= hi {
                break;
            }
        }
        out
    }

    /// The device range of extent `e`, with its offset in the partition as `logical`.
    pub fn seg_of(&self, e: Extent) -> Seg {
        Seg {
            dev: self.base + e.start * self.cluster,
            len: e.len * self.cluster,
            logical: e.start * self.cluster,
        }
    }

    /// The model's invariants given every live file's extents: live extents disjoint, inside
    /// the partition and disjoint from the free ones, free + live = all, pending ⊆ free, and
    /// `deleted = trimmed + pending + reallocated`.
    pub fn check<'a>(&self, live: impl Iterator<Item = &'a Extent>) -> Result<(), String> {
        let mut used: Vec<Extent> = live.copied().collect();
        used.sort_by_key(|e| e.start);
        let live_total: u64 = used.iter().map(|e| e.len).sum();
        for w in used.windows(2) {
            if w[0].end() > w[1].start {
                return Err(format!("live extents overlap: {:?} and {:?}", w[0], w[1]));
            }
        }
        if used.last().is_some_and(|e| e.end() > self.clusters) {
            return Err("a live extent ends beyond the partition".into());
        }
        for e in &used {
            if self.free.clone().remove(*e) > 0 {
                return Err(format!("live extent {e:?} is also free"));
            }
            if self.pending.clone().remove(*e) > 0 {
                return Err(format!("live extent {e:?} is also pending"));
            }
        }
        if live_total + self.free.total() != self.clusters {
            return Err(format!(
                "live {} + free {} != {} clusters",
                live_total,
                self.free.total(),
                self.clusters
            ));
        }
        for p in self.pending.iter() {
            if self.free.clone().remove(p) != p.len {
                return Err(format!("pending extent {p:?} is not free"));
            }
        }
        if self.deleted != self.trimmed + self.pending.total() + self.reallocated {
            return Err(format!(
                "deleted {} != trimmed {} + pending {} + reallocated {}",
                self.deleted,
                self.trimmed,
                self.pending.total(),
                self.reallocated
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(start: u64, len: u64) -> Extent {
        Extent { start, len }
    }

    #[test]
    fn extent_sets_coalesce_and_split() {
        let mut s = ExtentSet::default();
        s.insert(ext(10, 5));
        s.insert(ext(0, 5));
        s.insert(ext(5, 5));
        assert_eq!(s.iter().collect::<Vec<_>>(), [ext(0, 15)]);
        assert_eq!(s.remove(ext(3, 4)), 4);
        assert_eq!(s.iter().collect::<Vec<_>>(), [ext(0, 3), ext(7, 8)]);
        assert_eq!(s.remove(ext(20, 4)), 0);
        assert_eq!(s.remove(ext(0, 100)), 11);
        assert_eq!(s.total(), 0);
    }

    #[test]
    fn next_fit_rotates_and_pending_space_is_reused_only_when_the_cursor_comes_round() {
        let mut p = Partition::new(1 << 20, 4096, 10);
        let mut a = File::default();
        p.grow(&mut a, 3 * 4096).unwrap();
        let mut b = File::default();
        p.grow(&mut b, 3 * 4096).unwrap();
        assert_eq!((a.extents[0], b.extents[0]), (ext(0, 3), ext(3, 3)));
        assert!(p.delete(a, false).is_empty());
        assert_eq!(p.pending_clusters(), 3);
        // Next-fit: the next file goes after b, not into a's freed clusters.
        let mut c = File::default();
        p.grow(&mut c, 4 * 4096).unwrap();
        assert_eq!(c.extents, [ext(6, 4)]);
        assert_eq!(p.pending_clusters(), 3);
        // The cursor wraps: the next file overwrites a's pending clusters.
        let mut d = File::default();
        p.grow(&mut d, 2 * 4096).unwrap();
        assert_eq!(d.extents, [ext(0, 2)]);
        assert_eq!((p.pending_clusters(), p.reallocated), (1, 2));
        let live = [&b, &c, &d];
        p.check(live.iter().flat_map(|f| f.extents.iter())).unwrap();
        // Full: an error, nothing changed.
        let mut e = File::default();
        let msg = p.grow(&mut e, 2 * 4096).unwrap_err();
        assert!(msg.contains("is full"), "{msg}");
        assert!(e.extents.is_empty());
        // An append takes the clusters right after the file when they are free.
        p.grow(&mut d, 3 * 4096).unwrap();
        assert_eq!(d.extents, [ext(0, 3)]);
        assert_eq!(p.take_pending(), []);
        assert_eq!(p.trimmed, 0);
        p.check([&b, &c, &d].iter().flat_map(|f| f.extents.iter()))
            .unwrap();
    }

    #[test]
    fn a_new_file_goes_to_the_first_hole_that_holds_it_after_the_cursor() {
        let mut p = Partition::new(0, 4096, 14);
        let mut files: Vec<File> = (0..7)
            .map(|_| {
                let mut f = File::default();
                p.grow(&mut f, 2 * 4096).unwrap();
                f
            })
            .collect();
        // Holes of 2 (clusters 2..4) and 4 (6..10); the cursor has wrapped to 0.
        for i in [1, 3, 4] {
            p.delete(std::mem::take(&mut files[i]), false);
        }
        let mut f = File::default();
        p.grow(&mut f, 3 * 4096).unwrap();
        assert_eq!(f.extents, [ext(6, 3)]);
        let mut g = File::default();
        p.grow(&mut g, 2 * 4096).unwrap(); // cluster 9 is too small: wrap to 2..4
        assert_eq!(g.extents, [ext(2, 2)]);
        p.delete(std::mem::take(&mut files[6]), false);
        let mut h = File::default();
        p.grow(&mut h, 3 * 4096).unwrap(); // no hole of 3: split from the cursor
        assert_eq!(h.extents, [ext(9, 1), ext(12, 2)]);
        let live = [&files[0], &files[2], &files[5], &f, &g, &h];
        p.check(live.iter().flat_map(|f| f.extents.iter())).unwrap();
    }

    #[test]
    fn a_file_split_over_free_extents_maps_bytes_to_block_aligned_segments() {
        let mut p = Partition::new(8192, 8192, 8);
        let mut a = File::default();
        p.grow(&mut a, 8192).unwrap(); // cluster 0
        let mut b = File::default();
        p.grow(&mut b, 8192).unwrap(); // cluster 1
        p.delete(a, false);
        let mut c = File::default();
        p.grow(&mut c, 7 * 8192).unwrap(); // clusters 2..8, then 0
        assert_eq!(c.extents, [ext(2, 6), ext(0, 1)]);
        let s = p.segs(&c, 6 * 8192 - 100, 6 * 8192 + 5000);
        assert_eq!(
            s,
            [
                Seg {
                    dev: 8192 + 7 * 8192 + 4096,
                    len: 4096,
                    logical: 6 * 8192 - 4096
                },
                Seg {
                    dev: 8192,
                    len: 8192,
                    logical: 6 * 8192
                }
            ]
        );
        let trims = p.delete(c, true);
        assert_eq!(trims, [ext(2, 6), ext(0, 1)]);
        assert_eq!(p.trimmed, 7);
        assert_eq!(p.deleted, 8);
    }
}

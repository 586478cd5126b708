//! Sampling the time series: by simulated time in timed runs, by host page writes otherwise.

use super::Simulation;

impl Simulation {
    pub(crate) fn sample_timed(&mut self, now: u64) {
        if now >= self.rec.next_sample {
            let period = (self.options().sample_interval_us * 1000.0).max(1.0) as u64;
            self.sample_now(false);
            self.rec.next_sample = (now / period + 1) * period;
        }
    }

    pub(crate) fn sample_untimed(&mut self) {
        let host = self.device.map().counters.host_pages_written;
        if host >= self.rec.next_sample {
            let every = match self.options().sample_every_pages {
                0 => (self.logical_pages / 20).max(1),
                n => n,
            };
            self.sample_now(false);
            self.rec.next_sample = (host / every + 1) * every;
        }
    }

    /// Append one sample (the final one is forced, unless it would repeat the last).
    pub(crate) fn sample_now(&mut self, last: bool) {
        let c = self.device.map().counters;
        if last
            && self.rec.series.host_pages.last() == Some(&c.host_pages_written)
            && self.rec.series.requests.last().is_some()
        {
            return;
        }
        let t = if self.options().timing {
            self.host.last_arrival() as f64 / 1e9
        } else {
            0.0
        };
        let free = self.device.free_blocks();
        let erases = self.device.erases();
        let dirty = self.device.dirty_pages();
        let total = self.rec.counts.total;
        let r = &mut self.rec;
        let s = &mut r.series;
        s.time_s.push(t);
        s.host_pages.push(c.host_pages_written);
        s.free_blocks.push(free);
        let waf = if c.host_pages_written == 0 {
            0.0
        } else {
            c.flash_writes() as f64 / c.host_pages_written as f64
        };
        s.waf.push(waf);
        s.gc_pages.push(c.gc_pages_copied - r.cursor.gc_pages);
        s.erases.push(erases - r.cursor.erases);
        s.requests.push(total - r.cursor.requests);
        if let Some(d) = dirty {
            s.dirty_pages.push(d);
        }
        r.cursor.gc_pages = c.gc_pages_copied;
        r.cursor.erases = erases;
        r.cursor.requests = total;
    }
}

//! Tiny-Tail Flash's stacks (Yan et al., FAST 2017, the paper's Base → +PB → +GTR → +GTF → +RGC
//! progression) as settings of the device's layers: a stack names mechanisms joined with `+`,
//! and each mechanism is a choice at one layer — `rain` the FTL (`ftl.kind = "rain"`), `pb`
//! and `nogc` the flash (`[flash]`), `gtf` the write cache (`write_cache.flush = "gc-aware"`),
//! `gtr`, `rgc`, `pfg`, `rf` the RAIN FTL's own (`[rain]`).

use super::{CacheMode, DeviceConfig, EvictionKind, FlushPolicy, FtlKind, GcBlocking, RainConfig};

/// The names [`DeviceConfig::with_stack`] takes, joined with `+` (`base` and `ttflash` are
/// stacks of their own; the rest switch one mechanism on).
pub const MECHANISMS: [&str; 10] = [
    "base", "ttflash", "rain", "pb", "gtr", "gtf", "rgc", "pfg", "rf", "nogc",
];

impl DeviceConfig {
    /// This device with the layers of `spec`: `nogc`, `base`, `pb`, `pb+gtr`, `pb+gtr+gtf`,
    /// `ttflash` (= rain+pb+gtr+gtf+rgc), or any `+` list of [`MECHANISMS`]. `base` is none of
    /// them (channel-blocking GC, the plain FTL, no buffer). `gtr` implies `rain` (it needs
    /// parity). What a stack does not name is the device's own: the RAIN section's layout,
    /// open-parity and parity-space choices, the write cache's size, watermark and DRAM.
    ///
    /// `gtf` is Tiny-Tail's buffer: the write cache in write-back mode with the GC-aware
    /// flush, first in first out (the paper's buffer flushes in arrival order), capacitor-backed
    /// ("capacitor-backed RAM", §4), a buffer rather than a cache (a page's slot is free once
    /// it is on flash: `keep_clean = false`), flushing while above `flush_high` (`flush_low`
    /// set to it: the authors' SSDsim flushes in the background while the buffer is over its
    /// threshold).
    pub fn with_stack(&self, spec: &str) -> Result<DeviceConfig, String> {
        let mut c = self.clone();
        c.ftl.kind = FtlKind::Plain;
        c.flash.gc_blocking = GcBlocking::Channel;
        c.flash.nogc = false;
        c.rain = RainConfig {
            gtr: false,
            rgc: false,
            parallel_forced_gc: false,
            rotating_flush: false,
            ..self.rain.clone()
        };
        c.write_cache.mode = CacheMode::Off;
        let mut gtf = false;
        for part in spec.split('+').map(str::trim) {
            match part {
                "base" => {}
                "ttflash" => {
                    c.ftl.kind = FtlKind::Rain;
                    c.flash.gc_blocking = GcBlocking::Plane;
                    c.rain.gtr = true;
                    gtf = true;
                    c.rain.rgc = true;
                }
                "rain" => c.ftl.kind = FtlKind::Rain,
                "pb" => c.flash.gc_blocking = GcBlocking::Plane,
                "gtr" => {
                    c.rain.gtr = true;
                    c.ftl.kind = FtlKind::Rain;
                }
                "gtf" => gtf = true,
                "rgc" => c.rain.rgc = true,
                "pfg" => c.rain.parallel_forced_gc = true,
                "rf" => c.rain.rotating_flush = true,
                "nogc" => {
                    c.flash.nogc = true;
                    c.flash.gc_blocking = GcBlocking::Plane;
                }
                other => {
                    return Err(format!(
                        "unknown mechanism '{other}'; expected one of {}",
                        MECHANISMS.join(", ")
                    ))
                }
            }
        }
        if gtf {
            let w = &mut c.write_cache;
            w.mode = CacheMode::WriteBack;
            w.flush = FlushPolicy::GcAware;
            w.eviction = EvictionKind::Fifo;
            w.volatile = false;
            w.keep_clean = false;
            w.flush_low = w.flush_high;
        }
        Ok(c)
    }

    /// Does this device have Tiny-Tail's buffer (the GC-aware write cache)?
    pub fn has_gtf(&self) -> bool {
        self.write_cache.on() && self.write_cache.flush == FlushPolicy::GcAware
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_set_each_layer_and_impossible_ones_are_refused() {
        let d = DeviceConfig::from_preset("ttflash-small", &[]).unwrap();
        let tt = d.with_stack("ttflash").unwrap();
        assert_eq!(tt.ftl.kind, FtlKind::Rain);
        assert!(tt.rain.gtr && tt.rain.rgc && !tt.rain.parallel_forced_gc && tt.has_gtf());
        assert_eq!(tt.flash.gc_blocking, GcBlocking::Plane);
        assert_eq!(
            (tt.write_cache.eviction, tt.write_cache.volatile),
            (EvictionKind::Fifo, false)
        );
        assert_eq!(
            tt.write_cache.size_mib, d.write_cache.size_mib,
            "the device's size"
        );
        tt.validate("tt").unwrap();
        let base = d.with_stack("base").unwrap();
        assert_eq!(base.flash.gc_blocking, GcBlocking::Channel);
        assert_eq!((base.ftl.kind, base.has_gtf()), (FtlKind::Plain, false));
        let pfg = d.with_stack("ttflash+pfg").unwrap();
        assert!(pfg.rain.parallel_forced_gc);
        pfg.validate("pfg").unwrap();
        assert_eq!(
            d.with_stack("pb+gtr").unwrap().ftl.kind,
            FtlKind::Rain,
            "gtr implies rain"
        );
        let e = d.with_stack("pb+fast").unwrap_err();
        assert!(e.contains("'fast'") && e.contains("pfg"), "{e}");
        let e = d
            .with_stack("pb+pfg")
            .unwrap()
            .validate("x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rain.parallel_forced_gc"), "{e}");
        // The rotating flush and parallel forced GC run on the super-block GC's chain.
        for (stack, field) in [
            ("ttflash+rf", "rain.rotating_flush"),
            ("ttflash+pfg", "rain.parallel_forced_gc"),
        ] {
            let mut c = d.with_stack(stack).unwrap();
            c.validate("ok").unwrap();
            c.rain.layout = super::super::RainLayout::Logical;
            let e = c.validate("x").unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("super-block"), "{e}");
        }
    }
}

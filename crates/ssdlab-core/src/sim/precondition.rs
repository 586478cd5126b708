//! Preconditioning: bring the device to GC steady state before measuring, FTL only (no timing),
//! with blocking GC. Sequential fill of the logical space, then uniformly random overwrites.

use rand::Rng;

use super::Precondition;
use crate::error::Result;
use crate::ftl::Ftl;
use crate::gc::GcContext;
use crate::rng;

/// Run the preconditioning writes; returns how many host pages it wrote.
pub fn run(ftl: &mut Ftl, p: &Precondition, seed: u64) -> Result<u64> {
    let mut rng = rng::stream(seed, "precondition");
    let mut gc_rng = rng::stream(seed, "precondition-gc");
    let n = ftl.logical_pages();
    let mut written = 0u64;
    if p.sequential {
        for lpn in 0..n {
            write_one(ftl, lpn, &mut gc_rng)?;
        }
        written += u64::from(n);
    }
    let random = (p.random_passes * f64::from(n)).round() as u64;
    for _ in 0..random {
        let lpn = rng.gen_range(0..n);
        write_one(ftl, lpn, &mut gc_rng)?;
    }
    Ok(written + random)
}

/// One host page write with blocking GC, timing off: the timing-free fast path.
#[inline]
pub fn write_one(ftl: &mut Ftl, lpn: u32, gc_rng: &mut crate::rng::SimRng) -> Result<()> {
    let plane = GcContext {
        ftl: &mut *ftl,
        res: None,
        rng: &mut *gc_rng,
    }
    .host_plane(lpn, 0)?;
    ftl.write_host(lpn, plane)?;
    if ftl.needs_gc(plane) {
        ftl.gc_until_threshold(plane, gc_rng, |_| {})?;
    }
    Ok(())
}

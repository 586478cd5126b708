//! Page types (`flash.page_types`): each page of a block reads and programs in its type's time,
//! the types following the block's program order (`timing.<mode>.page_order`). Timed exactly
//! on idle planes of `mqsim-small` (MLC, shadow order: read 64.3/85.7 µs, program 405/1095 µs)
//! and `tiny` (TLC, round times: read 30/50/70 µs, program 100/400/1000 µs, 10 µs transfer).

use ssdlab_core::config::{DeviceConfig, PageOrder};
use ssdlab_core::flash::Resources;
use ssdlab_core::sim::SimOptions;
use ssdlab_core::trace::{OpKind, Request};

use crate::support::workloads::page_request as req;
use crate::support::workloads::{open_loop as open, run_requests as run};

const US: u64 = 1_000;

fn device(preset: &str, extra: &[&str]) -> DeviceConfig {
    let mut sets = vec!["flash.page_types=true".to_string()];
    sets.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::from_preset(preset, &sets).unwrap()
}

/// `tiny` with whole TLC word lines in a block (48 pages).
fn tiny(extra: &[&str]) -> DeviceConfig {
    let mut sets = vec!["geometry.pages_per_block=48"];
    sets.extend(extra);
    device("tiny", &sets)
}

#[test]
fn a_blocks_program_sequence_sums_to_the_datasheets_block_program_time() {
    let cfg = device("mqsim-small", &[]);
    let mut res = Resources::new(&cfg);
    let xfer = res.times().transfer_ns;
    // The 128 pages of plane 0's first block, back to back from an idle plane: each page's
    // transfer, then its program.
    let mut done = 0;
    let mut programs = Vec::new();
    for ppn in 0..128 {
        let d = res.write_page(0, ppn, done).done;
        programs.push(d - done - xfer);
        done = d;
    }
    // 64 word lines of an LSB (405 µs) and an MSB (1,095 µs) page: the block's program time,
    // equal to 128 programs of the mean 750 µs that the preset keeps.
    assert_eq!(done, 128 * xfer + 64 * (405 + 1095) * US);
    assert_eq!(done, 128 * (xfer + 750 * US));
    // In shadow order: LSB 0, LSB 1, MSB 0, LSB 2, MSB 1, …, the last word line's MSB last.
    let (l, m) = (405 * US, 1095 * US);
    assert_eq!(programs[..6], [l, l, m, l, m, l]);
    assert_eq!(programs[126..], [m, m]);
}

#[test]
fn reads_take_their_page_types_time_on_an_idle_plane() {
    let mut res = Resources::new(&device("mqsim-small", &[]));
    let xfer = res.times().transfer_ns;
    // Page 1 is an LSB page, page 2 an MSB page (shadow order); each read alone on its plane.
    assert_eq!(res.read_page(0, 1, 0).done, 64_300 + xfer);
    // (Plane 4 is on channel 1: no transfer waits for the other's.)
    assert_eq!(res.read_page(4, 4 * 128 * 512 + 2, 0).done, 85_700 + xfer);
    // Pages of another block take the same types by their place.
    assert_eq!(res.read_ns_of(128 * 7 + 2), 85_700);
}

#[test]
fn word_line_order_cycles_lsb_csb_msb() {
    let res = Resources::new(&tiny(&[]));
    let reads: Vec<u64> = (0..6).map(|p| res.read_ns_of(p) / US).collect();
    let programs: Vec<u64> = (0..6).map(|p| res.program_ns_of(p) / US).collect();
    assert_eq!(reads, [30, 50, 70, 30, 50, 70]);
    assert_eq!(programs, [100, 400, 1000, 100, 400, 1000]);
    // The same device in shadow order: L0, L1, C0, L2, C1, M0, …
    let res = Resources::new(&tiny(&["timing.tlc.page_order=\"shadow\""]));
    let programs: Vec<u64> = (0..6).map(|p| res.program_ns_of(p) / US).collect();
    assert_eq!(programs, [100, 100, 400, 100, 400, 1000]);
}

#[test]
fn a_gc_copy_reads_the_victims_page_and_programs_the_destinations() {
    // Copy-back: the victim page's read (an MSB page, 85.7 µs) then the destination's program
    // (an LSB page, 405 µs), inside the plane.
    let mut res = Resources::new(&device("mqsim-small", &[]));
    assert_eq!(
        res.gc_copy_page(0, 0, Some(2), Some(128)),
        85_700 + 405 * US
    );
    // A read alone (the destination page not yet full), then a program alone.
    assert_eq!(res.gc_copy_page(1, 0, Some(2), None), 85_700);
    let t = res.plane_free_at(1);
    assert_eq!(res.gc_copy_page(1, t, None, Some(2)), t + 1095 * US);
}

#[test]
fn mapping_units_share_their_pages_type() {
    // 8 KiB pages in 4 KiB units: units 4 and 5 are page 2, an MSB page.
    let res = Resources::new(&device("mqsim-small", &["ftl.mapping_unit_bytes=4096"]));
    let reads: Vec<u64> = (0..6).map(|u| res.read_ns_of(u)).collect();
    assert_eq!(reads, [64_300, 64_300, 64_300, 64_300, 85_700, 85_700]);
}

#[test]
fn off_every_page_takes_the_modes_mean_time() {
    let cfg = DeviceConfig::from_preset("mqsim-small", &[]).unwrap();
    assert!(!cfg.flash.page_types);
    let res = Resources::new(&cfg);
    for ppn in 0..256 {
        assert_eq!(res.read_ns_of(ppn), 75 * US);
        assert_eq!(res.program_ns_of(ppn), 750 * US);
    }
}

#[test]
fn idle_host_writes_and_reads_take_their_pages_times_end_to_end() {
    // Static allocation: logical pages 0, 4, 8 go to plane 0's pages 0, 1, 2 (LSB, CSB, MSB);
    // each request alone on an idle device, then each read back alone.
    let cfg = tiny(&["ftl.allocation=\"static\""]);
    let mut reqs: Vec<Request> = (0..3)
        .map(|i| req(10_000 * i, OpKind::Write, 4 * i, 1))
        .collect();
    reqs.push(req(100_000, OpKind::Read, 8, 1));
    let r = run(cfg, reqs, open());
    let w = &r.latency_us.write;
    assert_eq!(w.max, 10.0 + 1000.0);
    assert!(
        (w.mean - (10.0 + (100.0 + 400.0 + 1000.0) / 3.0)).abs() < 1e-9,
        "{}",
        w.mean
    );
    assert_eq!(r.latency_us.read.max, 70.0 + 10.0);
}

/// GC-heavy random writes with reads on `tiny` with `pages`-page blocks, open loop, with
/// `extra` settings.
fn mixed_with(pages: u32, extra: &[&str]) -> ssdlab_core::stats::SimResult {
    let mut reqs = Vec::new();
    let mut x = 99u64;
    for i in 0..30_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let op = if (x >> 62) == 0 {
            OpKind::Read
        } else {
            OpKind::Write
        };
        reqs.push(req(i * 900, op, (x >> 20) % 5_000, 1));
    }
    let mut sets = vec![format!("geometry.pages_per_block={pages}")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let cfg = DeviceConfig::from_preset("tiny", &sets).unwrap();
    let opts = SimOptions {
        seed: 1,
        precondition: Some(ssdlab_core::sim::Precondition {
            sequential: true,
            random_passes: 1.0,
            fill_fraction: 1.0,
        }),
        ..open()
    };
    run(cfg, reqs, opts)
}

fn mixed(types: bool) -> ssdlab_core::stats::SimResult {
    mixed_with(48, &[&format!("flash.page_types={types}")])
}

/// With every type at the mode's mean time, page types give the results of no page types:
/// GC copies then go one at a time (each with its own pages' times) instead of in timed runs,
/// which must not change a time, under every suspension mode and die scheduler. Blocks of 144
/// pages: a victim's copies, one scheduler entry each, outnumber a short queue (at 64 entries
/// the schedulers' results differed).
#[test]
fn equal_type_times_give_the_mean_times_results_under_every_flash_setting() {
    let equal = [
        "timing.tlc.page_read_us=[50.0, 50.0, 50.0]",
        "timing.tlc.page_program_us=[500.0, 500.0, 500.0]",
    ];
    for flash in [
        "flash.scheduler=\"fcfs\"",
        "flash.suspend=\"erase\"",
        "flash.suspend=\"program-erase\"",
        "flash.scheduler=\"read-first\"",
        "flash.scheduler=\"preemptible-gc\"",
    ] {
        let off = mixed_with(144, &[flash]);
        let mut on = vec![flash, "flash.page_types=true"];
        on.extend(equal);
        let on = mixed_with(144, &on);
        assert!(off.erases > 100, "the workload must make GC erase");
        assert_eq!(on.latency_us, off.latency_us, "{flash}");
        assert_eq!(on.layers.flash, off.layers.flash, "{flash}");
        assert_eq!(on.sim_time_s, off.sim_time_s, "{flash}");
        // The levers acted: GC was passed or suspended.
        if let Some(f) = on.layers.flash {
            let acted = f.scheduling.map_or(0, |q| q.reads_passing)
                + f.suspension.map_or(0, |q| q.erase_suspensions);
            assert!(acted > 0, "{flash}");
        }
    }
}

#[test]
fn page_types_move_times_not_data() {
    let off = mixed(false);
    let on = mixed(true);
    assert!(off.erases > 100, "the workload must make GC erase");
    assert_eq!(
        (on.erases, on.gc_pages_copied, on.host_pages_written),
        (off.erases, off.gc_pages_copied, off.host_pages_written)
    );
    // A program now takes 100 to 1,000 µs instead of 500: the write latencies spread.
    assert!(on.latency_us.write.p50 != off.latency_us.write.p50);
}

#[test]
fn what_page_types_cannot_honour_is_refused_naming_the_field() {
    let refused = |preset: &str, sets: &[&str]| {
        let mut all = vec!["flash.page_types=true".to_string()];
        all.extend(sets.iter().map(|s| s.to_string()));
        DeviceConfig::from_preset(preset, &all)
            .unwrap_err()
            .to_string()
    };
    // A TLC block of 32 pages holds no whole number of word lines.
    let e = refused("tiny", &[]);
    assert!(
        e.contains("geometry.pages_per_block") && e.contains("multiple of 3"),
        "{e}"
    );
    // One time per bit of the mode.
    let e = refused("mqsim-small", &["timing.mlc.page_read_us=[60.0]"]);
    assert!(
        e.contains("timing.mlc.page_read_us") && e.contains("2 times"),
        "{e}"
    );
    // Without the times at all.
    let e = refused("tiny", &["geometry.cell_mode=\"mlc\""]);
    assert!(e.contains("timing.mlc.page_read_us"), "{e}");
    // SLC has one page type.
    let e = refused("tiny", &["geometry.cell_mode=\"slc\""]);
    assert!(e.contains("flash.page_types") && e.contains("SLC"), "{e}");
    // The FTLs that time pages without their place in the block.
    let e = refused("ttflash-small", &["ftl.kind=\"rain\""]);
    assert!(e.contains("flash.page_types") && e.contains("plain"), "{e}");
    let e = refused("yoo-qlc", &[]);
    assert!(
        e.contains("flash.page_types") && e.contains("hybrid"),
        "{e}"
    );
    // A time out of range, even with page types off.
    let e = DeviceConfig::from_preset("tiny", &["timing.tlc.page_read_us=[1.0, -2.0, 3.0]".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("timing.tlc.page_read_us"), "{e}");
    // An order that does not exist names the orders.
    let e = DeviceConfig::from_preset("tiny", &["timing.tlc.page_order=\"diagonal\"".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("word-line") && e.contains("shadow"), "{e}");
    assert_eq!(PageOrder::default(), PageOrder::WordLine);
}

"""Rich tables for results, devices and trace statistics."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ssdlab.result import Result


def result_tables(r: Result) -> list[Table]:
    summary = Table(title=f"{r.device} · {r.workload}", show_header=False, title_justify="left",
                    caption="counts are of the measured phase (after any preconditioning)", caption_justify="left")
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right", no_wrap=True)
    flushes = f"/{r.requests['flush']:,}" if r.requests.get("flush") else ""
    c = r.write_cache
    rows: list[tuple[str, Any]] = [
        (f"requests (read/write/trim{'/flush' if flushes else ''})",
         f"{r.requests['total']:,} ({r.requests['read']:,}/{r.requests['write']:,}/{r.requests['trim']:,}{flushes})"),
        ("WAF", f"{r.waf:.4f}"),
        *([("flash writes per host write", f"{c['flash_writes_per_host_write']:.4f}")] if c else []),
        ("host pages written", f"{r.host_pages_written:,}"),
        ("GC pages copied", f"{r.gc_pages_copied:,}"),
        ("erases", f"{r.erases:,}"),
        ("erases per block min/mean/max", f"{r.erase_per_block['min']}/{r.erase_per_block['mean']:.2f}/{r.erase_per_block['max']}"),
        ("erase spread: CoV / max over mean",
         f"{r.erase_per_block['cov']:.3f} / {r.erase_per_block['max_over_mean']:.2f}"),
        ("GC invocations (victims)", f"{r.gc_invocations:,}"),
        ("blocked requests", f"{r.blocked_requests:,} ({100 * r.blocked_fraction:.2f} %)"),
    ]
    if r.timing:
        rows.append(("simulated time", f"{r.sim_time_s:.3f} s"))
    if r.precondition_pages:
        rows.append(("preconditioning page writes", f"{r.precondition_pages:,}"))
    h = r.hybrid
    if h:
        host = h["slc_host_pages"] + h["qlc_host_pages"]
        rows.append(("host pages to SLC / QLC", f"{h['slc_host_pages']:,} / {h['qlc_host_pages']:,}"))
        rows.append(("pages migrated / QLC GC copies", f"{h['migrated_pages']:,} / {h['qlc_gc_pages']:,}"))
        rows.append(("SLC region (blocks in use / size)", f"{h['slc_blocks']:,} / {h['slc_target']:,}"))
        if r.timing and host:
            per = {k: h[f"{k}_ns"] / host / 1e3 for k in ("slc_write", "qlc_write", "migration_wait", "gc_wait")}
            rows.append(("write µs per page: SLC / QLC / migration / GC", " / ".join(f"{v:,.1f}" for v in per.values())))
    if c:
        rows.append(("write cache: read / write hit ratio", f"{c['read_hit_ratio']:.4f} / {c['write_hit_ratio']:.4f}"))
        rows.append(("write cache: flushes (pages) / forced / full waits",
                     f"{c['flushes']:,} ({c['flushed_pages']:,}) / {c['forced_flushes']:,} / {c['full_waits']:,}"))
        rows.append(("write cache: dirty pages at the end / at most", f"{c['dirty_pages']:,} / {c['max_dirty_pages']:,}"))
        cut = c.get("power_cut")
        if cut:
            rows.append((f"power cut at {cut['at_s']:.6f} s: pages lost / rescued by the capacitor",
                         f"{cut['lost_pages']:,} / {cut['rescued_pages']:,}"))
    m = r.mapping
    if m:
        w = m["waf"]
        rows.append((f"CMT ({m['cmt_entries']:,} entries, {m['cmt_policy']}): read / write hit ratio",
                     f"{m['read_hit_ratio']:.4f} / {m['write_hit_ratio']:.4f}"))
        rows.append(("translation pages read / written (write-backs + GC updates)",
                     f"{m['translation_reads']:,} / {m['translation_writes']:,} ({m['write_backs']:,} + {m['gc_updates']:,})"))
        rows.append(("WAF: host + data GC + translation + translation GC",
                     f"{w['host']:.3f} + {w['data_gc']:.3f} + {w['translation']:.3f} + {w['translation_gc']:.3f}"))
    f = (r.flash or {}).get("suspension")
    if f:
        rows.append((f"suspension ({f['mode']}, at most {f['max_suspensions']}): busy reads / program / erase",
                     f"{f['busy_reads']:,} / {f['program_suspensions']:,} / {f['erase_suspensions']:,}"))
        rows.append(("suspension: joined reads / at the cap / time suspended (GC's)",
                     f"{f['joined_reads']:,} / {f['cap_reached']:,} / "
                     f"{f['time_suspended_s']:.4f} s ({f['gc_time_suspended_s']:.4f} s)"))
    q = (r.flash or {}).get("scheduling")
    if q:
        rows.append((f"scheduler {q['scheduler']} (at most {q['max_passes']} passes): reads / writes passing",
                     f"{q['reads_passing']:,} / {q['writes_passing']:,}"))
        rows.append(("scheduler: operations passed / GC delayed / host programs delayed",
                     f"{q['ops_passed']:,} / {q['gc_delay_s']:.4f} s / {q['host_program_delay_s']:.4f} s"))
    e = (r.flash or {}).get("errors")
    if e:
        rows.append(("flash errors: page reads retried (rate) / retry steps",
                     f"{e['retried_reads']:,} ({e['retry_rate']:.4f}) / {e['retry_steps']:,}"))
        rows.append(("flash errors: soft-decoded reads per tier / uncorrectable (UBER)",
                     f"{' / '.join(f'{n:,}' for n in e['soft_reads']) or '-'} / "
                     f"{e['uncorrectable_reads']:,} ({e['uber']:.2e})"))
        rows.append(("flash errors: time retrying / largest RBER",
                     f"{e['retry_time_s']:.4f} s / {e['max_rber']:.2e}"))
    d = r.fdp
    if d:
        rows.append((f"FDP ({d['handles']} handles × {d['reclaim_groups']} groups, {d['handle_type']}): "
                     "host / media bytes written / erased",
                     f"{human_bytes(d['host_bytes_written'])} / {human_bytes(d['media_bytes_written'])} / "
                     f"{human_bytes(d['media_bytes_erased'])}"))
        rows.append(("FDP: host pages / reclaim units opened, per placement",
                     ", ".join(f"{p['placement']}: {p['host_pages']:,}/{p['units_opened']:,}" for p in d["placements"])))
    z = r.zns
    if z:
        host = (f", host WAF {z['host_waf']:.3f} ({z['cleaner_pages_copied']:,} cleaner copies)"
                if z["host_waf"] is not None else "")
        rows.append((f"ZNS ({z['zones']:,} zones of {z['blocks_per_zone']} blocks, host {z['host']}): device WAF",
                     f"{z['device_waf']:.3f}{host}"))
        c, v = z["commands"], z["violations"]
        rows.append(("ZNS: resets / block erases / implicit closes / commands refused",
                     f"{c['resets']:,} / {z['block_erases']:,} / {c['implicit_closes']:,} / {sum(v.values()):,}"))
    w = r.wear_leveling
    if w:
        kinds = " + ".join(k for k in ("dynamic", "static") if w[k])
        rows.append((f"wear levelling ({kinds}): static victims / pages copied / table resets",
                     f"{w['static_victims']:,} / {w['static_pages_copied']:,} / {w['table_resets']:,}"))
    b = r.endurance
    if b:
        rows.append(("bad blocks: factory / worn out / failed erase / failed program; spare blocks left",
                     f"{b['factory_bad_blocks']:,} / {b['worn_out_blocks']:,} / {b['failed_blocks']:,} / "
                     f"{b['program_failed_blocks']:,}; {b['spare_blocks']:,}"))
        rows.append(("host bytes written over the drive's life", human_bytes(b["host_bytes_written"])))
    rr = r.read_reclaim
    if rr:
        rows.append(("read reclaim: blocks moved / pages copied / asks skipped",
                     f"{rr['blocks']:,} / {rr['pages_copied']:,} / {rr['skipped']:,}"))
        if rr["refresh_blocks"]:
            rows.append(("retention refresh: blocks moved / pages copied",
                         f"{rr['refresh_blocks']:,} / {rr['refresh_pages_copied']:,}"))
    rows.append(("wall time", f"{r.wall_time_s:.2f} s"))
    for k, v in rows:
        summary.add_row(k, str(v))
    tables = [summary]
    if r.timing:
        # One column per operation, one row per statistic: fits an 80-column terminal whatever
        # the tail (a row per operation needs nine columns of up to ten digits).
        ops = [(name, getattr(r.latency_us, name)) for name in ("read", "write", "flush", "all")]
        ops = [(n, s) for n, s in ops if s.count > 0]
        lat = Table(title="latency (µs)", title_justify="left")
        lat.add_column("", style="bold", no_wrap=True)
        for name, _ in ops:
            lat.add_column(name, justify="right", no_wrap=True)
        lat.add_row("count", *(f"{s.count:,}" for _, s in ops))
        for label, attr in (("mean", "mean"), ("p50", "p50"), ("p99", "p99"), ("p99.9", "p99_9"), ("p99.99", "p99_99"),
                            ("p99.9999", "p99_9999"), ("max", "max")):
            lat.add_row(label, *(f"{getattr(s, attr):,.1f}" for _, s in ops))
        tables.append(lat)
    if r.flows:
        tables.append(flows_table(r))
    return tables


def flows_table(r: Result) -> Table:
    """One row per flow: its requests, throughput, latency from submission (p50, p99, p99.9)
    and its mean wait for the controller to fetch its commands."""
    t = Table(title="flows (latency µs from submission)", title_justify="left")
    for name in ("flow", "priority", "requests", "IOPS", "MiB/s r/w"):
        t.add_column(name, justify="left" if name in ("flow", "priority") else "right", no_wrap=True)
    if r.timing:
        for name in ("p50", "p99", "p99.9", "wait mean"):
            t.add_column(name, justify="right", no_wrap=True)
    for f in r.flows:
        row = [f["name"], f["priority"], f"{f['requests']['total']:,}"]
        if r.timing:
            a = f["latency_us"]["all"]
            row += [f"{f['iops']:,.0f}", f"{f['read_mib_s']:,.1f}/{f['write_mib_s']:,.1f}",
                    f"{a['p50']:,.1f}", f"{a['p99']:,.1f}", f"{a['p99_9']:,.1f}", f"{f['queue_wait_us']['mean']:,.1f}"]
        else:
            row += ["", ""]
        t.add_row(*row)
    return t


def print_result(console: Console, r: Result) -> None:
    for t in result_tables(r):
        console.print(t)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return str(n)

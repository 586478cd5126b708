"""``ssdlab experiment ttflash`` end to end on a small device (Tiny-Tail Flash, FAST 2017)."""
import json

from typer.testing import CliRunner

from ssdlab.cli import app
from ssdlab.experiments import ttflash as tt

from test_cli import assert_one_line_error

SMALL = [
    "geometry.chips_per_channel=2",
    "geometry.blocks_per_plane=64",
    "geometry.pages_per_block=16",
    "geometry.spare_factor=0.4",  # super-block reserves need room (docs/ttflash.md)
    "write_cache.size_mib=1",
]


def test_experiment_ttflash_json(tmp_path):
    out = tmp_path / "tt.json"
    args = ["experiment", "ttflash", "--workload", "mixed70-small", "--max-requests", "3000", "--json", str(out)]
    for s in SMALL:
        args += ["--set", s]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "99.9th" in r.output and "blocked" in r.output
    res = json.loads(out.read_text())
    assert res["stacks"] == ["nogc", "nogc+gtf", "nogc+rain+gtf", "base+rain", "pb+rain", "pb+gtr", "pb+gtr+gtf", "ttflash", "ttflash+rf"]
    assert set(res["configs"]) == set(res["stacks"])
    for name, c in res["configs"].items():
        for kind in ("read", "write", "all"):
            assert set(c["latency_us"][kind]) >= {"mean", "p50", "p99", "p99_9", "p99_99", "p99_9999", "max"}, name
        assert 0.0 <= c["blocked_fraction"] <= 1.0
        # After preconditioning, 3,000 requests (30 % writes) make GC run on every stack: nogc
        # is GC that costs no time, not no GC (measured: 88 erases without RAIN, 128-176 with).
        assert c["erases"] > 0, name
    cfg = res["configs"]
    # base+rain, pb+rain and pb+gtr share the RAIN FTL and differ only in what GC's time blocks
    # and whether blocked reads are rebuilt, so the FTL does the same work in all three.
    for key in ("erases", "gc_pages_copied", "host_pages_written", "parity_pages_written"):
        assert cfg["base+rain"][key] == cfg["pb+rain"][key] == cfg["pb+gtr"][key], key
    assert cfg["nogc"]["parity_pages_written"] == 0
    # RAIN writes parity, which costs P/E cycles (the "extra P/E vs nogc" column); with parity
    # on top (the default) the RAIN stacks run on more blocks at the same user capacity.
    for name in ("nogc+rain+gtf", "base+rain", "pb+rain", "pb+gtr", "pb+gtr+gtf", "ttflash", "ttflash+rf"):
        assert cfg[name]["parity_pages_written"] > 0, name
        if "gtf" not in name and "ttflash" not in name:
            # Stacks with GTF's buffer absorb rewrites in RAM, so on a run this short their
            # erases can fall below nogc's (measured: ttflash 80 against 88).
            assert cfg[name]["erases"] >= cfg["nogc"]["erases"], name
        assert cfg[name]["physical_blocks_per_plane"] == 74 > cfg["nogc"]["physical_blocks_per_plane"] == 64, name
        # Extra P/E due to RAIN is taken like with like: against the same buffer without RAIN.
        ref = "nogc+gtf" if ("gtf" in name or "ttflash" in name) else "nogc"
        pe = cfg[name]["extra_pe_due_to_rain"]
        assert pe["reference"] == ref and pe["extra"] == cfg[name]["erases"] / cfg[ref]["erases"] - 1, name
    assert cfg["nogc+gtf"]["parity_pages_written"] == 0 and cfg["nogc+gtf"]["physical_blocks_per_plane"] == 64
    assert cfg["nogc"]["extra_pe_due_to_rain"] is None and cfg["nogc+gtf"]["extra_pe_due_to_rain"] is None


def test_stacks_run_at_once_give_the_same_results():
    # Each stack is its own simulation, so running them on threads (-j) changes no result and
    # keeps the stacks' order; different seeds differ, so the comparison can fail.
    wl = tt.named_workload("mixed70-small", 2000)
    one, two, other = (tt.run("ttflash-small", wl, overrides=SMALL, seed=s, jobs=j) for s, j in ((5, 1), (5, 2), (6, 2)))
    assert two["stacks"] == one["stacks"] and set(one["configs"]) == set(one["stacks"])
    assert json.dumps(two["configs"], sort_keys=True) == json.dumps(one["configs"], sort_keys=True)
    assert json.dumps(other["configs"], sort_keys=True) != json.dumps(one["configs"], sort_keys=True)


def test_experiment_ttflash_bad_input_is_one_line(cli):
    assert_one_line_error(cli("experiment", "ttflash"), "--trace", "--workload")
    assert_one_line_error(cli("experiment", "ttflash", "-w", "nope"), "--workload nope", "mixed70-small")
    assert_one_line_error(cli("experiment", "ttflash", "-w", "mixed70-small", "--set", "geometry.channels=65"),
                          "ftl.kind", "geometry.channels", "got 65")
    assert_one_line_error(cli("experiment", "ttflash", "-w", "mixed70-small", "-j", "-1"), "--jobs", "got -1")
    # A bad stack is refused before any stack runs, whatever the jobs.
    assert_one_line_error(cli("experiment", "ttflash", "-w", "mixed70-small", "--stack", "nogc", "--stack", "pb+zzz"),
                          "stack", "zzz")


def test_ttflash_tail_near_nogc_on_financial1(tmp_path, traces):
    """The paper's claim on a real trace at its own rate (docs/ttflash.md, measured 2026-11-22:
    ttflash read p99.9 1.01x and p99.99 1.02x nogc; blocked I/Os 1.86 % in base, 0 in ttflash)."""
    out = tmp_path / "fin1.json"
    args = ["experiment", "ttflash", "--trace", str(traces / "spc_financial1" / "example.ascii"), "--json", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    c = json.loads(out.read_text())["configs"]
    read = {name: c[name]["latency_us"]["read"] for name in c}
    assert read["base+rain"]["p99_9"] > 10 * read["nogc"]["p99_9"]
    assert read["ttflash"]["p99_9"] < 1.1 * read["nogc"]["p99_9"]
    assert read["ttflash"]["p99_99"] < 2.6 * read["nogc"]["p99_99"]
    assert c["base+rain"]["blocked_fraction"] > 0.01
    assert c["ttflash"]["blocked_fraction"] < c["base+rain"]["blocked_fraction"] / 100
    assert c["ttflash"]["ttflash"]["rain"]["rebuilt_reads"] > 0


def test_ttflash_tail_near_nogc_on_cloudphysics_32x_slower(tmp_path, traces):
    """Bursty writes with idle time between: rotating GC must work through the idle time
    (round 6; docs/ttflash.md, measured 2026-11-24: ttflash read p99 / p99.9 / p99.99 0.97 /
    0.94 / 0.89x nogc, base+rain p99.9 55x; before round 6's fix, 64x slower gave p99.9 1,052x).
    Parity's P/E cost the paper's way (on top of the user's spare, same user capacity and data
    utilisation): +15 % erases over nogc (seed: 15-18 %, must-show ≤ 25 %)."""
    out = tmp_path / "cp.json"
    trace = traces / "cloudphysics" / "cloudPhysicsIO.vscsi"
    args = ["experiment", "ttflash", "--trace", str(trace), "--time-scale", "32",
            "--stack", "nogc", "--stack", "nogc+gtf", "--stack", "base+rain", "--stack", "ttflash", "--json", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    c = json.loads(out.read_text())["configs"]
    read = {name: c[name]["latency_us"]["read"] for name in c}
    assert read["base+rain"]["p99_9"] > 10 * read["nogc"]["p99_9"]
    for k in ("p99", "p99_9"):
        assert read["ttflash"][k] < 1.1 * read["nogc"][k]
    assert read["ttflash"]["p99_99"] < 2.6 * read["nogc"]["p99_99"]
    assert c["ttflash"]["blocked_fraction"] < c["base+rain"]["blocked_fraction"] / 10
    assert c["ttflash"]["ttflash"]["rain"]["forced_gc"] < 10
    # Like with like: against the same buffer without RAIN (``nogc+gtf``): since GTF is the
    # write cache (2026-12-01) the buffer coalesces rewrites, so against unbuffered ``nogc``
    # ttflash erases fewer (22,624 against 23,427) — the buffer's saving, not parity's cost.
    assert c["ttflash"]["extra_pe_due_to_rain"]["reference"] == "nogc+gtf"
    assert 0.0 < c["ttflash"]["extra_pe_due_to_rain"]["extra"] <= 0.25


def test_default_experiment_each_technique_a_step_down():
    """Issue 16's must-shows on the default experiment (mixed70-small, 3 seeds; docs/ttflash.md,
    measured 2026-11-25 with open stripes' parity in RAM, round 12): base+rain p99.9 ≥ 5× nogc
    (63–74×); the paper's progression base+rain ≥ pb+rain ≥ pb+gtr ≥ pb+gtr+gtf ≥ ttflash at
    read p99.9 — PB a large step (2.5×), RGC the largest (26×), GTR and GTF small steps of 2 %
    and 3 %: without rotation a group's planes collect the same super-block at once, so few
    GC-blocked reads can be rebuilt (means over the seeds 22,310 → 21,813 → 21,081 µs; one seed
    alone can invert them); GC-blocked I/Os cut ≥ 10× (5.2–5.5 % → ≤ 0.01 %); ttflash p99.9
    ≤ 1.1× and p99.99 ≤ 2.6× nogc; extra P/E due to RAIN ≤ 20 % over the seeds (against
    ``nogc+gtf``, the same buffer without RAIN: +11.3 / −6.2 / +16.5 % per seed, ~300 erases
    each; +7.2 % pooled; before round 12 +24.0 %). ttflash's p99 does not hold here against
    nogc without RAIN (1.17–1.46×: reads queued behind RAIN parity's programs, not GC; the
    paper itself puts ttFlash's mean latency 1.09–1.33× above "NoGC (without RAIN)"), but does
    over the seeds against the authors' NoGC, which runs with RAIN (mean 1.08; see
    ``test_ttflash_p99_against_the_simulators_nogc``). ssdlab's rotating flush
    (``ttflash+rf``) removes that: at most one plane per group programs or collects, and a read
    behind a program is rebuilt too (p99 / p99.9 / p99.99 0.14–0.20 / 0.10 / 0.11–0.12× nogc,
    erases within 2 % of ttflash's)."""
    runs = []
    for seed in (1, 2, 3):
        runs.append(tt.run("ttflash-small", tt.named_workload("mixed70-small"), seed=seed)["configs"])
    order = ["base+rain", "pb+rain", "pb+gtr", "pb+gtr+gtf", "ttflash"]
    p999 = {s: sum(c[s]["latency_us"]["read"]["p99_9"] for c in runs) / len(runs) for s in ["nogc", *order]}
    assert p999["base+rain"] >= 5 * p999["nogc"]
    # PB and RGC are large steps; GTR's and GTF's are within these runs' noise (GTF as the write
    # cache, 2026-12-01, seeds 1-6: pb+gtr+gtf p99.9 +0.4 % over pb+gtr, the old buffer's
    # -2.2 %; mean read latency -14 %, the old -10 %): no step up beyond 2 %.
    for a, b in zip(order, order[1:]):
        small = (a, b) in (("pb+rain", "pb+gtr"), ("pb+gtr", "pb+gtr+gtf"))
        assert p999[b] <= (1.02 if small else 1.0) * p999[a], (a, b, p999)
    assert p999["base+rain"] >= 2 * p999["pb+rain"]
    assert p999["pb+gtr+gtf"] >= 10 * p999["ttflash"]
    for c in runs:
        read = {s: c[s]["latency_us"]["read"] for s in c}
        assert c["ttflash"]["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"]
        assert read["ttflash"]["p99_9"] <= 1.1 * read["nogc"]["p99_9"]
        assert read["ttflash"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"]
        # With the lean super-block reserve: at 40 % spare no group drains, so none deepened
        # its reserve.
        assert c["ttflash"]["extra_pe_due_to_rain"]["reference"] == "nogc+gtf"
        assert c["ttflash"]["ttflash"]["superblock_reserve_max"] == 2
        assert c["ttflash"]["ttflash"]["rain"]["gc_drains"] == 0
        # GC's share of ttFlash's read tail is gone: its p99.9 readers never waited for GC.
        assert c["ttflash"]["read_breakdown"]["p99_9"]["mean_us"]["wait_gc"] == 0
        # The rotating flush: every must-show bound, p99 included, and reads behind programs
        # rebuilt (without it p99 is over 1.1x on seed 1: asserted, so the bound can fail).
        rf = c["ttflash+rf"]
        for k in ("p99", "p99_9"):
            assert read["ttflash+rf"][k] <= 1.1 * read["nogc"][k], k
        assert read["ttflash+rf"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"]
        assert rf["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"]
        assert rf["ttflash"]["rain"]["rebuilt_program_blocked"] > 0
        assert rf["erases"] <= 1.05 * c["ttflash"]["erases"]
    assert runs[0]["ttflash"]["latency_us"]["read"]["p99"] > 1.1 * runs[0]["nogc"]["latency_us"]["read"]["p99"]
    # Against the NoGC of the authors' simulator (with RAIN and its buffer: tt.ARTIFACT_NOGC)
    # p99 holds over the seeds (measured 1.085 / 1.105 / 1.049, mean 1.08: 140 reads in each
    # run's p99 tail), and p99.9 / p99.99 on each (0.98-1.01 / 0.96-1.01).
    art = [(c["ttflash"]["latency_us"]["read"], c[tt.ARTIFACT_NOGC]["latency_us"]["read"]) for c in runs]
    assert sum(t["p99"] / a["p99"] for t, a in art) / len(art) <= 1.1
    for t, a in art:
        assert t["p99_9"] <= 1.1 * a["p99_9"] and t["p99_99"] <= 2.6 * a["p99_99"]
    # Extra P/E due to RAIN, like with like (against nogc+gtf, the buffer without RAIN), pooled
    # over the seeds: each run erases only ~300 blocks, 8 at a time (a super-block), so one
    # seed alone moves by ±10 % (measured +11.3 / −6.2 / +16.5 %; pooled +7.2 %).
    pe = sum(c["ttflash"]["erases"] for c in runs) / sum(c["nogc+gtf"]["erases"] for c in runs)
    assert pe <= 1.2, pe



def test_ttflash_p99_against_the_simulators_nogc():
    """The authors' simulator runs its NoGC with RAIN and its buffer (``configs/nogc.config``:
    ``raid = 1``, device not aged; docs/ttflash.md "Which NoGC"): ``nogc+rain+gtf`` here.
    Against it ttflash holds every Table 1 bound at p99 too; against nogc without RAIN it does
    not (parity's programs). On ``mixed70`` (100k requests, ~700 reads in the p99 tail;
    ``mixed70-small`` has 140 there, at the knee of the read-program collision curve, and its
    p99 ratio scatters 0.77–1.43 over seeds). Measured 2026-11-25 with open stripes' parity in
    RAM (round 12), seeds 1–3: p99 over nogc+rain+gtf 1.00 / 1.17 / 0.98 (seeds 4–5: 0.99 /
    0.93), p99.9 1.00 / 1.00 / 1.00; over nogc p99 1.33 / 1.51 / 1.27. Seed 2's p99 is at the
    knee: 1.71 % of its reads wait over 100 µs behind programs against the reference's 1.58 %,
    which moves the 99th percentile by 17 %; so p99 is bounded over the seeds' mean. Extra P/E
    due to RAIN (against nogc+gtf, which collects into a GC frontier of its own as RAIN does
    into GC super-blocks) +14.7 / +12.3 / +13.4 %, about the paper's 1/7 (before round 12:
    +21.9 / +23.9 / +22.0 %, asserted below as a bound of 20 % so that it can fail)."""
    p99 = []
    for seed in (1, 2, 3):
        c = tt.run("ttflash-small", tt.named_workload("mixed70"), seed=seed, stacks=["nogc", "nogc+gtf", tt.ARTIFACT_NOGC, "ttflash"])["configs"]
        read = {s: c[s]["latency_us"]["read"] for s in c}
        art = read[tt.ARTIFACT_NOGC]
        p99.append(read["ttflash"]["p99"] / art["p99"])
        assert p99[-1] <= 1.2, (seed, p99)
        assert read["ttflash"]["p99_9"] <= 1.1 * art["p99_9"], seed
        assert read["ttflash"]["p99_99"] <= 2.6 * art["p99_99"], seed
        assert read["ttflash"]["p99"] > 1.1 * read["nogc"]["p99"], seed
        pe = c["ttflash"]["extra_pe_due_to_rain"]
        assert pe["reference"] == "nogc+gtf" and 0.0 < pe["extra"] <= 0.2, (seed, pe)
        assert pe["extra"] == c["ttflash"]["erases"] / c["nogc+gtf"]["erases"] - 1
    assert sum(p99) / len(p99) <= 1.1, p99


def test_average_read_latency_against_the_simulators_base_and_nogc():
    """The paper's average latencies: "ttFlash is 2.52-7.88x faster than Base (with RAIN) and
    1.09-1.33x slower than NoGC (without RAIN)". Every configuration of the authors' simulator
    buffers host writes (64 MiB, background flush; docs/ttflash.md round 13), so its Base
    (``configs/def.config``: ``raid = 0``, aged) is ``base+gtf`` here and its NoGC without RAIN
    is ``nogc+gtf``. Mean read latency on the default experiment, measured 2026-11-26, seeds
    1-3: Base over ttflash 7.31 / 7.71 / 7.86 (inside the paper's range, at its top: this
    workload runs GC from its first request); ttflash over NoGC 1.02 / 1.03 / 1.00 (less
    slow than the paper's 1.09-1.33). Against ``base+rain`` without the buffer (the progression's
    Base) it is 20-23x, outside the range: reads there also queue behind synchronous writes.
    GTF as the write cache (2026-12-01), seeds 1-6: Base over ttflash 7.93 / 7.87 / 7.92 / 7.78 /
    6.86 / 7.04 (mean 7.57; the old buffer 7.31 / 7.71 / 7.86 / 8.84 / 7.00 / 7.16, mean 7.65):
    three seeds' mean moves by a seed's scatter, so the bound is over six."""
    base, nogc = [], []
    for seed in (1, 2, 3, 4, 5, 6):
        c = tt.run("ttflash-small", tt.named_workload("mixed70-small"), seed=seed, stacks=["base+gtf", "nogc+gtf", "ttflash"])["configs"]
        mean = {s: c[s]["latency_us"]["read"]["mean"] for s in c}
        base.append(mean["base+gtf"] / mean["ttflash"])
        nogc.append(mean["ttflash"] / mean["nogc+gtf"])
    assert 2.52 <= sum(base) / len(base) <= 7.88, base
    assert all(0.98 <= r <= 1.33 for r in nogc), nogc


def test_logical_stripes_make_gtr_a_step_down():
    """Issue 16, per-plane GC under RAIN (docs/ttflash-logical.md, measured 2026-11-25): with
    the paper's logical stripes (``rain.layout = "logical"``) every plane collects on its own,
    so without rotation a GC-blocked read usually finds the rest of its stripe free. On the
    default experiment (3 seeds; read p99.9 over nogc, mean of the seeds) PB and GTR are each a
    step down (31.4× → 16.9× → 13.9×; GTR −18 %, where super-block GC gives ≤ 2 %), and so is GTF
    (10.8×, −22 %: its flush paced on the whole group, and a read-modify-write read on a
    collecting plane held in RAM with its parity program; −7 % without the latter); RGC takes
    p99.9 to 1.10–1.12× nogc. The
    read-modify-write parity of random single-page writes costs +94–117 % erases (the paper's
    1/7 needs whole-stripe writes), asserted so that the price stays visible."""
    stacks = ["nogc", "base+rain", "pb+rain", "pb+gtr", "pb+gtr+gtf", "ttflash"]
    runs = [
        tt.run("ttflash-small", tt.named_workload("mixed70-small"), seed=seed, overrides=["rain.layout=logical"], stacks=stacks)["configs"]
        for seed in (1, 2, 3)
    ]
    p999 = {s: sum(c[s]["latency_us"]["read"]["p99_9"] for c in runs) / len(runs) for s in stacks}
    assert p999["base+rain"] >= 1.5 * p999["pb+rain"]
    assert p999["pb+gtr"] <= 0.9 * p999["pb+rain"], "GTR a step down"
    assert p999["pb+gtr+gtf"] <= 0.85 * p999["pb+gtr"], "GTF a step down"
    assert p999["ttflash"] * 5 <= p999["pb+gtr+gtf"]
    for c in runs:
        read = {s: c[s]["latency_us"]["read"] for s in stacks}
        assert c["pb+gtr+gtf"]["blocked_fraction"] < c["pb+gtr"]["blocked_fraction"] < c["pb+rain"]["blocked_fraction"]
        assert c["ttflash"]["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"]
        assert read["ttflash"]["p99_9"] <= 1.2 * read["nogc"]["p99_9"]
        assert read["ttflash"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"]
        assert c["pb+gtr"]["ttflash"]["rain"]["rebuilt_reads"] > 0
        # No GC stripes, no super-blocks: parity is a read-modify-write per stripe written.
        r = c["ttflash"]["ttflash"]["rain"]
        assert r["superblocks_collected"] == 0 and r["host_parity_writes"] == r["host_stripes"] > 0
        assert c["ttflash"]["erases"] >= 1.5 * c["nogc"]["erases"]

def test_rotating_flush_on_write_heavy_traces(tmp_path, traces):
    """ttflash+rf (round 9) on the two trace rows that broke its first versions (ttflash-small,
    docs/ttflash.md): TPC-C 16x slower, where a flush sharing the GC chain as an equal starved
    GC (forced GC, read p99.9 183x nogc; GC now goes first), and CloudPhysics 32x slower, where
    placing the staged backlog at once queued reads behind several programs (p99.99 3.2x; now
    one program per plane at a time). Measured 2026-11-24: 0.47 / 0.83 / 0.96x and
    0.33 / 0.34 / 0.71x nogc at p99 / p99.9 / p99.99."""
    for name, scale in (("spc_tpcc_websearch/tpcc-small.trace", "16"), ("cloudphysics/cloudPhysicsIO.vscsi", "32")):
        out = tmp_path / "rf.json"
        args = ["experiment", "ttflash", "--trace", str(traces / name), "--time-scale", scale,
                "--stack", "nogc", "--stack", "ttflash+rf", "--json", str(out)]
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        c = json.loads(out.read_text())["configs"]
        read = {s: c[s]["latency_us"]["read"] for s in c}
        for k in ("p99", "p99_9"):
            assert read["ttflash+rf"][k] <= 1.1 * read["nogc"][k], (name, k)
        assert read["ttflash+rf"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"], name
        rain = c["ttflash+rf"]["ttflash"]["rain"]
        assert rain["forced_gc"] == 0 and rain["rebuilt_program_blocked"] > 0, name


def test_ttflash_preset_at_its_own_spare():
    """The paper's device (`ttflash`: 8 channels x 8 chips, 10 % spare) scaled to 128 blocks x 64
    pages per plane so the test takes seconds. RAIN parity is provisioned on top (the RAIN
    stacks run on 147 blocks per plane with the plain device's user capacity); before round 7
    it stopped with "device full". Measured 2026-11-25 with open stripes' parity in RAM (round
    12; mixed70): ttflash read p99 / p99.9 / p99.99 0.91 / 0.95 / 1.03x nogc; base+rain p99.9
    3,871x; GC-blocked I/Os 42.3 % → 0.005 %. The extra P/E due to RAIN is asserted at steady
    state in ``crates/ssdlab-core/tests/ttflash_parity_cost.rs`` (+21.7 %): this run's 30k
    writes measure preconditioning's transient (−1.5 % here)."""
    wl = tt.named_workload("mixed70")
    sets = ["geometry.blocks_per_plane=128", "geometry.pages_per_block=64"]
    order = ["base+rain", "pb+rain", "pb+gtr", "pb+gtr+gtf", "ttflash"]
    c = tt.run("ttflash", wl, overrides=sets, stacks=["nogc", *order])["configs"]
    read = {s: c[s]["latency_us"]["read"] for s in c}
    assert c["nogc"]["physical_blocks_per_plane"] == 128 and c["ttflash"]["physical_blocks_per_plane"] == 147
    assert read["base+rain"]["p99_9"] >= 5 * read["nogc"]["p99_9"]
    # The paper's progression at p99.9 (measured: 2.92 s, 385 ms, 383 ms, 371 ms, 715 µs).
    for a, b in zip(order, order[1:]):
        assert read[a]["p99_9"] >= read[b]["p99_9"], (a, b)
    for k in ("p99", "p99_9"):
        assert read["ttflash"][k] <= 1.1 * read["nogc"][k], k
    assert read["ttflash"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"]
    assert c["ttflash"]["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"]
    assert c["ttflash"]["erases"] > 0
    # With open stripes' parity in RAM no victim waits for its copies' stripes, so even at
    # 10 % spare and full write speed (preconditioning) no group drains or deepens its reserve
    # (before round 12 they all did, to its limit of 4).
    assert c["ttflash"]["ttflash"]["superblock_reserve_max"] == 2
    assert c["ttflash"]["ttflash"]["rain"]["gc_drains"] == 0


def test_ttflash_preset_on_stitched_traces(tmp_path, traces):
    """Issue 16: the `ttflash` preset (scaled to 256 blocks x 64 pages per plane, its own 10 %
    spare) on the real excerpts that alone write less than its 64 MiB buffer holds: replayed 20
    times, each pass at fresh addresses (`--repeat 20 --repeat-shift`), GC runs. Measured
    2026-11-24 (docs/ttflash.md): Financial1 at its own rate, ttflash read p99 / p99.9 / p99.99
    1.00 / 1.07 / 1.04x nogc, base+rain p99.9 1,654x, GC-blocked I/Os 3.08 % -> 0.011 %; TPC-C
    64x slower 0.83 / 1.04 / 1.04x, 4,457x, 78.1 % -> 0.36 %."""
    sets = ["--set", "geometry.blocks_per_plane=256", "--set", "geometry.pages_per_block=64"]
    for name, rel, scale in (("fin1", "spc_financial1/example.ascii", "1"),
                             ("tpcc", "spc_tpcc_websearch/tpcc-small.trace", "64")):
        out = tmp_path / f"{name}.json"
        args = ["experiment", "ttflash", "-d", "ttflash", *sets, "--trace", str(traces / rel), "--repeat", "20",
                "--repeat-shift", "--time-scale", scale, "--stack", "nogc", "--stack", "base+rain",
                "--stack", "ttflash", "--json", str(out)]
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        c = json.loads(out.read_text())["configs"]
        read = {s: c[s]["latency_us"]["read"] for s in c}
        assert "×20 passes, each at new addresses" in c["nogc"]["workload"]
        assert c["ttflash"]["erases"] > 0 and c["ttflash"]["gc_pages_copied"] > 0, name
        assert read["base+rain"]["p99_9"] >= 5 * read["nogc"]["p99_9"], name
        for k in ("p99", "p99_9"):
            assert read["ttflash"][k] <= 1.1 * read["nogc"][k], (name, k)
        assert read["ttflash"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"], name
        assert c["ttflash"]["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"], name


def test_ttflash_preset_at_the_authors_aging(tmp_path, traces):
    """Issue 16: TPC-C 16-32x slower saturates the `ttflash` preset when preconditioning fills
    its whole logical space (90 % of the flash valid; rotating GC's one plane per group cannot
    keep up: ttflash p99.9 14,107x and 59,618x nogc). The authors' simulator ages its device
    (SSDsim's ``make_aged``, ``aged_ratio = 0.66`` in its configs) by writing 66 % of each
    plane's pages, 7 in 10 of them valid: 46 % of the flash holds valid data.
    ``--precondition-fill 0.51`` leaves that much here. Measured 2026-11-25 (stitched 20x at
    fresh addresses, 256 x 64 pages per plane), ttflash read p99 / p99.9 / p99.99 over nogc:
    TPC-C 64x slower 0.46 / 0.93 / 1.06, 32x 0.74 / 1.02 / 1.06, 16x 0.91 / 1.03 / 1.06;
    base+rain p99.9 229-298x nogc; GC-blocked I/Os 2.2-9.0 % -> 0.007-0.056 %; extra P/E due
    to RAIN +12.9 %. (With 66 % of the flash valid, ``--precondition-fill 0.73``, 16x slower
    holds too: 0.96 / 1.04 / 1.06.)"""
    sets = ["--set", "geometry.blocks_per_plane=256", "--set", "geometry.pages_per_block=64"]
    out = tmp_path / "tpcc.json"
    args = ["experiment", "ttflash", "-d", "ttflash", *sets, "--trace", str(traces / "spc_tpcc_websearch/tpcc-small.trace"),
            "--repeat", "20", "--repeat-shift", "--time-scale", "16", "--precondition-fill", "0.51",
            "--stack", "nogc", "--stack", "nogc+gtf", "--stack", "base+rain", "--stack", "ttflash", "--json", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    res = json.loads(out.read_text())
    assert res["precondition"]["fill_fraction"] == 0.51
    c = res["configs"]
    read = {s: c[s]["latency_us"]["read"] for s in c}
    assert c["ttflash"]["erases"] > 0 and c["ttflash"]["gc_pages_copied"] > 0
    assert read["base+rain"]["p99_9"] >= 5 * read["nogc"]["p99_9"]
    for k in ("p99", "p99_9"):
        assert read["ttflash"][k] <= 1.1 * read["nogc"][k], k
    assert read["ttflash"]["p99_99"] <= 2.6 * read["nogc"]["p99_99"]
    assert c["ttflash"]["blocked_fraction"] * 10 <= c["base+rain"]["blocked_fraction"]
    assert c["ttflash"]["extra_pe_due_to_rain"]["extra"] <= 0.25


def test_non_rotating_rain_stacks_run_cloudphysics_on_the_preset(tmp_path, traces):
    """Issue 16: on the `ttflash` preset (scaled as above, its own 10 % spare) CloudPhysics 128x
    slower made the non-rotating RAIN stacks stop with "GC livelock": greedy on a super-block's
    total picked freshly sealed GC super-blocks with one member full, whose copies (kept on
    their plane by copy-back) sealed a GC super-block of the same shape, freeing nothing net.
    Greedy now weighs a super-block's fullest member (`rain/group_gc.rs::pick_victim`).
    Measured 2026-11-24: pb+rain read p99.9 1,528x nogc, base+rain 7,910x, ttflash 1.00x."""
    sets = ["--set", "geometry.blocks_per_plane=256", "--set", "geometry.pages_per_block=64"]
    out = tmp_path / "cp.json"
    args = ["experiment", "ttflash", "-d", "ttflash", *sets, "--trace",
            str(traces / "cloudphysics/cloudPhysicsIO.vscsi"), "--time-scale", "128", "--stack", "nogc",
            "--stack", "pb+rain", "--stack", "ttflash", "--json", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    c = json.loads(out.read_text())["configs"]
    read = {s: c[s]["latency_us"]["read"] for s in c}
    assert c["pb+rain"]["ttflash"]["rain"]["superblocks_collected"] > 0
    assert read["pb+rain"]["p99_9"] >= 5 * read["nogc"]["p99_9"]
    assert read["ttflash"]["p99_9"] <= 1.1 * read["nogc"]["p99_9"]


def test_repeat_options_are_checked(cli):
    assert_one_line_error(cli("experiment", "ttflash", "-w", "mixed70-small", "--repeat", "2"), "--repeat", "--trace only")
    assert_one_line_error(cli("run", "-w", "uniform", "--repeat", "2"), "--repeat", "--trace only")


def test_parity_space_is_the_devices_choice():
    """`rain.parity_space` set on the device reaches every RAIN stack of the experiment: "spare"
    runs on the device's own 64 blocks per plane, the default ("extra") on 74."""
    wl = tt.named_workload("mixed70-small", 3000)
    for space, blocks in (('"spare"', 64), ('"extra"', 74)):
        c = tt.run("ttflash-small", wl, overrides=[f"rain.parity_space={space}"], stacks=["nogc", "ttflash"])["configs"]
        assert c["ttflash"]["physical_blocks_per_plane"] == blocks, space
        assert c["nogc"]["physical_blocks_per_plane"] == 64

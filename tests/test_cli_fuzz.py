"""Issue 18: the command line fuzzed with hypothesis — any value of any `ssdlab run` option either
runs or is refused with one ``ssdlab: error:`` line and exit 2; never a traceback, a panic or an
exit status other than 0 and 2. In-process (``cli.main``), on a tiny device and a few hundred
requests (``--max-requests`` bounds every run whatever the drawn values)."""
from __future__ import annotations


import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from ssdlab.cli import main

BASE = ["run", "-d", "tiny", "-n", "300", "--max-requests", "300", "--no-precondition", "--no-progress"]

#: Options of `run` and the kind of value they take (names from its signature).
OPTIONS = {
    "--seed": "int", "--requests": "int", "--queue-depth": "int", "--request-pages": "int", "--disk": "int",
    "--max-requests": "int", "--read-fraction": "float", "--footprint": "float", "--hot-writes": "float",
    "--hot-space": "float", "--zipf-theta": "float", "--iops": "float", "--interval-us": "float",
    "--burst-requests": "float", "--burst-interval-us": "float", "--idle-mean-us": "float", "--idle-shape": "float",
    "--time-scale": "float", "--precondition-passes": "float", "--stale-fraction": "float",
    "--iostat-interval": "float", "--sample-interval": "float",
    "--workload": "text", "--arrival": "text", "--timing": "text", "--replay": "text", "--format": "text",
    "--lba-map": "text", "--gc": "text", "--victim": "text", "--idle-dist": "text", "--trim": "text",
    "--set": "text", "--device": "text",
}

NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "-0", "1e23", "nan", "inf", "-inf", "0x10", "1_000", "", " ", "4294967296", "18446744073709551616"]),
)
TEXT = st.one_of(
    st.text(min_size=0, max_size=20),
    st.sampled_from(["uniform", "hotcold", "zipf", "home1", "iozone", "on-off", "poisson", "none", "open", "closed",
                     "greedy", "d-choices:d=0", "d-choices:d=99999999999", "gc.victim=fifo", "gc.threshold_blocks=-1",
                     "geometry.channels=0", "geometry.pages_per_block=1e9", "x.y=1", "=", "tiny", "/nonexistent"]),
)


def value_for(kind: str):
    return NUMBERS if kind in ("int", "float") else st.one_of(TEXT, NUMBERS)


@st.composite
def argv(draw):
    args = list(BASE)
    for opt in draw(st.lists(st.sampled_from(sorted(OPTIONS)), min_size=1, max_size=3, unique=True)):
        args += [opt, draw(value_for(OPTIONS[opt]))]
    return args


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], derandomize=True)
@given(argv())
def test_any_option_value_runs_or_is_one_error_line(capsys, args):
    # capsys is read before and after each example: nothing carries over between them.
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(args)
    out, err = capsys.readouterr()
    code = e.value.code
    event(f"exit {code}")
    assert code in (0, 2), (args, code, err)
    assert "Traceback" not in err and "panicked" not in err, (args, err)
    if code == 2:
        lines = [l for l in err.splitlines() if l.strip()]
        assert len(lines) == 1 and lines[0].startswith("ssdlab: error: "), (args, err)
    else:
        assert "WAF" in out, (args, out)


@st.composite
def plausible_argv(draw):
    """Options that apply to the run, with values near and inside their ranges: most of these
    run, so what is exercised is the simulation of odd but valid settings."""
    pattern = draw(st.sampled_from(["uniform", "hotcold", "zipf", "sequential"]))
    args = list(BASE) + ["-w", pattern]
    unit = st.floats(min_value=0.0, max_value=1.0)
    opts = {
        "--seed": st.integers(0, 2**64 - 1),
        "--queue-depth": st.integers(1, 2**20),
        "--request-pages": st.integers(1, 64),  # larger: seconds of real work per example
        "--read-fraction": unit,
        "--footprint": st.floats(min_value=1e-9, max_value=1.0),
        "--sample-interval": st.floats(min_value=1e-12, max_value=1e3),
        "--victim": st.sampled_from(["greedy", "cost-benefit", "fifo", "random", "d-choices:d=1", "d-choices:d=64"]),
        "--gc": st.sampled_from(["blocking", "lazyrtgc", "idle-ma", "idle-es"]),
        "--timing": st.sampled_from(["timed", "none"]),
    }
    if pattern == "hotcold":
        opts.update({"--hot-writes": unit, "--hot-space": st.floats(min_value=1e-9, max_value=1 - 1e-9)})
    if pattern == "zipf":
        opts["--zipf-theta"] = st.floats(min_value=0.0, max_value=5.0)
    for opt in draw(st.lists(st.sampled_from(sorted(opts)), min_size=1, max_size=4, unique=True)):
        args += [opt, str(draw(opts[opt]))]
    return args


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(plausible_argv())
def test_valid_option_values_run_or_are_one_error_line(capsys, args):
    test_any_option_value_runs_or_is_one_error_line.hypothesis.inner_test(capsys, args)

"""scripts/pgo, the profile-guided build (issue 19; docs/speed.md, "A profile-guided build:
scripts/pgo"): it must build, train and give the same results as the standard build, on every
configuration of the benchmark matrix and a trace replay. Its speed is measured by
`scripts/pgo bench`, never here."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "pgo"


def _llvm_profdata_reachable() -> bool:
    """The script adds rustup's llvm-tools when missing; without rustup it needs them there."""
    if shutil.which("rustup"):
        return True
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True)
    host = subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout
    triple = next(line.split(": ", 1)[1] for line in host.splitlines() if line.startswith("host: "))
    return (Path(sysroot.stdout.strip()) / "lib" / "rustlib" / triple / "bin" / "llvm-profdata").exists()


def test_usage_error_is_one_line_and_exit_2():
    r = subprocess.run([str(SCRIPT), "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "pgo: error: usage: scripts/pgo install [PIP_ARGS...] | bench [RUNS [LINES]] | check | compare"
    ]


@pytest.mark.skipif(not shutil.which("cargo"), reason="needs cargo")
@pytest.mark.skipif(not _llvm_profdata_reachable(), reason="no rustup to add llvm-tools (llvm-profdata)")
def test_pgo_build_gives_the_same_results():
    env = dict(os.environ, PGO_N="100000")
    r = subprocess.run([str(SCRIPT), "check"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    configs = [line for line in (ROOT / "benches" / "configs.txt").read_text().splitlines()
               if line and not line.startswith("#")]
    assert f"pgo: check passed: {len(configs)} configurations and a replay" in r.stdout
    # And `compare` alone, on the builds the check left.
    r = subprocess.run([str(SCRIPT), "compare"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"pgo: compare passed: {len(configs)} configurations and a replay" in r.stdout


@pytest.mark.skipif(not shutil.which("cargo"), reason="needs cargo")
@pytest.mark.skipif(not _llvm_profdata_reachable(), reason="no rustup to add llvm-tools (llvm-profdata)")
def test_check_fails_when_the_results_differ():
    # The check's own failure path (a `diff` under `set -e` once swallowed its message): a copy
    # of the script whose optimised build is run with another victim policy must say which
    # configuration differs, in one line, and exit 2. `compare` is the check without its build
    # and training: run after the test above in the same worker (--dist loadfile), it finds
    # the builds there; on its own it makes them with `check` first.
    text = SCRIPT.read_text()
    line = '"$(tdir "$b")/ci/examples/bench" mqsim-small "$n" $sets < /dev/null'
    assert text.count(line) == 1
    sabotaged = text.replace(line, line.replace("$sets", "$sets $([[ $b == use ]] && echo gc.victim=fifo)"))
    copy = ROOT / "scripts" / f"pgo-sabotaged-{os.getpid()}"
    env = dict(os.environ, PGO_N="100000")
    if not (ROOT / "target" / "pgo" / "use" / "ci" / "examples" / "bench").exists():
        subprocess.run([str(SCRIPT), "check"], cwd=ROOT, check=True, capture_output=True, env=env)
    try:
        copy.write_text(sabotaged)
        copy.chmod(0o755)
        r = subprocess.run([str(copy), "compare"], cwd=ROOT, capture_output=True, text=True, env=env)
    finally:
        copy.unlink(missing_ok=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        "pgo: error: preset (copyback on, multi-plane on, single, round-robin, greedy, blocking):"
        " the PGO build's results differ"
    )

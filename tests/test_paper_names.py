""""paper" where the paper is meant (issue 57): in what a user reads — the CLI's help (every
command, as the docs site's reference prints it), ``ssdlab policies``, the Gymnasium
environments' docs and README — "seed" is only ever a random seed, or a former name said to be
one."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The uses of "seed" that are random seeds (or a former name, named as such).
RANDOM_SEED = [r"--seed\b", r"[Ss]eed of every random choice", r"same seed", r"\b\d+ seeds\b", r"× seeds",
               r"Seeds per scheduler", r"\(seeds ", r"simulation seed", r"\bseed=", r"one seed",
               r'``"seed"``']


def _left(text: str) -> list[str]:
    for pattern in RANDOM_SEED:
        text = re.sub(pattern, "", text)
    return [text[max(0, m.start() - 60):m.end() + 40].replace("\n", " ")
            for m in re.finditer(r"(?i)\bseed", text)]


def _run(*args: str) -> str:
    """``python -m`` a module (typer's docs generator; the CLI goes through conftest's runner)."""
    p = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


def test_the_cli_help_and_policies_say_paper(tmp_path, cli):
    out = tmp_path / "cli.md"
    _run("typer", "ssdlab.cli", "utils", "docs", "--name", "ssdlab", "--output", str(out))
    assert _left(out.read_text()) == []
    p = cli("policies")
    assert p.returncode == 0, p.stderr
    assert _left(p.stdout) == []


def test_the_env_docs_and_readme_say_paper():
    import ssdlab.envs
    from ssdlab.envs.gc_scheduling import GcSchedulingEnv
    from ssdlab.envs.slc_cache import SlcCacheEnv
    docs = [ssdlab.envs.__doc__, GcSchedulingEnv.__doc__, SlcCacheEnv.__doc__]
    assert _left("\n".join(d or "" for d in docs)) == []
    assert _left((ROOT / "README.md").read_text()) == []


def test_the_check_can_fail():
    assert _left("as the seed found (§III)") != []


def test_the_feature_sets_former_name_is_read_with_a_warning(cli):
    # The former name comes from the core's registry (never a second copy here).
    from ssdlab import registry
    assert registry.former("detector feature set") == {"seed": "paper"}
    # A bad --label, checked right after, stops it before any simulation.
    p = cli("detect", "train", "-o", "tree.json", "--features", "seed", "--label", "nope")
    assert p.returncode == 2
    assert "ssdlab: warning: --features seed: now named paper" in p.stderr


#: How "seed" reads when it means a paper ("the seed's Table I", "(seed: 99.66 %)", "seed Table 1").
PAPER_SEED = re.compile(r"\b[Tt]he\s+seed\b(?!\s+(?:of|is the key|aside|and|when|is drawn))|\bseed's\b|\(seed[ :]"
                        r"|^seed: |\bseed Table")
#: Its random-seed uses that the pattern also meets: (file, the text around it).
SWEEP_SEED = {("plots/source.py", "but the seed: what a sweep"), ("sweeps/spec.py", "(seed included)")}


def test_what_the_package_prints_says_paper():
    # Every string the Python package holds — table titles and headers the experiments print,
    # help texts, docstrings — so that an experiment's own output is covered, not only --help.
    import ast
    pkg = ROOT / "python" / "ssdlab"
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = str(path.relative_to(pkg))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for m in PAPER_SEED.finditer(node.value):
                    around = node.value[max(0, m.start() - 20):m.end() + 20]
                    if not any(rel == f and ok in " ".join(around.split()) for f, ok in SWEEP_SEED):
                        found.append(f"{rel}:{node.lineno}: {around!r}")
    assert found == []
    assert PAPER_SEED.search("(the seed: 99.66 % accuracy)") and PAPER_SEED.search("seed: ex/pr/gr writes")

"""The project's "two commands" rule: `.ci/run` runs exactly the test command README gives."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    """The one line of the code block after README's "Install the test extras" paragraph."""
    text = (ROOT / "README.md").read_text()
    after = text.split("Install the test extras and run every test", 1)[1]
    block = after.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 1, f"README's test command should be one line, got {lines}"
    return lines[0].strip()


def test_ci_runs_the_readme_test_command():
    command = readme_test_command()
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert command in ci, f".ci/run does not run README's test command {command!r}"


def test_the_test_command_checks_the_core_docs():
    # Broken intra-doc links in the core went unnoticed until 2026-11-29: CI builds its docs.
    command = readme_test_command()
    assert "RUSTDOCFLAGS='-D warnings' cargo doc --no-deps" in command
    # Private items too: the policies' modules, whose doc comments cite their papers.
    assert "--document-private-items" in command


def _block_after(text: str, heading: str) -> list[str]:
    """The commands of the first ``sh`` block after ``heading``, comments dropped."""
    block = text.split(heading, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_is_for_users_and_short():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    # Every picture and every doc it links to exists.
    import re
    for target in re.findall(r"\]\(((?:docs/|NOTES)[^)#]*)\)", text):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_the_readme_main_job_and_tour_run(tmp_path):
    """The main job (``ssdlab run`` of the install command) and every line of the five-minute
    tour, in order, in one folder (the tour's later lines read what earlier ones wrote)."""
    import shlex

    from conftest import TRACES, run_cli
    text = (ROOT / "README.md").read_text()
    install = _block_after(text, "## Install and the two commands")
    assert install == ["pip install . && ssdlab run"]
    tour = _block_after(text, "## A five-minute tour")
    assert len(tour) >= 5
    skipped = []
    for line in ["ssdlab run", *tour]:
        args = shlex.split(line)
        assert args[0] == "ssdlab", line
        if any(a.startswith("../shared/traces/") for a in args):
            if not TRACES.is_dir():
                skipped.append(line)
                continue
            args = [str(TRACES / a[len("../shared/traces/"):]) if a.startswith("../shared/traces/") else a
                    for a in args]
        p = run_cli(*args[1:], cwd=tmp_path, timeout=600)
        assert p.returncode == 0, f"{line}: exit {p.returncode}\n{p.stderr[-2000:]}"
    assert (tmp_path / "ccdf.png").stat().st_size > 0
    if skipped:
        import pytest
        pytest.skip(f"trace excerpts not found at {TRACES}: not run: {skipped}")
    assert (tmp_path / "cp.html").stat().st_size > 0

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

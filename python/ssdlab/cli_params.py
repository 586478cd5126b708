"""Ranges of the command line's numeric options, checked where the command line is parsed.

Without them a negative count or a NaN reaches the core as JSON and comes back as serde's
"expected u64 at line 1 column 11", or — for an option the run does not use — not at all. One
table, keyed by the option's long name, holds every range; an option not in it is a count or a
quantity: a whole number in the core's u64, or a finite number ≥ 0. :func:`guard` attaches the
check to every int and float option of a command tree, so a new option is checked by default,
and checks that every output file can be written before a long run starts, not after it.
"""
from __future__ import annotations

import math
import os
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

U32 = 2**32 - 1
U64 = 2**64 - 1


@dataclass(frozen=True)
class Range:
    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False

    def holds(self, v: float) -> bool:
        if not math.isfinite(v):
            return False
        above = v > self.lo if self.lo_open else v >= self.lo
        below = v < self.hi if self.hi_open else v <= self.hi
        return above and below

    def describe(self, integer: bool) -> str:
        kind = "a whole number" if integer else "a finite number"
        if self.hi in (U32, U64, math.inf):
            cap = f" (at most {self.hi:,})" if integer and self.hi in (U32, U64) else ""
            return f"{kind} {'>' if self.lo_open else '≥'} {self.lo:g}{cap}"
        return f"{kind} in {'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}"


COUNT = Range(1, U64)
COUNT32 = Range(1, U32)
POSITIVE = Range(0, math.inf, lo_open=True)
FRACTION = Range(0, 1)

#: Every range that is not the default's (whole numbers 0..2^64-1; finite numbers ≥ 0).
RANGES: dict[str, Range] = {
    "--requests": COUNT, "--max-requests": COUNT, "--repeat": COUNT32, "--points": COUNT, "--count": COUNT,
    "--playouts": COUNT, "--psi": COUNT, "--blocks": COUNT32, "--logical-pages": COUNT,
    "--request-pages": COUNT32, "--queue-depth": COUNT32, "--pages-per-block": COUNT32, "--page-size": COUNT32,
    "--request-kib": COUNT32, "--window": COUNT32, "--disk": Range(0, U32),
    "--read-fraction": FRACTION, "--hot-writes": FRACTION, "--footprint": Range(0, 1, lo_open=True),
    "--hot-space": Range(0, 1, lo_open=True, hi_open=True), "--stale-fraction": Range(0, 1, hi_open=True),
    "--spare": Range(0, 1, lo_open=True, hi_open=True), "--label-threshold": Range(0, 1, hi_open=True),
    "--utilisation": Range(0, 1, lo_open=True), "--precondition-fill": Range(0, 1, lo_open=True),
    "--iops": POSITIVE, "--interval-us": POSITIVE, "--burst-requests": POSITIVE, "--idle-mean-us": POSITIVE,
    "--idle-shape": POSITIVE, "--time-scale": POSITIVE, "--iostat-interval": POSITIVE, "--sample-interval": POSITIVE, "--seconds": POSITIVE,
    "--train-seconds": POSITIVE, "--eval-seconds": POSITIVE, "--manage-seconds": POSITIVE,
    "--fstrim-period": POSITIVE, "--floor-mbps": POSITIVE, "--interval": POSITIVE, "--data-gb": POSITIVE,
}


def _numeric(annotation: Any) -> Optional[type]:
    """int or float if the option holds one (or an optional one, or a list of them)."""
    if annotation in (int, float):
        return annotation
    for a in typing.get_args(annotation):
        if a in (int, float):
            return a
    return None


def _kind(p: Any) -> tuple[Optional[type], bool]:
    """What option ``p`` holds: int, float or neither, and whether it is a path. typer 0.29
    keeps the annotation (``type_descriptor``); earlier ones a click parameter type, named
    ``int``, ``float`` or ``path`` (click's public ``ParamType.name``)."""
    descriptor = getattr(p, "type_descriptor", None)
    if descriptor is not None:
        annotation = getattr(descriptor, "annotation", None)
        return _numeric(annotation), Path in (annotation, *typing.get_args(annotation))
    name = getattr(getattr(p, "type", None), "name", "")
    kind = {"int": int, "integer": int, "integer range": int, "float": float, "float range": float}.get(name)
    return kind, name == "path"


def range_of(opts: list[str], kind: type) -> Range:
    for o in opts:
        if o in RANGES:
            return RANGES[o]
    return Range(0, U64) if kind is int else Range(0, math.inf)


def _checked(callback: Any, kind: type, r: Range) -> Any:
    def check(ctx: Any, param: Any, value: Any) -> Any:
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if v is not None and not r.holds(v):
                raise typer.BadParameter(f"expected {r.describe(kind is int)}, got {v!r}", ctx=ctx, param=param)
        return callback(ctx, param, value) if callback is not None else value
    return check


#: Options that name a file the command writes: checked before the work, not after it.
OUTPUTS = {"--json", "--rules", "--output", "--report"}
#: Outputs by command (where the same option name is an input elsewhere).
COMMAND_OUTPUTS = {("detect", "train"): {"--model"}, ("experiment", "detect"): {"--model"}}


def writable(path: Path) -> Optional[str]:
    """Why ``path`` cannot be written (None if it can): its folder must exist and be writable,
    and it must not be a folder itself."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        return f"folder {folder} does not exist"
    if path.is_dir():
        return "is a folder; expected a file name"
    if path.exists() and not os.access(path, os.W_OK):
        return "exists and is not writable"
    if not path.exists() and not os.access(folder, os.W_OK):
        return f"folder {folder} is not writable"
    return None


def _output(callback: Any) -> Any:
    def check(ctx: Any, param: Any, value: Any) -> Any:
        if value is not None and str(value) != "-":  # '-': standard output
            why = writable(Path(value))
            if why is not None:
                raise typer.BadParameter(f"cannot write {value}: {why}", ctx=ctx, param=param)
        return callback(ctx, param, value) if callback is not None else value
    return check


def guard(command: Any, path: tuple[str, ...] = ()) -> Any:
    """Attach the range check to every int and float option of ``command`` and its
    subcommands (a click command tree, as typer builds it), and the writability check to
    every output file option; returns ``command``."""
    for name, sub in (getattr(command, "commands", None) or {}).items():
        guard(sub, (*path, name))
    outputs = OUTPUTS | COMMAND_OUTPUTS.get(path, set())
    for p in getattr(command, "params", []):
        kind, is_path = _kind(p)
        if is_path and outputs & set(p.opts):
            p.callback = _output(p.callback)
            continue
        if kind is None or getattr(p, "is_flag", False):
            continue
        p.callback = _checked(p.callback, kind, range_of(list(p.opts), kind))
    return command

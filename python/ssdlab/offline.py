"""Offline cleaning (Shafaei & Desnoyers, "Near-Optimal Offline Cleaning for Flash-Based SSDs"):
run online baselines and offline searches (exhaustive, pruned, MCTS) on one workload in the
single-write-frontier demand-cleaning model of the paper's §II, and get typed reports.

>>> from ssdlab import offline
>>> run = offline.run_offline(offline.toy("gamma"), ["greedy", offline.method("mcts", playouts=64)])
>>> run.reports["mcts"].internal_writes <= run.reports["greedy"].internal_writes
True

The device is scaled to the workload's write footprint unless ``blocks`` is given:
``blocks = ceil(footprint / (pages_per_block * (1 - spare))) + 1`` (one block for the write
frontier), prefilled with one sequential write of every logical page (§IV-C). Toy workloads
(Table I) always run on 8 blocks of 4 pages without prefill.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from ssdlab import _core, registry
from ssdlab.workload import WorkloadSpec
from ssdlab.errors import WorkloadError, core_json

#: The Table I toy distributions (§IV-A).
TOY_DISTRIBUTIONS = registry.names("toy distribution")

MethodSpec = Union[str, dict]


def toy(dist: str, *, writes: Optional[int] = None, footprint: Optional[int] = None,
        seed: Optional[int] = None) -> WorkloadSpec:
    """A Table I toy trace: ``dist`` in :data:`TOY_DISTRIBUTIONS`; 46 writes (the core's default)
    on 8 x 4 pages, drawn conditioned on ``footprint`` distinct pages (default: the distribution's
    Table I footprint, ``TOY_DEFAULTS["footprints"]``); ``seed`` is the draw (default 1)."""
    spec: dict[str, Any] = {"kind": "toy", "dist": dist}
    if writes is not None:
        spec["writes"] = writes
    if footprint is not None:
        spec["footprint"] = footprint
    if seed is not None:
        spec["seed"] = seed
    return spec


def method(name: str, **params: Any) -> dict:
    """A method with parameters, e.g. ``method("mcts", playouts=1024, psi=8)``."""
    return {"name": name, **params}


def methods() -> list[tuple[str, str]]:
    """(name, summary) of every offline method."""
    return [(m["name"], m["summary"]) for m in registry.family("offline method")["members"]]


@dataclass(frozen=True)
class ConvergencePoint:
    """Best schedule after ``playouts`` MCTS playouts (the paper's Fig. 8)."""

    playouts: int
    internal_writes: int
    improvement_pct: float


@dataclass(frozen=True)
class OfflineReport:
    """One method's result; ``improvement_pct`` is (greedy - this) / greedy internal writes."""

    method: str
    params: dict
    seed: int
    host_writes: int
    prefill_writes: int
    internal_writes: int
    waf: float
    cleanings: int
    schedules_explored: int
    #: The paper's Table I "Traverses": root-to-leaf paths of the method's unbounded tree (DFS),
    #: playouts (MCTS), 1 (online policies); ``traverses_estimated`` when it is Knuth's estimate.
    traverses: int
    traverses_estimated: bool
    playouts: int
    better_than_greedy: int
    greedy_internal_writes: int
    improvement_pct: float
    complete: bool
    revalidated: bool
    convergence: list[ConvergencePoint] = field(default_factory=list)
    schedule: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def from_dict(cls, d: dict) -> "OfflineReport":
        d = dict(d)
        d["convergence"] = [ConvergencePoint(**c) for c in d.get("convergence", [])]
        return cls(**d)

    def to_dict(self, schedule: bool = True) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("convergence", "schedule")}
        out["convergence"] = [c.__dict__ for c in self.convergence]
        if schedule:
            out["schedule"] = list(self.schedule)
        return out


@dataclass(frozen=True)
class OfflineProblem:
    """The device and page-write sequence the methods ran on."""

    blocks: int
    pages_per_block: int
    logical_pages: int
    prefill: bool
    requests: int
    write_requests: int
    page_writes: int
    footprint: int
    spare: float
    source: str

    @classmethod
    def from_dict(cls, d: dict) -> "OfflineProblem":
        c = d["config"]
        return cls(blocks=c["blocks"], pages_per_block=c["pages_per_block"], logical_pages=c["logical_pages"],
                   prefill=c["prefill"], requests=d["requests"], write_requests=d["write_requests"],
                   page_writes=d["page_writes"], footprint=d["footprint"], spare=d["spare"], source=d["source"])

    @property
    def toy_sized(self) -> bool:
        """Small enough for exhaustive search: at most 64 physical pages and 64 page writes."""
        return self.blocks * self.pages_per_block <= TOY_LIMIT and self.page_writes <= TOY_LIMIT


#: Exhaustive and pruned DFS run only when physical pages and page writes are both at most this
#: (Table I's problems are 32 and 46); the trees grow exponentially beyond.
TOY_DEFAULTS: dict = registry.defaults()["toy"]
TOY_LIMIT: int = TOY_DEFAULTS["exhaustive_limit"]


#: Multi-frontier placements of the core FTL compared in the paper's Figure 9 (§IV-F).
PLACEMENTS = ("dual-frontier", "hot-cold", "eti", "oracle")


@dataclass(frozen=True)
class PlacementReport:
    """The trace replayed through the FTL with a multi-frontier placement and greedy cleaning;
    ``blocks`` is the model's T plus one block per extra open frontier."""

    placement: str
    host_writes: int
    prefill_writes: int
    internal_writes: int
    waf: float
    cleanings: int
    blocks: int

    def improvement_pct(self, greedy_internal_writes: int) -> float:
        g = greedy_internal_writes
        return 0.0 if g == 0 else (g - self.internal_writes) / g * 100.0


@dataclass(frozen=True)
class OfflineRun:
    problem: OfflineProblem
    reports: dict[str, OfflineReport]
    placements: dict[str, PlacementReport] = field(default_factory=dict)


def _as_method(m: MethodSpec) -> dict:
    return {"name": m} if isinstance(m, str) else dict(m)


def run_offline(
    workload: WorkloadSpec,
    methods: Union[MethodSpec, Sequence[MethodSpec]],
    *,
    pages_per_block: int = 128,
    blocks: Optional[int] = None,
    spare: float = 0.07,
    page_size: int = 4096,
    logical_pages: Optional[int] = None,
    prefill: bool = True,
    seed: int = 1,
    placements: Sequence[str] = (),
) -> OfflineRun:
    """Load ``workload`` once (trace, synthetic or :func:`toy`) and run each method on it.

    Methods are names (``"greedy"``) or dicts from :func:`method`. Trace workloads should use
    ``lba_map="dense"`` (see :func:`trace`). ``placements`` (names from :data:`PLACEMENTS`) are
    replayed on the same trace for the Figure 9 comparison. Raises the ssdlab error classes on
    bad input.
    """
    ms = [_as_method(methods)] if isinstance(methods, (str, dict)) else [_as_method(m) for m in methods]
    setup: dict[str, Any] = {"pages_per_block": pages_per_block, "spare": spare, "page_size": page_size, "prefill": prefill}
    if blocks is not None:
        setup["blocks"] = blocks
    if logical_pages is not None:
        setup["logical_pages"] = logical_pages
    out = json.loads(_core.run_offline_json(core_json(workload, "workload", WorkloadError), core_json(setup, "offline"), core_json(ms, "offline.method"), seed,
                                            json.dumps(list(placements))))
    return run_from_core(out)


def run_from_core(out: dict[str, Any]) -> OfflineRun:
    """An :class:`OfflineRun` from the core's comparison JSON (``problem``, ``reports``, ``placements``)."""
    reports = {r["method"]: OfflineReport.from_dict(r) for r in out["reports"]}
    placed = {p["placement"]: PlacementReport(**p) for p in out.get("placements", [])}
    return OfflineRun(problem=OfflineProblem.from_dict(out["problem"]), reports=reports, placements=placed)


@dataclass(frozen=True)
class ToyRow:
    """One toy draw of Tables I and II: its comparison and MCTS against the pruned DFS (the
    core's ``MctsMatch``: ``target``, ``budget``, ``runs``, ``reached``, ``playouts_needed``,
    ``traverses_pct``, ``accuracy_pct``)."""

    dist: str
    draw: int
    run: OfflineRun
    mcts: dict


def table_one(seed: int = 1, draws: Optional[int] = None, jobs: Optional[int] = None,
              progress: Optional[Callable[[int, int], None]] = None) -> list[ToyRow]:
    """Tables I and II (§IV-A, §IV-B) on ``draws`` draws (seeds ``seed``, ``seed + 1``, …) of each
    toy distribution, run by the core, up to ``jobs`` draws at once on threads (default: the
    core's, one per CPU; no result depends on it)."""
    n = TOY_DEFAULTS["draws"] if draws is None else draws
    return [ToyRow(dist=row["dist"], draw=row["draw"], run=run_from_core(row), mcts=row["mcts"])
            for row in json.loads(_core.offline_table_one_json(seed, n, jobs, progress=progress))]


def trace(path: Union[str, Path], *, format: str = "auto", lba_map: str = "dense", max_requests: Optional[int] = None) -> WorkloadSpec:
    """A trace workload for the offline model; ``dense`` compacts the footprint (the default here)."""
    from ssdlab.workload import trace as _trace

    return _trace(path, format=format, lba_map=lba_map, max_requests=max_requests)

"""``ssdlab sweep --example``: a ready specification, its policy names from the core's registry."""
from __future__ import annotations

from ssdlab import registry

#: The parameter a parameterised victim policy (``d-choices:d=N``) gets in the example.
EXAMPLE_D = 4
SPARE_FACTORS = (0.07, 0.1, 0.15, 0.2, 0.28)
SEEDS = (1, 2)


def victims() -> list[str]:
    """Every victim policy of the registry (``…=N`` given :data:`EXAMPLE_D`)."""
    return [n.replace("=N", f"={EXAMPLE_D}") for n in registry.names("victim policy")]


def example_spec() -> str:
    v = victims()
    n = len(v) * len(SPARE_FACTORS) * len(SEEDS)
    quoted = ", ".join(f'"{x}"' for x in v)
    return f'''# An ssdlab sweep (docs/sweep.md): every victim policy × 5 spare factors × 2 seeds = {n} runs
# on the tiny preset (4 planes × 64 blocks × 32 pages of 4 KiB), each preconditioned to
# steady-state GC, then 20,000 uniformly random 4 KiB writes at queue depth {registry.defaults()["queue_depth"]}.
#
#   ssdlab sweep --example > victims.toml
#   ssdlab sweep victims.toml -o victims.results        # resumable: run it again after Ctrl-C
#   python -c "import ssdlab; print(ssdlab.load('victims.results'))"

[sweep]
name = "victim-x-spare"
description = "WAF and tail latency of every victim policy as the spare factor grows"

[base]                                  # every run's values, unless an axis sets them
device = "tiny"                         # a preset (ssdlab devices) or a device TOML file
workload.pattern = "uniform"            # workload.<field>: the workload's fields
workload.requests = 20_000
options.precondition = true             # options.<name>: run options (sequential fill, 2 random passes)
options.queue_depth = {registry.defaults()["queue_depth"]}

[grid]                                  # axes: the runs are every combination of their values
set.gc.victim = [{quoted}]
set.geometry.spare_factor = [{", ".join(repr(s) for s in SPARE_FACTORS)}]
seed = [{", ".join(str(s) for s in SEEDS)}]

# Explicit runs go after the grid's, each on top of [base]:
# [[runs]]
# set.gc.victim = "greedy"
# set.gc.threshold_blocks = 4
'''

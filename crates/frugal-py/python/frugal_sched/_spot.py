"""Paper 005 ("Can't Be Late", Wu et al., NSDI 2024): one deadline job on spot and
on-demand capacity, every policy on many windows of spot availability traces."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Literal

import pandas as pd

from frugal_sched import _native
from frugal_sched._runs import _as_int, _as_number

#: The policies built into frugal (``time-sliced`` and ``omniscient-lookahead`` take a
#: slice count, e.g. ``"time-sliced:8"``).
POLICIES = (
    "on-demand",
    "greedy",
    "time-sliced:N",
    "uniform-progress",
    "uniform-progress-plain",
    "uniform-progress-oracle",
    "omniscient",
    "omniscient-lookahead:N",
)

#: The paper's trace sets, read from ``$FRUGAL_SPOT_TRACES`` or ``shared/data/spot-traces``
#: beside the project (synthetic stand-ins where neither is found).
TRACE_SETS = ("synthetic", "2-week", "2-month", "4-node", "16-node")

#: What a policy callable returns.
MODES = ("idle", "spot", "on-demand")


def spot(
    *,
    traces: str | os.PathLike = "synthetic",
    synthetic_fallback: bool = False,
    ticks: int | None = None,
    zones: Iterable[str] = (),
    policies: Iterable[str] = ("on-demand", "greedy", "uniform-progress", "omniscient"),
    work_h: float = 48.0,
    job_fraction: float | None = None,
    deadline_h: float | None = None,
    changeover_h: float = 0.2,
    instances: int = 1,
    windows: int | None = None,
    start_h: float | None = None,
    min_trace_left_h: float | None = None,
    seed: int = 1,
    spot_price_per_h: float = 0.9731,
    on_demand_price_per_h: float = 3.06,
    last_tick: Literal["whole", "prorated"] = "whole",
    custom: Mapping[str, Callable[[dict], str]] | None = None,
) -> pd.DataFrame:
    """Runs every policy on ``windows`` windows of each trace and returns one row per
    (window, policy), as ``frugal spot --format csv``.

    Args:
        traces: ``"synthetic"`` (shipped stand-ins for the paper's 2-week set), a set of the
            paper's traces (``"2-week"``, ``"2-month"``, ``"4-node"``, ``"16-node"``; refused
            when absent unless ``synthetic_fallback``), a folder of trace files or one trace
            file (``{"metadata": {"gap_seconds": g}, "data": [...]}``).
        synthetic_fallback: when the ``traces`` set is not found, run the synthetic
            stand-ins instead (said on stderr; the ``traces`` column says ``synthetic``).
        ticks: use only the first ``ticks`` ticks of each trace (the 2-week set: 1781).
        zones: only these traces (file stems such as ``"us-west-2a_v100_1"``).
        policies: names from :data:`POLICIES`.
        work_h: C(0), the job's work in hours.
        job_fraction: f = C(0)/R(0) in (0, 1]; or give ``deadline_h`` (default f = 0.8).
        deadline_h: R(0), hours from the start to the deadline.
        changeover_h: d, the billed delay of every (re)start, hours.
        instances: N, instances of the gang (all or none run).
        windows: windows drawn per trace (seeded by ``seed``; default 300).
        start_h: start each trace's one window this many hours into the trace instead of
            drawing random starts (``windows`` may then only be 1).
        min_trace_left_h: trace a window must leave, hours (default max(R(0), 120)).
        seed: seed of the windows and the synthetic traces.
        spot_price_per_h, on_demand_price_per_h: prices in dollars per instance-hour
            (a trace file with per-tick ``prices`` bills its spot ticks at those instead).
        last_tick: ``"whole"`` (the last tick billed whole) or ``"prorated"``.
        custom: your own policies, name → callable. The callable gets a dict (``tick``,
            ``elapsed_s``, ``gap_s``, ``mode``, ``spot_available``, ``work_done_s``,
            ``work_left_s``, ``overhead_left_s``, ``work_s``, ``deadline_s``,
            ``changeover_s``) each tick and returns a mode of :data:`MODES`. It runs on
            one thread, a Python call per tick.

    Returns:
        One row per (window, policy): ``traces`` (which source ran), ``trace``,
        ``window`` (start tick), ``job_fraction``, ``deadline`` (tight/loose),
        ``window_spot_pct``, ``spot`` (high/low), ``changeover_h``, ``instances``,
        ``policy``, ``cost_usd``, billed ``on_demand_h`` and ``spot_h``, progress
        ``on_demand_work_h`` and ``spot_work_h``, ``changeovers``, ``preemptions``
        (integers), ``finish_h``, ``deadline_met`` (bool), ``savings_pct`` (against
        on-demand only) and ``gap_pct`` (against the omniscient optimum of the window,
        when it ran).

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: a value that cannot be used (the message names the argument), or a
            policy that returns something other than a mode.
        FileNotFoundError: ``traces`` is neither a set nor an existing folder or file.
    """
    traces = os.fspath(traces)
    if traces not in TRACE_SETS and not Path(traces).exists():
        raise FileNotFoundError(
            f"traces: {traces!r} is neither a trace set ({', '.join(TRACE_SETS)}), a folder "
            "nor a file"
        )
    if not isinstance(synthetic_fallback, bool):
        raise TypeError(f"synthetic_fallback must be True or False, got {synthetic_fallback!r}")
    for name, value in [("zones", zones), ("policies", policies)]:
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise TypeError(f"{name} must be a list of strings, got {value!r}")
        if not all(isinstance(v, str) for v in value):
            raise TypeError(f"{name} must be a list of strings, got {value!r}")
    numbers = {
        "work_h": work_h,
        "job_fraction": job_fraction,
        "deadline_h": deadline_h,
        "changeover_h": changeover_h,
        "min_trace_left_h": min_trace_left_h,
        "start_h": start_h,
        "spot_price_per_h": spot_price_per_h,
        "on_demand_price_per_h": on_demand_price_per_h,
    }
    numbers = {name: _as_number(name, value) for name, value in numbers.items()}
    integers = {name: _as_int(name, value) for name, value in
                {"ticks": ticks, "instances": instances, "windows": windows, "seed": seed}.items()}
    for name, value in integers.items():
        if value is not None and value < 0:
            raise ValueError(f"{name} must be at least 0, got {value}")
    custom = dict(custom or {})
    for name, f in custom.items():
        if not callable(f):
            raise TypeError(f"custom[{name!r}] must be callable, got {type(f).__name__}")
    spec = {
        "traces": traces,
        "synthetic_fallback": synthetic_fallback,
        "zones": list(zones),
        "policies": list(policies),
        "last_tick": last_tick,
        **numbers,
        **integers,
    }
    text = _native.spot_csv(json.dumps(spec), list(custom.items()))
    return pd.read_csv(io.StringIO(text), dtype={"trace": str, "policy": str})

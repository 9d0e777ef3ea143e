"""Paper 006 (SkyNomad, Li et al., NSDI '27): one deadline job on spot and on-demand
capacity across many zones, every policy on a published scenario's windows, beside the
exact multi-zone optimum and the artifact's published costs."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import pandas as pd

from frugal_sched import _native
from frugal_sched._runs import _as_int, _as_number

_POLICY_NAMES, _SCENARIO_NAMES = _native.zone_names()

#: The built-in multi-zone policies (the native enum's names, in its order).
ZONE_POLICIES: tuple[str, ...] = tuple(_POLICY_NAMES)

#: The published scenarios (the native enum's names, in its order).
SCENARIOS: tuple[str, ...] = tuple(_SCENARIO_NAMES)


def zones(
    *,
    scenario: Literal["v100", "h100-global-diverse", "h100-progressive", "h100-us",
                      "h100-europe", "h100-asia", "h100-global", "v100-4node",
                      "h100-8zone"] = "v100",
    policies: Iterable[str] = ("optimal", "up-s", "up-a", "up-ap"),
    first_zones: int | None = None,
    ratio: float | None = None,
    checkpoint_gb: float | None = None,
    final_tick: Literal["bill", "omit"] = "bill",
    windows: int | None = None,
    single_zone_price_lag: bool = False,
    artifact_probe_billing: bool = False,
    custom: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None,
) -> pd.DataFrame:
    """Runs every policy on each window of a published scenario and returns one row per
    (window, policy[, zone]), as ``frugal zones --csv``. With ``"optimal"`` among the
    policies every row carries its gap to the exact optimum: the score of a policy of
    yours, on the artifact's own traces.

    Args:
        scenario: ``"v100"`` (Fig 9b: 3 AWS zones, 195-s ticks),
            ``"h100-global-diverse"`` (Figs 9a, 10a, 12: 6 GCP zones, 600-s ticks),
            ``"h100-progressive"`` (Fig 10b: 13 zones in the order the figure adds them),
            or Fig 15's ``"h100-us"`` (8 zones), ``"h100-europe"`` (2), ``"h100-asia"``
            (3) and ``"h100-global"`` (13), or Table 2's ``"v100-4node"`` and
            ``"h100-8zone"``: see :data:`SCENARIOS`.
        policies: names from :data:`ZONE_POLICIES`.
        first_zones: only the scenario's first N zones, in its order (default all).
        ratio: T/P, the deadline over the work (default the scenario's: 1.5, or 1.2 for
            the Fig 10b and 15 scenarios).
        checkpoint_gb: S, the checkpoint's size in GB (default 50).
        final_tick: ``"bill"`` (the true bill) or ``"omit"`` (as the artifact's figures
            report: the tick the job finishes in left out).
        windows: only the first ``windows`` windows.
        single_zone_price_lag: bill single-zone UP's spot tick i at tick i + 1's price (the
            artifact's single-zone environment).
        artifact_probe_billing: bill a probe of the zone where the job's own instance runs
            as the artifact's environment does.
        custom: your own policies, name → callable. Each tick (under the safety net, as
            every online policy) the callable gets a dict: ``tick``, ``elapsed_s``,
            ``gap_s``, ``work_s`` (P), ``deadline_s`` (T), ``changeover_s`` (d),
            ``checkpoint_gb``, ``work_done_s``, ``work_left_s``, ``overhead_left_s``,
            ``location`` (the checkpoint's zone index or None), ``active`` (None or
            ``{"zone": z, "mode": "spot" | "on-demand"}``), ``zones`` (a list of
            ``{"name", "region", "spot_per_h", "on_demand_per_h"}``, this tick's prices)
            and ``results`` (the outcomes, True/False, of last tick's launches and probes,
            in order). It returns a list of items tried in order: ``"keep"`` or ``"idle"``
            end the tick; ``("spot", z)`` and ``("on-demand", z)`` end it when the launch
            succeeds (spot only where the zone has spot now; a launch replaces what runs);
            ``("probe", z)`` learns whether z has spot (billed 60 s of spot when it has)
            and goes on. Spot availability is learned only by trying and probing.

    Returns:
        One row per (window, policy) (single-zone ``up``: per zone too): ``scenario``,
        ``ratio``, ``window`` (start tick), ``policy``, ``zone``, ``cost_usd`` (as
        ``final_tick`` reports), ``bill_usd``, ``egress_usd``, ``probe_usd``, ``starts``,
        ``migrations``, ``preemptions``, ``finish_h``, ``gap_usd`` (cost − the exact
        optimum's, when ``"optimal"`` ran), ``published_usd`` and ``diff_published_usd``
        (the artifact's stored cost of the same arm, where there is one) and ``note``.

    Raises:
        TypeError: an argument of the wrong type.
        ValueError: a value that cannot be used (the message names the argument), or a
            policy that returns something other than a list of items.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario: {scenario!r} is not one of {', '.join(SCENARIOS)}")
    if isinstance(policies, str) or not isinstance(policies, Iterable):
        raise TypeError(f"policies must be a list of strings, got {policies!r}")
    policies = list(policies)
    if not all(isinstance(p, str) for p in policies):
        raise TypeError(f"policies must be a list of strings, got {policies!r}")
    for name, value in [("single_zone_price_lag", single_zone_price_lag),
                        ("artifact_probe_billing", artifact_probe_billing)]:
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    custom = dict(custom or {})
    for name, f in custom.items():
        if not callable(f):
            raise TypeError(f"custom[{name!r}] must be callable, got {type(f).__name__}")
    windows = _as_int("windows", windows)
    if windows is not None and windows < 1:
        raise ValueError(f"windows must be at least 1, got {windows}")
    first_zones = _as_int("first_zones", first_zones)
    if first_zones is not None and first_zones < 1:
        raise ValueError(f"first_zones must be at least 1, got {first_zones}")
    spec = {
        "scenario": scenario,
        "policies": policies,
        "first_zones": first_zones,
        "ratio": _as_number("ratio", ratio),
        "checkpoint_gb": _as_number("checkpoint_gb", checkpoint_gb),
        "final_tick": final_tick,
        "windows": windows,
        "single_zone_price_lag": single_zone_price_lag,
        "artifact_probe_billing": artifact_probe_billing,
    }
    text = _native.zones_csv(json.dumps(spec), list(custom.items()))
    return pd.read_csv(io.StringIO(text), dtype={"policy": str, "zone": str, "note": str},
                       keep_default_na=False, na_values={"gap_usd": [""], "published_usd": [""],
                                                         "diff_published_usd": [""]})

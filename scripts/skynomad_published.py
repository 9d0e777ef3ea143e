#!/usr/bin/env python3
"""Extracts the SkyNomad artifact's stored per-window results into
data/skynomad/published.csv (Apache-2.0, as the artifact).

    python3 scripts/skynomad_published.py ARTIFACT_CHECKOUT [TABLE2_RUN ...] \
        > data/skynomad/published.csv

Reads research/data/v100.csv (Fig 9b), research/data/deadline_sensitivity.csv (Figs 9a
and 10a), research/data/checkpoint_sensitivity.csv (Fig 12), region_scaling.csv (Fig 10b)
and region_selection.csv (Fig 15) and writes one row per (scenario, zone count, ratio,
checkpoint size, window, arm): the window's
first tick as the sweep names it (round(env_start_hours·3600/g)), the arm under frugal's
name, the zone of a single-zone row, the reported cost (final tick omitted for the
multi-zone arms, as the figures report it) and the migrations. The sweep's aggregate rows
(best and average single zone) are left out: they are means of the per-zone rows.

Table 2 (§A.7) has no stored per-window results: the artifact pins only its means (in
tests/test_a7_table.py). Each TABLE2_RUN is the output folder of its own driver run on
the Table's configs (scripts_multi/benchmark_multi_region_modular.py --config
v_ablation_v100_4node, --config v_ablation_h100); its scenario_results_t12.csv rows are
added as the per-window results behind the Table's means.
"""

import csv
import sys
from pathlib import Path

ARMS = {
    "multi_region_oracle_dp": "artifact-optimal",
    "unified_cost_model_rate_ratio": "skynomad",
    "ucm_v_alpha_05": "skynomad-v-alpha05",
    "ucm_v_s2t1": "skynomad-v-quadratic",
    "ucm_v_hjb_exp": "skynomad-v-hjb-exp",
    "ucm_v_s5t1": "skynomad-v-time-only",
    "ucm_v_neely_dpp": "skynomad-v-neely-dpp",
    "unified_cost_model_risk": "skynomad",
    "unified_cost_model_oracle": "skynomad-oracle",
    "multi_region_rc_cr_threshold_eager_failover": "up-s",
    "multi_region_availability_probe_simple": "up-a",
    "multi_region_probe_cost_ratio": "up-ap",
    "rc_cr_threshold": "up",
}
SOURCES = [
    ("v100.csv", "v100", 195.0),
    ("deadline_sensitivity.csv", "h100-global-diverse", 600.0),
    ("checkpoint_sensitivity.csv", "h100-global-diverse", 600.0),
    ("region_scaling.csv", None, 600.0),
    ("region_selection.csv", None, 600.0),
]
# The sweeps' scenario names as frugal's scenarios (Fig 10b's Progressive_n: the first n
# zones of h100-progressive).
SCENARIOS = {
    "US Only (8)": "h100-us",
    "Europe Only (2)": "h100-europe",
    "Asia Only (3)": "h100-asia",
    "Global (13)": "h100-global",
    "V100 4-node AWS (3 zones)": "v100-4node",
    "H100 8-region": "h100-8zone",
}
# Table 2's driver also runs the log-barrier under its ablation name (the same closed form
# as unified_cost_model_rate_ratio, window for window) and single-zone UP (not in the
# Table): left out.
TABLE2_SKIPPED = {"ucm_v_log_barrier", "rc_cr_threshold"}
ZONE_COUNTS = {"v100": 3, "h100-global-diverse": 6}


def scenario_of(r: dict, fixed: str | None) -> tuple[str, int]:
    """frugal's scenario and zone count of a stored row."""
    if fixed is not None:
        return fixed, ZONE_COUNTS[fixed]
    name = r["scenario_name"]
    if name.startswith("Progressive_"):
        return "h100-progressive", int(name.split("_")[1])
    return SCENARIOS[name], int(r["num_regions"])


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: skynomad_published.py ARTIFACT_CHECKOUT [TABLE2_RUN ...]")
    root = Path(sys.argv[1]) / "research" / "data"
    sources = [(root / name, fixed, gap) for name, fixed, gap in SOURCES]
    for run in sys.argv[2:]:
        hits = sorted(Path(run).rglob("scenario_results_*.csv"))
        if len(hits) != 1:
            sys.exit(f"{run}: expected one scenario_results_*.csv, found {len(hits)}")
        sources.append((hits[0], None, 600.0))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["scenario", "zones", "ratio", "checkpoint_gb", "window", "policy", "zone",
                  "cost_usd", "migrations"])
    seen = set()
    for path, fixed, gap in sources:
        if not path.is_file():
            sys.exit(f"{path}: not found (give the artifact's checkout)")
        for r in csv.DictReader(path.open()):
            if r["trace_mode"] in ("best_single", "average_single"):
                continue  # aggregates of the per-zone rows, not runs
            if r["strategy"] in TABLE2_SKIPPED and r.get("scenario_name") in (
                    "V100 4-node AWS (3 zones)", "H100 8-region"):
                continue
            arm = ARMS.get(r["strategy"])
            if arm is None:
                sys.exit(f"{path}: unknown strategy {r['strategy']!r}")
            scenario, zones = scenario_of(r, fixed)
            window = round(float(r["env_start_hours"]) * 3600 / gap)
            zone = r["region"].split("_")[0] if arm == "up" else ""
            key = (scenario, zones, r["deadline_ratio"], r["checkpoint_size"], window, arm, zone)
            if key in seen:
                continue  # ratio 1.2 at 50 GB is in both sweeps
            seen.add(key)
            out.writerow([scenario, zones, r["deadline_ratio"], r["checkpoint_size"], window, arm,
                          zone, r["cost"], r["migrations"]])


if __name__ == "__main__":
    main()

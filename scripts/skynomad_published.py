#!/usr/bin/env python3
"""Extracts the SkyNomad artifact's stored per-window results into
data/skynomad/published.csv (Apache-2.0, as the artifact).

    python3 scripts/skynomad_published.py ARTIFACT_CHECKOUT > data/skynomad/published.csv

Reads research/data/v100.csv (Fig 9b), research/data/deadline_sensitivity.csv (Figs 9a
and 10a) and research/data/checkpoint_sensitivity.csv (Fig 12) and writes one row per
(scenario, ratio, checkpoint size, window, arm): the window's
first tick as the sweep names it (round(env_start_hours·3600/g)), the arm under frugal's
name, the zone of a single-zone row, the reported cost (final tick omitted for the
multi-zone arms, as the figures report it) and the migrations. The sweep's aggregate rows
(best and average single zone) are left out: they are means of the per-zone rows.
"""

import csv
import sys
from pathlib import Path

ARMS = {
    "multi_region_oracle_dp": "artifact-optimal",
    "unified_cost_model_rate_ratio": "skynomad",
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
]


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: skynomad_published.py ARTIFACT_CHECKOUT")
    root = Path(sys.argv[1]) / "research" / "data"
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["scenario", "ratio", "checkpoint_gb", "window", "policy", "zone", "cost_usd",
                  "migrations"])
    seen = set()
    for name, scenario, gap in SOURCES:
        path = root / name
        if not path.is_file():
            sys.exit(f"{path}: not found (give the artifact's checkout)")
        for r in csv.DictReader(path.open()):
            if r["trace_mode"] in ("best_single", "average_single"):
                continue  # aggregates of the per-zone rows, not runs
            arm = ARMS.get(r["strategy"])
            if arm is None:
                sys.exit(f"{path}: unknown strategy {r['strategy']!r}")
            window = round(float(r["env_start_hours"]) * 3600 / gap)
            zone = r["region"].split("_")[0] if arm == "up" else ""
            key = (scenario, r["deadline_ratio"], r["checkpoint_size"], window, arm, zone)
            if key in seen:
                continue  # ratio 1.2 at 50 GB is in both sweeps
            seen.add(key)
            out.writerow([scenario, r["deadline_ratio"], r["checkpoint_size"], window, arm, zone,
                          r["cost"], r["migrations"]])


if __name__ == "__main__":
    main()

"""`frugal simulate` output as a researcher loads it: --format csv/json and every file
under --out read with Python's csv module and pandas.

    FRUGAL_BIN=target/release/frugal python -m pytest crates/frugal-cli/tests/python
"""

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

FRUGAL = os.environ.get("FRUGAL_BIN", "target/release/frugal")
ARGS = ["simulate", "--synthetic", "--load", "light", "--jobs", "60",
        "--policies", "first-fit,gio", "--repetitions", "2"]


def frugal(*args: str) -> str:
    return subprocess.run([FRUGAL, *args], check=True, capture_output=True, text=True).stdout


def test_csv_format_loads_with_csv_and_pandas():
    text = frugal(*ARGS, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["policy"] for r in rows] == ["round-robin", "first-fit", "gio"]
    df = pd.read_csv(io.StringIO(text))
    for column in ["workload", "policy", "queue", "cost_usd", "cost_usd_ci95",
                   "deadline_met_pct", "mean_jct_s", "vs_baseline_pct"]:
        assert column in df.columns, column
    assert df["cost_usd"].dtype.kind == "f" and (df["cost_usd"] > 0).all()
    assert (df["repetitions"] == 2).all()
    assert df.loc[df.policy == "round-robin", "vs_baseline_pct"].iloc[0] == 0


def test_json_format_matches_csv():
    rows = json.loads(frugal(*ARGS, "--format", "json"))
    df = pd.read_csv(io.StringIO(frugal(*ARGS, "--format", "csv")))
    assert [r["cost_usd"] for r in rows] == pytest.approx(list(df["cost_usd"]))


def test_every_file_under_out_loads(tmp_path: Path):
    frugal(*ARGS, "--out", str(tmp_path))
    results = pd.read_csv(tmp_path / "results.csv")
    assert len(results) == 3 * 2 and set(results.seed) == {1, 2}
    files = sorted(tmp_path.rglob("*.csv"))
    assert len(files) == 1 + 3 * 2 * 3
    for f in files:
        with open(f, newline="") as fh:
            assert list(csv.reader(fh)), f
        assert len(pd.read_csv(f).columns) > 1, f
    jobs = pd.read_csv(next(tmp_path.rglob("jobs.csv")), keep_default_na=False)
    no_deadline = jobs[jobs.deadline_s == ""]
    assert (no_deadline.met_deadline == "").all()
    for s in tmp_path.rglob("summary.json"):
        p = json.loads(s.read_text())["provenance"]
        assert p["frugal_version"] and p["configuration"]["repetitions"] == 2


def test_bag_of_tasks_outputs_load(tmp_path: Path):
    args = ["bag-of-tasks", "--tasks", "2000", "--alpha", "1,4", "--repeats", "0"]
    df = pd.read_csv(io.StringIO(frugal(*args, "--format", "csv")))
    assert list(df.policy) == ["ffd", "ffd-ra", "ha", "ha-ra"] * 2
    for column in ["trace", "alpha", "policy", "rent_cost_usd", "local_load_core_h",
                   "makespan_s", "utilisation_pct", "energy_kwh", "vms_rented", "overhead_s",
                   "deadline_met_pct"]:
        assert column in df.columns, column
    assert (df.deadline_met_pct == 100).all() and df.overhead_s.isna().all()
    rows = json.loads(frugal(*args, "--format", "json"))
    assert [r["rent_cost_usd"] for r in rows] == pytest.approx(list(df.rent_cost_usd))
    frugal(*args, "--out", str(tmp_path))
    assert pd.read_csv(tmp_path / "results.csv").equals(df)
    versus = pd.read_csv(tmp_path / "versus.csv")
    assert len(versus) == 2
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["frugal_version"] and summary["configuration"]["repeats"] == 0
    assert len(summary["traces"][0]["files"][0]["sha256"]) == 64


def test_ephemeral_outputs_load(tmp_path: Path):
    args = ["ephemeral", "--start-hours", "2", "--margins", "0,10", "--chunk-mib", "128"]
    df = pd.read_csv(io.StringIO(frugal(*args, "--format", "csv")))
    strategies = ["cuckoo", "salamander-rffd", "salamander-exact", "salamander-exact-network"]
    assert list(df.strategy) == strategies * 2
    for column in ["dc", "chunk_mib", "safety_margin_pct", "strategy", "job_time_s",
                   "relaunched_pct", "remote_pct", "plan_makespan_s", "plan_job_time_s",
                   "vs_cuckoo_pct"]:
        assert column in df.columns, column
    # Cuckoo does not plan: its plan columns are empty; every Salamander plan has both.
    planned = df.strategy.str.startswith("salamander")
    assert df.loc[~planned, "plan_job_time_s"].isna().all()
    assert (df.loc[planned, "plan_job_time_s"] >= df.loc[planned, "plan_makespan_s"]).all()
    assert df.job_time_s.dtype.kind == "f" and (df.job_time_s > 0).all()
    assert (df.loc[df.strategy.str.startswith("salamander"), "remote_pct"] == 0).all()
    assert (df.loc[df.strategy == "cuckoo", "vs_cuckoo_pct"] == 0).all()
    rows = json.loads(frugal(*args, "--format", "json"))
    assert [r["job_time_s"] for r in rows] == pytest.approx(list(df.job_time_s))
    frugal(*args, "--out", str(tmp_path))
    assert pd.read_csv(tmp_path / "cells.csv").equals(df)
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 2 * 2 * 4 and set(runs.start_hour) == {0, 1}
    assert (runs.jobs == 1).all() and (runs.tasks == 680).all()
    improvements = pd.read_csv(tmp_path / "improvements.csv")
    assert list(improvements.paper_pct) == [8.8, 8.8, 8.8]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["command"] == "ephemeral" and len(summary["forecast_coverage"]) == 1

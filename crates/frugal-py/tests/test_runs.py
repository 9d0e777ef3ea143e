"""The comparisons and experiment files from Python give the CLI's rows, value for value.

    FRUGAL_BIN=target/release/frugal python -m pytest crates/frugal-py/tests
"""

import io
import json
import os
import re
import subprocess
import typing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import frugal_sched as f

FRUGAL = os.environ.get("FRUGAL_BIN", "target/release/frugal")
EXAMPLES = Path(__file__).resolve().parents[3] / "docs/book/src/guide/examples"


def cli_csv(*args: str) -> pd.DataFrame:
    out = subprocess.run([FRUGAL, *args], check=True, capture_output=True, text=True).stdout
    return pd.read_csv(io.StringIO(out))


def test_the_default_simulation_is_the_main_job():
    assert f.simulate(policies=["first-fit"]).shape == (4, 26)


def test_simulate_equals_the_cli():
    py = f.simulate(load="light", policies=["first-fit", "gio"], repetitions=2, admission_control=True)
    cli = cli_csv("simulate", "--load", "light", "--policies", "first-fit,gio",
                  "--repetitions", "2", "--admission-control", "--format", "csv")
    pd.testing.assert_frame_equal(py, cli)


def test_bag_of_tasks_equals_the_cli():
    py = f.bag_of_tasks(tasks=[300], alpha=[1, 3], repeats=0)
    cli = cli_csv("bag-of-tasks", "--tasks", "300", "--alpha", "1,3", "--repeats", "0",
                  "--format", "csv")
    pd.testing.assert_frame_equal(py, cli)


def test_bag_of_tasks_takes_keywords_names_bad_ones_and_writes_out(tmp_path):
    with pytest.raises(TypeError, match="polices"):
        f.bag_of_tasks(polices=["ha"])
    with pytest.raises(ValueError, match=r"^alpha: 0 is outside"):
        f.bag_of_tasks(alpha=0, tasks=10)
    with pytest.raises(ValueError, match=r"policies.*ffd-ra"):
        f.bag_of_tasks(policies=["fastest"], tasks=10)
    with pytest.raises(TypeError, match="alpha"):
        f.bag_of_tasks(alpha="1,2")
    with pytest.raises(FileNotFoundError, match="machines"):
        f.bag_of_tasks(machines=tmp_path / "none.toml")
    with pytest.raises(FileNotFoundError, match="trace"):
        f.bag_of_tasks(trace="nasa+missing.swf")
    py = f.bag_of_tasks(tasks=200, alpha=2, repeats=0, out=tmp_path / "py")
    subprocess.run([FRUGAL, "bag-of-tasks", "--tasks", "200", "--alpha", "2", "--repeats", "0",
                    "--out", tmp_path / "cli"], check=True, capture_output=True)
    for name in ["results.csv", "versus.csv"]:
        assert (tmp_path / "py" / name).read_text() == (tmp_path / "cli" / name).read_text(), name
    cli = pd.read_csv(tmp_path / "cli" / "results.csv")
    pd.testing.assert_frame_equal(py, cli)
    assert (tmp_path / "py" / "summary.json").exists()


def test_ephemeral_equals_the_cli():
    options = dict(start_hours=2, margins=[0, 10], strategies=["cuckoo", "salamander-rffd"])
    py = f.ephemeral(**options)
    cli = cli_csv("ephemeral", "--start-hours", "2", "--margins", "0,10",
                  "--strategies", "cuckoo,salamander-rffd", "--format", "csv")
    pd.testing.assert_frame_equal(py, cli)
    runs = f.ephemeral(per_run=True, **options)
    assert len(runs) == 2 * 2 * 2


def test_ephemeral_takes_keywords_names_bad_ones_and_writes_out(tmp_path):
    with pytest.raises(TypeError, match="chunck_mib"):
        f.ephemeral(chunck_mib=64)
    with pytest.raises(ValueError, match=r"^dc: .*possible values: pc-1, pc-2, university\]$"):
        f.ephemeral(dc="mars", start_hours=1)
    with pytest.raises(ValueError, match=r"^chunk_mib: 0 is outside \[1, 4096\]$"):
        f.ephemeral(chunk_mib=[128, 0])
    with pytest.raises(ValueError, match=r"^budget: applies to salamander-ga .*; strategies has"):
        f.ephemeral(budget="quick")
    with pytest.raises(FileNotFoundError, match="hosts"):
        f.ephemeral(hosts=tmp_path / "none.csv")
    options = dict(start_hours=1, margins=[0, 10], strategies=["cuckoo"])
    py = f.ephemeral(out=tmp_path / "py", threads=1, **options)
    subprocess.run([FRUGAL, "ephemeral", "--start-hours", "1", "--margins", "0,10",
                    "--strategies", "cuckoo", "--out", tmp_path / "cli"],
                   check=True, capture_output=True)
    for name in ["runs.csv", "cells.csv", "improvements.csv"]:
        assert (tmp_path / "py" / name).read_text() == (tmp_path / "cli" / name).read_text(), name
    pd.testing.assert_frame_equal(py, pd.read_csv(tmp_path / "cli" / "cells.csv"))


def test_an_experiment_by_name_equals_frugal_run(tmp_path):
    py = f.run_experiment("p003-bags", quick=True, out=tmp_path / "py")
    subprocess.run([FRUGAL, "run", "p003-bags", "--quick", "--out", tmp_path / "cli"],
                   check=True, capture_output=True)
    cli = pd.read_csv(tmp_path / "cli" / "results" / "p003-bags.csv")
    # The overhead column is a CPU-time measurement, the one value that differs by run.
    pd.testing.assert_frame_equal(py.drop(columns=["overhead_s"]), cli.drop(columns=["overhead_s"]))
    assert (tmp_path / "py" / "report.html").exists()
    tables = f.load_results(tmp_path / "py")
    assert list(tables) == ["p003-bags"]


def test_load_results_reads_a_simulate_out_folder(tmp_path):
    subprocess.run([FRUGAL, "simulate", "--load", "light", "--policies", "gio", "--out", tmp_path],
                   check=True, capture_output=True)
    tables = f.load_results(tmp_path)
    assert list(tables) == ["results"]
    assert set(tables["results"]["policy"]) == {"round-robin", "gio"}
    with pytest.raises(FileNotFoundError):
        f.load_results(tmp_path / "nothing")


def test_an_option_that_cannot_be_used_names_the_argument():
    with pytest.raises(TypeError, match="polices"):
        f.simulate(polices=["gio"])
    with pytest.raises(ValueError, match=r"^repetitions: .*0"):
        f.simulate(repetitions=0)
    with pytest.raises(ValueError, match=r"^queue: .*possible values: fcfs, edf"):
        f.simulate(queue="fifo")
    with pytest.raises(ValueError, match=r"^load: cannot be used with hour$"):
        f.simulate(load="light", hour=3)
    # The spec's fields `jobs` and `jobs-csv` are the keywords job_count and jobs.
    with pytest.raises(ValueError, match=r"^job_count: counts the jobs of hour, synthetic"):
        f.simulate(job_count=5)
    with pytest.raises(ValueError, match=r"^jobs: cannot be used with hour$"):
        f.simulate(jobs=EXAMPLES / "jobs.csv", hour=3)
    with pytest.raises(ValueError, match=r"^hour: expected an hour 0–23 or `day`, got \"24\"$"):
        f.simulate(hour=24)
    with pytest.raises(FileNotFoundError, match="cluster"):
        f.simulate(cluster="no-such-file.toml")
    with pytest.raises(FileNotFoundError, match="jobs"):
        f.simulate(jobs="no-such-jobs.csv")
    with pytest.raises(TypeError, match="seed"):
        f.simulate(seed="1")
    with pytest.raises(ValueError, match="no-such-experiment"):
        f.run_experiment("no-such-experiment")


#: Three jobs of one's own and a two-site cluster, as DataFrames and as the CLI's files.
JOBS = pd.DataFrame({
    "id": ["wc-1", "pr-1", "so-1"],
    "kind": ["cpu_bound", "network_bound", "memory_bound"],
    "executors": [4, 2, 3],
    "cores": [2, 2, 1],
    "memory_gib": [4, 6, 2],
    "arrival_s": [0.0, 15.0, 40.0],
    "deadline_s": [900.0, None, 700.0],
    "t_local_s": [300.0, 420.0, 200.0],
    "t_hybrid_s": [390.0, None, 260.0],
})
VMS = pd.DataFrame({
    "instance_type": ["m.4", "m.4", "m.8"],
    "cores": [4, 4, 8],
    "memory_gib": [16, 16, 32],
    "site": ["local", "cloud", "cloud"],
    "count": [2, 2, 1],
    "price_per_hour": [0.05, 0.2, 0.4],
})
CLUSTER_TOML = """billing = "per-second"

[[instance_type]]
name = "m.4"
cores = 4
memory_gib = 16

[[instance_type]]
name = "m.8"
cores = 8
memory_gib = 32

[[vms]]
instance_type = "m.4"
site = "local"
count = 2
price_per_hour = 0.05

[[vms]]
instance_type = "m.4"
site = "cloud"
count = 2
price_per_hour = 0.2

[[vms]]
instance_type = "m.8"
site = "cloud"
count = 1
price_per_hour = 0.4
"""


def test_your_own_jobs_and_cluster_as_dataframes_equal_the_cli_on_files(tmp_path):
    (tmp_path / "cluster.toml").write_text(CLUSTER_TOML)
    JOBS.to_csv(tmp_path / "jobs.csv", index=False)
    policies = ["first-fit", "gio", "milp"]
    cli = cli_csv("simulate", "--jobs-csv", tmp_path / "jobs.csv", "--cluster",
                  tmp_path / "cluster.toml", "--policies", ",".join(policies), "--format", "csv")
    py = f.simulate(jobs=JOBS, cluster=VMS, policies=policies)
    counts = ["jobs", "completed", "dropped", "never_scheduled", "deadline_jobs", "decisions"]
    assert (py[counts].dtypes == "int64").all(), py[counts].dtypes
    # A job CSV is labelled by its file name, a DataFrame as `jobs`: the same rows.
    assert set(py["workload"]) == {"jobs"}
    pd.testing.assert_frame_equal(py, cli)
    cluster = {"billing": "per-second",
               "instance_type": [{"name": "m.4", "cores": 4, "memory_gib": 16},
                                 {"name": "m.8", "cores": 8, "memory_gib": 32}],
               "vms": VMS.drop(columns=["cores", "memory_gib"]).to_dict("records")}
    by_dict = f.simulate(jobs=tmp_path / "jobs.csv", cluster=cluster, policies=policies)
    pd.testing.assert_frame_equal(by_dict, cli)
    by_path = f.simulate(jobs=str(tmp_path / "jobs.csv"), cluster=tmp_path / "cluster.toml",
                         policies=policies)
    pd.testing.assert_frame_equal(by_path, cli)


def test_a_job_csv_is_read_by_column_name(tmp_path):
    policies = ["first-fit"]
    want = f.simulate(jobs=JOBS, cluster=VMS, policies=policies).drop(columns=["workload"])
    JOBS.to_csv(tmp_path / "indexed.csv")  # pandas' default: the index column first
    reordered = JOBS[list(reversed(JOBS.columns))]
    for jobs in [tmp_path / "indexed.csv", reordered]:
        got = f.simulate(jobs=jobs, cluster=VMS, policies=policies).drop(columns=["workload"])
        pd.testing.assert_frame_equal(got, want)
    with pytest.raises(ValueError, match=r"^jobs: header: .*priority.*the columns are id, kind"):
        f.simulate(jobs=JOBS.assign(priority=1), cluster=VMS, policies=policies)
    with pytest.raises(ValueError, match=r"^jobs: row 1: .*executors"):
        f.simulate(jobs=JOBS.assign(executors=[4, 0, 3]), cluster=VMS, policies=policies)
    with pytest.raises(ValueError, match=r"^cluster: vms\[0\]: price"):
        f.simulate(jobs=JOBS, cluster=VMS.assign(price_per_hour=-1.0), policies=policies)
    with pytest.raises(ValueError, match=r"^cluster: the VM table has no column 'site'"):
        f.simulate(jobs=JOBS, cluster=VMS.drop(columns=["site"]), policies=policies)


def test_pandas_values_are_taken_as_pandas_stores_them():
    policies = ["first-fit"]
    want = f.simulate(jobs=JOBS, cluster=VMS, policies=policies, seed=3).drop(columns=["workload"])
    # A count column with a gap is stored as floats (3.0); numpy scalars for integers.
    floats = JOBS.astype({"executors": "float64", "cores": "float64", "memory_gib": "float64"})
    got = f.simulate(jobs=floats, cluster=VMS, policies=policies, seed=np.int64(3),
                     repetitions=np.float64(1.0)).drop(columns=["workload"])
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(ValueError, match=r"^jobs: column executors, row 1: 2.5"):
        f.simulate(jobs=floats.assign(executors=[4.0, 2.5, 3.0]), cluster=VMS,
                   policies=policies)
    with pytest.raises(TypeError, match="seed must be an integer, got 1.5"):
        f.simulate(jobs=JOBS, cluster=VMS, policies=policies, seed=1.5)
    spot = f.spot(windows=np.int64(1), work_h=np.float32(8.0), policies=["greedy"])
    assert len(spot) == 8


def test_simulate_out_writes_the_files_of_the_cli(tmp_path):
    py = f.simulate(hour=0, job_count=10, policies=["gio"], out=tmp_path / "py", threads=1)
    subprocess.run([FRUGAL, "simulate", "--hour", "0", "--jobs", "10", "--policies", "gio",
                    "--out", tmp_path / "cli"], check=True, capture_output=True)
    py_files = sorted(p.relative_to(tmp_path / "py") for p in (tmp_path / "py").rglob("*.csv"))
    cli_files = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*.csv"))
    assert py_files == cli_files and len(py_files) == 1 + 2 * 3
    for p in py_files:
        assert (tmp_path / "py" / p).read_text() == (tmp_path / "cli" / p).read_text(), p
    assert len(py) == 2


def test_a_simulate_out_folder_repeats_the_run_with_the_cli(tmp_path):
    # DataFrames as pandas keeps them (a float count column, a numpy seed), into `out`.
    jobs = JOBS.astype({"executors": "float64"})
    run = tmp_path / "run"
    py = f.simulate(jobs=jobs, cluster=VMS, policies=["first-fit", "gio"], seed=np.int64(2),
                    out=run)
    for name in ["inputs/jobs.csv", "inputs/cluster.toml", "spec.json", "experiment.toml",
                 "versions.json", "results.csv"]:
        assert (run / name).is_file(), name
    assert json.loads((run / "spec.json").read_text())["jobs-csv"] == "inputs/jobs.csv"
    # The run's folders are named from the run, the same on every call.
    assert sorted(p.name for p in run.iterdir() if p.is_dir()) == ["inputs", "jobs"]
    # Repeated by the CLI from another folder: the experiment file, and the plain command.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    subprocess.run([FRUGAL, "run", run / "experiment.toml", "--out", "again"], check=True,
                   capture_output=True, cwd=elsewhere)
    # `frugal run` writes one row per run, as `out`'s own results.csv does.
    runs = pd.read_csv(run / "results.csv")
    again = pd.read_csv(elsewhere / "again" / "results" / "experiment.csv")
    assert len(runs) == len(py)  # one run per policy
    pd.testing.assert_frame_equal(again[runs.columns], runs)
    cli = cli_csv("simulate", "--jobs-csv", run / "inputs/jobs.csv", "--cluster",
                  run / "inputs/cluster.toml", "--policies", "first-fit,gio", "--seed", "2",
                  "--format", "csv")
    pd.testing.assert_frame_equal(cli, py)


def test_only_the_public_api_is_exported():
    # `annotations` is the `from __future__` feature, bound by the import statement.
    public = {n for n in dir(f) if not n.startswith("_")}
    assert public == set(f.__all__) - {"__version__"}, public ^ set(f.__all__)
    assert {"np", "gym", "Any", "spaces"}.isdisjoint(public)


def test_choices_are_typed_as_the_library_names_them():
    # Each Literal[…] of the signatures is the closed set the library checks against: a
    # value outside it is refused with the library's own list, which must be the same.
    checked = 0
    for function in [f.simulate, f.bag_of_tasks, f.ephemeral, f.spot]:
        for name, hint in typing.get_type_hints(function).items():
            options = [hint] if typing.get_origin(hint) is typing.Literal else typing.get_args(hint)
            literals = [a for a in options if typing.get_origin(a) is typing.Literal]
            if not literals:
                continue
            with pytest.raises(ValueError) as e:
                function(**{name: "zzz"})
            listed = re.search(r"possible values: ([^\]]*)\]", str(e.value))
            assert listed, (name, str(e.value))
            assert listed.group(1).split(", ") == list(typing.get_args(literals[0])), name
            checked += 1
    assert checked == 14

"""The comparisons and experiment files from Python give the CLI's rows, value for value.

    FRUGAL_BIN=target/debug/frugal python -m pytest crates/frugal-py/tests
"""

import io
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import frugal_sched as f

FRUGAL = os.environ.get("FRUGAL_BIN", "target/debug/frugal")


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


def test_an_option_that_cannot_be_used_names_the_flag():
    with pytest.raises(ValueError, match="--repetitions"):
        f.simulate(repetitions=0)
    with pytest.raises(ValueError, match="--cluster-scale|cluster"):
        f.simulate(cluster="no-such-file.toml")
    with pytest.raises(ValueError, match="no-such-experiment"):
        f.run_experiment("no-such-experiment")

"""frugal's comparisons and experiment files as pandas DataFrames.

Each function takes the flags of the CLI command of the same name as keyword arguments
(``--cluster-scale 2`` is ``cluster_scale=2``; a list is a comma-separated value; ``True``
is a bare flag, ``False`` and ``None`` leave it out), runs the same library function as
the CLI, and returns the rows the CLI prints with ``--format csv`` — the same columns, with
their units in their names, and the same values.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from frugal_sched import _native


def _flags(options: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


def _frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def simulate(**options: Any) -> pd.DataFrame:
    """The policy comparison of ``frugal simulate`` (the main job): one row per workload ×
    policy — the bill in dollars (``cost_usd``, with its 95 % CI over repetitions), the
    share of deadlines met (%), job completion times (s), utilisation (%), VM-hours.

    Example: ``simulate(cluster="paper002-cloud", paper002="burst", queue="fcfs",
    policies=["first-fit", "aep", "offline"])``. Without options: the main job (every
    policy, the light and high load hours of FB-2009, the small hybrid cluster).

    Raises:
        ValueError: with the CLI's message, for an option that cannot be used.
    """
    return _frame(_native.simulate_csv(_flags(options)))


def bag_of_tasks(**options: Any) -> pd.DataFrame:
    """Paper 003's comparison (``frugal bag-of-tasks``): one row per trace × scale × task
    count × α × policy — rent in dollars, makespan (s), utilisation (%), PM energy (kWh).

    Raises:
        ValueError: with the CLI's message, for an option that cannot be used.
    """
    return _frame(_native.bag_of_tasks_csv(_flags(options)))


def ephemeral(per_run: bool = False, **options: Any) -> pd.DataFrame:
    """Paper 001's comparison (``frugal ephemeral``): one row per data centre × chunk size ×
    margin × strategy with the medians of job time (s), relaunched and remote tasks (%);
    with ``per_run=True`` one row per run instead.

    Raises:
        ValueError: with the CLI's message, for an option that cannot be used.
    """
    return _frame(_native.ephemeral_csv(_flags(options), per_run))


def run_experiment(
    experiment: str | os.PathLike, quick: bool = False, out: str | os.PathLike | None = None
) -> pd.DataFrame:
    """Runs an experiment file (a path, or the name of one built into frugal, e.g.
    ``"p002-burst"``; ``frugal experiments list`` shows them) as ``frugal run`` does, and
    returns its rows (one per run, with the case and swept-flag columns first). The rows,
    plots (SVG, PNG) and report go to ``out`` (a temporary folder if not given).

    Raises:
        ValueError: for a file that cannot be used or a run that fails.
    """
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(out) if out is not None else Path(scratch)
        ((_, rows),) = _native.run_experiments([os.fspath(experiment)], quick, os.fspath(target))
        return _frame(rows)


def load_results(directory: str | os.PathLike) -> dict[str, pd.DataFrame]:
    """The CSV files of an ``--out`` folder, by file stem: ``results`` (and ``versus`` or
    ``runs``, ``cells``, ``improvements``) of ``simulate``, ``bag-of-tasks`` and
    ``ephemeral``; for a ``frugal reproduce`` or ``frugal run`` folder, one table per
    experiment from its ``results/`` folder.

    Raises:
        FileNotFoundError: if the folder holds no CSV file.
    """
    root = Path(directory)
    files = sorted((root / "results").glob("*.csv")) if (root / "results").is_dir() else []
    files += sorted(root.glob("*.csv"))
    if not files:
        raise FileNotFoundError(f"{root}: no CSV file (is it an --out folder?)")
    return {f.stem: pd.read_csv(f) for f in files}

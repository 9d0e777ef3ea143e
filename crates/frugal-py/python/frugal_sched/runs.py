"""frugal's comparisons and experiment files as pandas DataFrames.

``bag_of_tasks`` takes its system's spec as explicit keyword arguments (an unknown one is a
``TypeError``, a bad value a ``ValueError`` that names it). ``simulate`` and ``ephemeral``
still take the flags of the CLI command of the same name as keyword arguments
(``--cluster-scale 2`` is ``cluster_scale=2``; a list is a comma-separated value; ``True``
is a bare flag, ``False`` and ``None`` leave it out). Each runs the same library function
as the CLI and returns the rows the CLI prints with ``--format csv`` — the same columns,
with their units in their names, and the same values.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
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


#: Paper 003's policies (``optimal`` solves bags of at most 12 tasks exactly).
BOT_POLICIES = ("ffd", "ffd-ra", "ha", "ha-ra", "optimal")


def _int_list(name: str, value: Any) -> list[int]:
    items = [value] if isinstance(value, int) else value
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise TypeError(f"{name} must be an integer or a list of integers, got {value!r}")
    items = list(items)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        raise TypeError(f"{name} must be an integer or a list of integers, got {value!r}")
    return items


def _str_list(name: str, value: Any) -> list[str]:
    items = [value] if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(items, Iterable):
        raise TypeError(f"{name} must be a string or a list of strings, got {value!r}")
    items = [os.fspath(v) if isinstance(v, os.PathLike) else v for v in items]
    if not all(isinstance(v, str) for v in items):
        raise TypeError(f"{name} must be a string or a list of strings, got {value!r}")
    return items


def bag_of_tasks(
    *,
    trace: str | os.PathLike | Iterable[str | os.PathLike] = "nasa",
    alpha: int | Iterable[int] = (1, 2, 3, 4),
    policies: str | Iterable[str] = ("ffd", "ffd-ra", "ha", "ha-ra"),
    scale: int | Iterable[int] = 1,
    tasks: int | Iterable[int] = (),
    replicate: int | None = None,
    machines: str | os.PathLike | None = None,
    vm_usd_per_hour: float | None = None,
    electricity_usd_per_kwh: float = 0.0,
    repeats: int = 5,
    implementation: str = "fast",
    out: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Paper 003's comparison (``frugal bag-of-tasks``): HA, RA and FFD on bags of tasks
    from SWF logs, on a hybrid cloud of free local PMs and VMs rented by the started hour.

    Args:
        trace: SWF logs, each ``"nasa"`` or ``"kth"`` (shipped) or the path of an SWF file
            (plain or gzip); ``"a+b"`` concatenates the tasks of logs a and b.
        alpha: deadline factors α in 1..1000: each task's deadline is α × its run time on a
            2 GHz core.
        policies: names from :data:`BOT_POLICIES`.
        scale: PM scale factors s in 1..1000 (s × every PM count; Fig. 10–11 use 1..10).
        tasks: run on the first N tasks of each log, for each N listed (Fig. 12); empty:
            all. Not with ``replicate``.
        replicate: repeat each log until the bag holds this many tasks (scale tests).
        machines: a machine file (TOML with ``[[pm]]`` and ``[[vm]]`` entries); ``None``:
            the paper's 15 PMs and EC2 c3.large.
        vm_usd_per_hour: rent of the VM type, dollars per started hour (one VM type only).
        electricity_usd_per_kwh: price of the PMs' energy, dollars per kWh in [0, 100].
        repeats: timed repeats per run for the decision overhead (0: ``overhead_s`` empty
            and the rows byte-reproducible).
        implementation: ``"fast"`` or ``"reference"`` (the paper's all-pairs HA and
            scanning FFD; the same schedules).
        out: a folder to write ``results.csv``, ``versus.csv`` and ``summary.json`` to, as
            ``frugal bag-of-tasks --out`` does.

    Returns:
        One row per trace × scale × task count × α × policy, as ``frugal bag-of-tasks
        --format csv``: rent (``rent_cost_usd``), makespan (s), utilisation (%), PM energy
        (kWh), counts as integers.

    Raises:
        TypeError: an argument of the wrong type, named.
        ValueError: a value that cannot be used; the message starts with the argument's
            name (``alpha: 0 is outside [1, 1000]``).
        FileNotFoundError: a ``trace`` or ``machines`` file that does not exist.
    """
    traces = _str_list("trace", trace)
    for t in traces:
        for part in t.split("+"):
            if part not in ("nasa", "kth") and not Path(part).is_file():
                raise FileNotFoundError(f"trace: {part!r} is neither 'nasa', 'kth' nor a file")
    if machines is not None:
        if not isinstance(machines, (str, os.PathLike)):
            raise TypeError(f"machines must be a path, got {machines!r}")
        if not Path(machines).is_file():
            raise FileNotFoundError(f"machines: {os.fspath(machines)!r} does not exist")
        machines = os.fspath(machines)
    for name, value in [("vm_usd_per_hour", vm_usd_per_hour),
                        ("electricity_usd_per_kwh", electricity_usd_per_kwh)]:
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"{name} must be a number, got {value!r}")
    for name, value in [("replicate", replicate), ("repeats", repeats)]:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{name} must be an integer, got {value!r}")
    spec = {
        "trace": traces,
        "alpha": _int_list("alpha", alpha),
        "policies": _str_list("policies", policies),
        "scale": _int_list("scale", scale),
        "tasks": _int_list("tasks", tasks),
        "replicate": replicate,
        "machines": machines,
        "vm_usd_per_hour": vm_usd_per_hour,
        "electricity_usd_per_kwh": electricity_usd_per_kwh,
        "repeats": repeats,
        "implementation": implementation,
    }
    target = None if out is None else os.fspath(out)
    return _frame(_native.bag_of_tasks_csv(json.dumps(spec), target))


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

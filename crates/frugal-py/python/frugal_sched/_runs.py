"""frugal's comparisons and experiment files as pandas DataFrames.

``simulate``, ``bag_of_tasks`` and ``ephemeral`` take explicit keyword arguments (an
unknown one is a ``TypeError``, a bad value a ``ValueError`` that starts with the
argument's name, a missing file a ``FileNotFoundError``); ``simulate`` takes your own jobs
and cluster as DataFrames. Each runs the same library function as the
CLI and returns the rows the CLI prints with ``--format csv`` — the same columns,
with their units in their names, and the same values.
"""

from __future__ import annotations

import inspect
import io
import json
import math
import numbers
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from frugal_sched import _native


def _frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


#: Keyword arguments that set a spec field of another name: ``simulate``'s ``jobs`` and
#: ``job_count`` (the rest are the keyword with ``-`` for ``_``).
_SIMULATE_FIELDS = {"jobs": "jobs-csv", "job_count": "jobs"}


def _spec(function: Any, options: dict[str, Any],
          fields: dict[str, str] | None = None) -> dict[str, Any]:
    """The keyword ``options`` of ``function`` that are set and differ from its defaults,
    as the spec's fields (``cluster_scale`` ↦ ``cluster-scale``, or as ``fields`` maps the
    keyword)."""
    defaults = {k: p.default for k, p in inspect.signature(function).parameters.items()}
    return {
        (fields or {}).get(k, k.replace("_", "-")): list(v) if isinstance(v, tuple) else v
        for k, v in options.items() if v is not None and v != defaults[k]
    }


def _spec_call(function: Any, options: dict[str, Any], call: Any,
               fields: dict[str, str] | None = None) -> str:
    """Runs ``call(spec_json)`` with the spec of ``options`` (:func:`_spec`); the library's
    errors name the keywords."""
    return call(json.dumps(_spec(function, options, fields)))


def _record(out: Path, system: str, spec: dict[str, Any], inputs: dict[str, str]) -> None:
    """Writes what repeats a run into its ``out`` folder: ``spec.json`` (the spec, its file
    arguments as paths relative to ``out``), ``experiment.toml`` (the same spec as an
    experiment file: ``frugal run OUT/experiment.toml --out AGAIN`` repeats the run from any
    folder) and ``versions.json`` (this package, Python, pandas and numpy)."""
    import platform

    from frugal_sched import __version__

    spec = {k: inputs.get(k, v) for k, v in spec.items()}
    (out / "spec.json").write_text(json.dumps(spec, indent=2, sort_keys=True) + "\n")
    args = "".join(f"{k} = {_toml_value(k, v)}\n" for k, v in sorted(spec.items()))
    (out / "experiment.toml").write_text(
        f"# Written by frugal_sched.{system.replace('-', '_')}(out=…); repeat it with\n"
        f"#   frugal run {out.name}/experiment.toml --out AGAIN\n"
        f"# (paths are relative to this file).\n"
        f"title = {json.dumps(f'{system} from Python')}\n"
        f'paper = "python"\n'
        f"system = {json.dumps(system)}\n\n[args]\n{args}")
    versions = {"frugal_sched": __version__, "python": platform.python_version(),
                "pandas": pd.__version__, "numpy": np.__version__}
    (out / "versions.json").write_text(json.dumps(versions, indent=2) + "\n")


def _toml_value(key: str, value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(key, v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, str):
        return json.dumps(value)
    raise TypeError(f"cluster: {key} must be a string or a number, got {value!r}")


def _cluster_toml(cluster: dict[str, Any]) -> str:
    """A cluster dict (the cluster TOML's keys) as TOML text."""
    lines: list[str] = []
    tables: list[str] = []
    for key, value in cluster.items():
        if isinstance(value, (list, tuple)):
            for entry in value:
                if not isinstance(entry, dict):
                    raise TypeError(f"cluster: {key} must be a list of dicts, got {entry!r}")
                tables.append(f"\n[[{key}]]")
                tables += [f"{k} = {_toml_value(f'{key}.{k}', v)}" for k, v in entry.items()
                           if not (isinstance(v, float) and np.isnan(v))]
        else:
            lines.append(f"{key} = {_toml_value(key, value)}")
    return "\n".join(lines + tables) + "\n"


def _cluster_of_frame(vms: pd.DataFrame) -> dict[str, Any]:
    """One row per VM group (``instance_type``, ``cores``, ``memory_gib``, optional
    ``gpus``, ``site``, optional ``count``, ``price_per_hour`` or ``price_per_second``) as
    the cluster TOML's keys."""
    shape = ["instance_type", "cores", "memory_gib"] + (["gpus"] if "gpus" in vms else [])
    group = [c for c in vms.columns if c not in shape[1:]]
    missing = [c for c in ["instance_type", "cores", "memory_gib", "site"] if c not in vms]
    if missing:
        raise ValueError(f"cluster: the VM table has no column {missing[0]!r} "
                         f"(columns: {', '.join(map(str, vms.columns))})")
    types: dict[str, dict[str, Any]] = {}
    for row in vms[shape].to_dict("records"):
        name = row["instance_type"]
        entry = {"name": name, **{k: row[k] for k in shape[1:]}}
        if types.setdefault(name, entry) != entry:
            raise ValueError(f"cluster: instance type {name!r} has two shapes: "
                             f"{types[name]} and {entry}")
    return {"instance_type": list(types.values()), "vms": vms[group].to_dict("records")}


def _as_int(name: str, value: Any) -> int | None:
    """An integer argument as a Python ``int``: a Python or numpy integer, or a float with a
    whole value (pandas stores an integer column with a gap as floats); ``None`` stays.

    Raises:
        TypeError: anything else (a bool, a fraction, a string), naming ``name``.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    raise TypeError(f"{name} must be an integer, got {value!r}")


def _as_number(name: str, value: Any) -> float | int | None:
    """A number argument as a Python number (numpy's included); ``None`` stays.

    Raises:
        TypeError: a bool or a non-number, naming ``name``.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _integers(values: dict[str, Any]) -> dict[str, int | None]:
    """Each argument as an ``int`` (:func:`_as_int`), by name."""
    return {name: _as_int(name, value) for name, value in values.items()}


#: Columns of the job CSV that hold counts: written as integers even where pandas keeps
#: them as floats (a column with a gap, or read from a float source).
_JOB_INTEGER_COLUMNS = ("executors", "cores", "memory_gib")


def _write_jobs(jobs: pd.DataFrame, path: Any) -> None:
    """Writes a jobs DataFrame as the job CSV: whole-valued float count columns as
    integers, NaN as an empty (absent) field.

    Raises:
        ValueError: a count column with a fraction, naming the column and the row.
    """
    jobs = jobs.copy()
    for column in _JOB_INTEGER_COLUMNS:
        if column in jobs and jobs[column].dtype.kind == "f":
            values = jobs[column]
            bad = values.notna() & (values != values.round())
            if bad.any():
                row = bad.idxmax()
                raise ValueError(f"jobs: column {column}, row {row}: {float(values[row])} is not a "
                                 f"whole number")
            jobs[column] = values.astype("Int64")
    jobs.to_csv(path, index=False)


def _path_argument(name: str, value: Any) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path, got {type(value).__name__}")
    if not Path(value).is_file():
        raise FileNotFoundError(f"{name}: {os.fspath(value)!r} does not exist")
    return os.fspath(value)


def simulate(
    *,
    jobs: pd.DataFrame | str | os.PathLike | None = None,
    cluster: str | os.PathLike | dict[str, Any] | pd.DataFrame = "small-hybrid",
    policies: str | Iterable[str] | None = None,
    baseline: str = "round-robin",
    load: Literal["light", "high", "both"] = "both",
    hour: int | str | None = None,
    job_count: int | None = None,
    trace: str | os.PathLike | None = None,
    synthetic: bool = False,
    synthetic_reading: Literal["paper-text", "authors-code"] = "paper-text",
    swf: str | os.PathLike | None = None,
    alibaba: str | os.PathLike | None = None,
    paper002: Literal["normal", "burst"] | None = None,
    application: Literal["mixed", "wordcount", "sort", "pagerank"] = "mixed",
    vm_events: str | os.PathLike | None = None,
    cluster_scale: int = 1,
    job_copies: int = 1,
    pricing: Literal["1", "2", "3", "4", "real"] | None = None,
    billing: Literal["per-second", "per-hour"] | None = None,
    queue: Literal["fcfs", "edf", "deadline-first", "morpheus"] | None = None,
    admission_control: bool = False,
    backfill: Literal["none", "easy"] = "none",
    alpha: float | None = None,
    hybrid_penalty: float | None = None,
    hybrid_rule: Literal["any-remote", "spanning"] = "any-remote",
    kind_penalty: float = 0.3,
    policy_reading: Literal["paper-text", "authors-code"] = "paper-text",
    deadline_share: float | None = None,
    deadline_factor: float | None = None,
    offline_budget: int | None = None,
    milp_backend: Literal["microlp", "highs"] | None = None,
    milp_time_limit: float | None = None,
    charge_decision_time: bool = False,
    boot_latency: float = 0.0,
    keep_alive: float | str = 0,
    budget_per_hour: float | None = None,
    seed: int = 1,
    repetitions: int = 1,
    timings: bool = False,
    threads: int = 0,
    out: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """The policy comparison of ``frugal simulate`` (the main job), on your own jobs and
    cluster or on a trace: one row per workload × policy.

    Every argument is the field of the same name of the comparison's spec and the
    ``frugal simulate`` flag (``cluster_scale`` is ``--cluster-scale``; the command
    reference gives each one's range and source), except ``jobs`` (``--jobs-csv``) and
    ``job_count`` (``--jobs``). ``None`` leaves a field unset.

    Args:
        jobs: your jobs, one row each: a DataFrame or the path of a job CSV with the
            columns ``id``, ``kind`` (``cpu_bound``, ``memory_bound``, ``network_bound``),
            ``executors``, ``cores`` (per executor), ``memory_gib`` (GiB per executor),
            ``arrival_s`` (s), ``deadline_s`` (s, absolute; empty: none), ``t_local_s``
            (s, run time on one site, T_C^L) and ``t_hybrid_s`` (s, across sites, T_C^H;
            empty: (1 + ``hybrid_penalty``) · T_C^L), found by name in any order.
            ``None``: the trace replay chosen by ``load``, ``hour``, ``synthetic``, ``swf``,
            ``alibaba`` or ``paper002``.
        cluster: a preset name (``"small-hybrid"``, ``"paper002-cloud"``, …), the path of a
            cluster TOML, a dict with the TOML's keys (``billing``, ``instance_type``: a
            list of ``{name, cores, memory_gib}``, ``vms``: a list of ``{instance_type,
            site, count, price_per_hour}``) or a DataFrame with one row per VM group and
            the columns ``instance_type``, ``cores``, ``memory_gib``, ``site``, ``count``
            and ``price_per_hour`` (dollars per hour) or ``price_per_second``.
        policies: policy names (``frugal simulate --help`` lists them under
            ``--policies``); ``None``: every built-in one.
        baseline: the policy ``vs_baseline_pct`` compares with; run as well.
        load: ``"light"``, ``"high"`` or ``"both"`` (FB-2009 hours 0 and 6).
        hour: an hour 0–23 of the trace or ``"day"``.
        job_count: the first N jobs of the trace (``--jobs``).
        threads: worker threads (0: one per core); the rows do not depend on it.
        out: a folder to write ``results.csv`` (one row per run) and each run's
            ``jobs.csv``, ``vms.csv``, ``cost_over_time.csv`` and ``summary.json`` to, as
            ``frugal simulate --out`` does; and what repeats the run: its input files
            (DataFrames and dicts written, paths copied) in ``inputs/``, ``spec.json``,
            ``experiment.toml`` (``frugal run OUT/experiment.toml --out AGAIN`` gives the
            same rows) and ``versions.json``. A job CSV's rows are labelled by its file
            name without ``.csv`` (a DataFrame's: ``jobs``), wherever it is read from.

    Returns:
        One row per workload × policy, the columns of ``frugal simulate --format csv``:
        the bill (``cost_usd``, dollars, with its 95 % CI over repetitions, 0 for a
        deterministic policy), deadlines met (%), JCT and wait (s), utilisation (%),
        VM-hours; the counts are means over the repetitions.

    Raises:
        TypeError: an unknown keyword, or an argument of the wrong type, named.
        ValueError: a value that cannot be used; the message starts with the argument's
            name and lists the valid choices (``queue: invalid value "x" [possible
            values: fcfs, edf, deadline-first, morpheus]``) or the argument it cannot be
            used with (``load: cannot be used with hour``).
        FileNotFoundError: a ``jobs``, ``cluster``, ``trace`` or ``vm_events`` file that
            does not exist.
    """
    options = dict(locals())
    target = None if out is None else Path(out)
    with tempfile.TemporaryDirectory() as scratch:
        # The files this run reads: into OUT/inputs when there is an out folder (a path
        # given is copied, so the folder repeats the run on its own), else a scratch folder.
        folder = Path(scratch) if target is None else target / "inputs"
        folder.mkdir(parents=True, exist_ok=True)
        written: dict[str, Path] = {}  # spec field ↦ a file written here, not by the user
        inputs: dict[str, str] = {}  # spec field ↦ its path relative to out

        def place(field: str, name: str, path: str | None = None, text: str | None = None):
            file = folder / name
            if path is not None and target is not None:
                shutil.copyfile(path, file)
            elif path is not None:
                return path
            else:
                file.write_text(text)
                written[field] = file
            inputs[field] = f"inputs/{name}"
            return os.fspath(file)

        if isinstance(jobs, pd.DataFrame):
            text = io.StringIO()
            _write_jobs(jobs, text)
            options["jobs"] = place("jobs-csv", "jobs.csv", text=text.getvalue())
        elif jobs is not None:
            path = _path_argument("jobs", jobs)
            options["jobs"] = place("jobs-csv", Path(path).name, path=path)
        if isinstance(cluster, pd.DataFrame):
            cluster = _cluster_of_frame(cluster)
        if isinstance(cluster, dict):
            options["cluster"] = place("cluster", "cluster.toml", text=_cluster_toml(cluster))
        elif isinstance(cluster, os.PathLike) or (
                isinstance(cluster, str) and (cluster.endswith(".toml") or os.sep in cluster)):
            path = _path_argument("cluster", cluster)
            options["cluster"] = place("cluster", Path(path).name, path=path)
        elif not isinstance(cluster, str):
            raise TypeError(f"cluster must be a preset, a path, a dict or a DataFrame, "
                            f"got {type(cluster).__name__}")
        for name, field in (("trace", "trace"), ("vm_events", "vm-events")):
            if options[name] is not None:
                path = _path_argument(name, options[name])
                options[name] = place(field, f"{field}-{Path(path).name}", path=path)
        options.update(_integers({n: options[n] for n in
                                  ("threads", "seed", "repetitions", "cluster_scale",
                                   "job_copies")}))
        del options["threads"], options["out"]
        try:
            text = _spec_call(
                simulate, options,
                lambda spec: _native.simulate_csv(
                    spec, None if target is None else os.fspath(target), threads),
                _SIMULATE_FIELDS)
        except ValueError as e:
            message = str(e)
            # A file written here from a DataFrame or dict is named by its argument, and a
            # line of the job CSV by the DataFrame's row (line 1 is the header).
            if "jobs-csv" in written:
                message = re.sub(re.escape(os.fspath(written["jobs-csv"])) + r":(\d+):",
                                 lambda m: "jobs: header:" if m.group(1) == "1"
                                 else f"jobs: row {int(m.group(1)) - 2}:", message)
            if "cluster" in written:
                message = message.replace(os.fspath(written["cluster"]), "cluster")
            raise ValueError(message) from None
        if target is not None:
            _record(target, "simulate", _spec(simulate, options, _SIMULATE_FIELDS), inputs)
    return _frame(text)


#: Paper 003's policies (``optimal`` solves bags of at most 12 tasks exactly).
BOT_POLICIES = ("ffd", "ffd-ra", "ha", "ha-ra", "optimal")


def _int_list(name: str, value: Any) -> list[int]:
    items = [value] if isinstance(value, (numbers.Real, np.bool_)) else value
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise TypeError(f"{name} must be an integer or a list of integers, got {value!r}")
    try:
        return [_as_int(name, v) for v in items]
    except TypeError:
        raise TypeError(
            f"{name} must be an integer or a list of integers, got {value!r}") from None


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
    implementation: Literal["fast", "reference"] = "fast",
    threads: int = 0,
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
        threads: worker threads (0: one per core); the rows do not depend on it, but
            ``overhead_s`` is steadier with 1.
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
        machines = _path_argument("machines", machines)
    vm_usd_per_hour = _as_number("vm_usd_per_hour", vm_usd_per_hour)
    electricity_usd_per_kwh = _as_number("electricity_usd_per_kwh", electricity_usd_per_kwh)
    replicate, repeats, threads = _integers(
        {"replicate": replicate, "repeats": repeats, "threads": threads}).values()
    spec = {
        "trace": traces,
        "alpha": _int_list("alpha", alpha),
        "policies": _str_list("policies", policies),
        "scale": _int_list("scale", scale),
        "tasks": _int_list("tasks", tasks),
        "replicate": replicate,
        "machines": machines,
        "vm-usd-per-hour": vm_usd_per_hour,
        "electricity-usd-per-kwh": electricity_usd_per_kwh,
        "repeats": repeats,
        "implementation": implementation,
    }
    target = None if out is None else os.fspath(out)
    return _frame(_native.bag_of_tasks_csv(json.dumps(spec), target, threads))


def ephemeral(
    *,
    dc: str | Iterable[str] = "university",
    chunk_mib: int | Iterable[int] = 256,
    margins: int | Iterable[int] = (0, 5, 10, 15, 20, 25, 30),
    start_hours: int = 48,
    strategies: str | Iterable[str] = (
        "cuckoo", "salamander-rffd", "salamander-exact", "salamander-exact-network"),
    forecaster: str | Iterable[str] = "seasonal-quantile",
    volatility: float | Iterable[float] = 1.0,
    tasks: int | None = None,
    jobs: int = 1,
    map_output_ratio: float = 1.0,
    upload: bool = False,
    control_step: float | None = None,
    plan_slot_s: float = 1.0,
    budget: str | int = "full",
    wall_clock_s: float | None = None,
    seed: int = 1,
    hosts: str | os.PathLike | None = None,
    primary_workload: Literal["gcd", "planetlab"] = "gcd",
    utilisation: str | os.PathLike | None = None,
    per_run: bool = False,
    threads: int = 0,
    out: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Paper 001's comparison (``frugal ephemeral``): MapReduce jobs on the spare capacity
    of hosts that run a primary workload, one row per data centre × chunk size × margin ×
    volatility × forecaster × strategy with the medians of job time (s), relaunched and
    remote tasks (%); with ``per_run=True`` one row per run instead.

    Every argument is the field of the same name of the comparison's spec and the
    ``frugal ephemeral`` flag (``chunk_mib`` is ``--chunk-mib``; the command reference
    gives each one's choices and range); a list sweeps the values.

    Args:
        dc: data centres, ``"pc-1"``, ``"pc-2"`` or ``"university"``.
        chunk_mib: chunk sizes, MiB (the paper: 128 and 256).
        margins: safety margins S, percent of each host's CPU and RAM.
        start_hours: runs per configuration, the job submitted at day 5 00:00 + h hours
            for h = 0 … N − 1.
        strategies: ``"cuckoo"``, ``"salamander-rffd"``, ``"salamander-exact"``,
            ``"salamander-exact-network"``, …
        forecaster: forecasters of the primary workload.
        volatility: factors in [0, 4] scaling every host's load swing (1: as recorded).
        tasks: tasks in the job, split 16:1 between maps and reduces (``None``: 640 + 40).
        jobs: jobs submitted together at each start hour.
        hosts, utilisation: a host-capacity CSV and a primary-workload CSV instead of the
            shipped ones.
        per_run: one row per run instead of per cell.
        threads: worker threads (0: one per core); the rows do not depend on it.
        out: a folder to write ``runs.csv``, ``cells.csv``, ``improvements.csv`` and
            ``summary.json`` to, as ``frugal ephemeral --out`` does.

    Returns:
        The rows of ``frugal ephemeral --format csv`` (``--per-run`` with ``per_run``).

    Raises:
        TypeError: an unknown keyword, named.
        ValueError: a value that cannot be used; the message starts with the argument's
            name and lists the valid choices.
        FileNotFoundError: a ``hosts`` or ``utilisation`` file that does not exist.
    """
    options = dict(locals())
    for name in ("hosts", "utilisation"):
        if options[name] is not None:
            options[name] = _path_argument(name, options[name])
    options.update(_integers({n: options[n] for n in ("threads", "seed", "start_hours", "jobs")}))
    target = None if out is None else os.fspath(out)
    for name in ("per_run", "threads", "out"):
        del options[name]
    return _frame(_spec_call(ephemeral, options,
                             lambda spec: _native.ephemeral_csv(spec, per_run, target, threads)))


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

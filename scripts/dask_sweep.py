"""Fans an experiment sweep out over a Dask cluster: each of N shards (`frugal run …
--shard i/N`) is one task, its outputs come back to this process, and `frugal merge`
writes exactly what the unsharded `frugal run` writes.

    python scripts/dask_sweep.py --shards 8 --out results p002-burst p002-normal
    python scripts/dask_sweep.py --scheduler tcp://10.0.0.5:8786 --shards 32 --out results my.toml

Without --scheduler a local cluster of --workers processes on 127.0.0.1 runs the tasks.
Every worker needs `frugal` (--frugal: its path there) and the experiment files (give
the names of built-in ones, or paths the workers can read); nothing else is shared: each
task returns its shard file. Dask (dask.distributed) schedules; frugal only splits and
merges.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from dask.distributed import Client, LocalCluster


def run_shard(frugal: str, experiments: list[str], index: int, count: int, quick: bool) -> bytes:
    """Runs shard index/count in a scratch folder on the worker; returns its shard file."""
    with tempfile.TemporaryDirectory() as out:
        command = [frugal, "run", *experiments, "--shard", f"{index}/{count}", "--out", out]
        if quick:
            command.append("--quick")
        subprocess.run(command, check=True, capture_output=True)
        return (Path(out) / "shard.json").read_bytes()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("experiments", nargs="+", help="experiment files or built-in names")
    p.add_argument("--out", required=True, help="where the merged rows, plots and report go")
    p.add_argument("--shards", type=int, default=4, help="tasks to split the sweep into")
    p.add_argument("--scheduler", help="address of a Dask scheduler (default: a local cluster)")
    p.add_argument("--workers", type=int, default=2, help="local cluster: worker processes")
    p.add_argument("--frugal", default="frugal", help="the frugal executable on the workers")
    p.add_argument("--quick", action="store_true", help="the experiments' [quick] settings")
    a = p.parse_args()
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(
            n_workers=a.workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        )
        client = Client(cluster)
    with client:
        futures = [
            client.submit(run_shard, a.frugal, a.experiments, i, a.shards, a.quick, pure=False)
            for i in range(a.shards)
        ]
        shards = client.gather(futures)
    with tempfile.TemporaryDirectory() as scratch:
        dirs = []
        for i, data in enumerate(shards):
            d = Path(scratch) / f"shard-{i}"
            d.mkdir()
            (d / "shard.json").write_bytes(data)
            dirs.append(str(d))
        subprocess.run([a.frugal, "merge", *dirs, "--out", a.out], check=True)
    print(f"{a.shards} shards on Dask, merged into {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

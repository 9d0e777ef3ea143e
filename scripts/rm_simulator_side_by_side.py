#!/usr/bin/env python3
"""Paper 000's authors' simulator beside frugal, job by job, on the authors' workload files.

Builds RM-Simulator (github.com/tawfiqul-islam/RM-Simulator, Apache-2.0) from a checkout
*outside* this repository, at 155d62d (the state of paper 000), with `javac` (its ILP
policy needs SCPSolver, which no public repository serves: a stub stands in for that one
class and the ILP is not compared). Runs it on its own workload files under every pricing
model for FIFO (RR), FIFO-C (RRC), FF, GIO and AsQ with its simulator.ini's settings and a
deadline tolerance of 0, runs `frugal simulate --jobs-csv ... --policy-reading
authors-code --queue fcfs` on the same files, and prints per cell the bill, deadlines met
and mean JCT of both, the share of jobs started at the same second on VMs of the same
types, and the first job where they part. The model chapter's "Side by side with
RM-Simulator" gives the result.

    git clone https://github.com/tawfiqul-islam/RM-Simulator /tmp/rm && git -C /tmp/rm checkout 155d62d
    cargo build --release
    python3 scripts/rm_simulator_side_by_side.py --rm-simulator /tmp/rm --frugal target/release/frugal

Needs Java 17 (javac, java) and Python 3.
"""
import argparse
import collections
import csv
import itertools
import pathlib
import re
import shutil
import subprocess
import sys

# simulator.ini's four price blocks (local small, medium, large; cloud small, medium,
# large), $ per second: frugal's pricing models 1-4 (paper 000 Table 3).
PRICES = {
    1: ([.001, .002, .003], [.004, .008, .012]),
    2: ([.001, .002, .003], [.002, .004, .006]),
    3: ([0, 0, 0], [.002, .004, .006]),
    4: ([.002, .004, .006], [.002, .004, .006]),
}
# scheduler.policy of simulator.ini, frugal's name, the simulator's output suffix.
POLICIES = [(1, "first-fit", "FF"), (2, "gio", "GIO"), (4, "round-robin", "RR"),
            (5, "round-robin-consolidate", "RRC"), (7, "asq", "AQS")]
FILES = {1: "workload_jobs_low_load.csv", 2: "workload_jobs_high_load.csv"}
# frugal's small-hybrid VM ids 0-8 as the simulator's site and flavour (its VMs of one
# type are interchangeable, so placements are compared by type).
VM_TYPES = ["L-s", "L-m", "L-l", "C-s", "C-s", "C-m", "C-m", "C-l", "C-l"]
ILP_STUB = """package Policy;
import Entity.Job;
public class ILPScheduler {
    public static boolean findSchedule(Job job) { throw new UnsupportedOperationException("no SCPSolver"); }
}
"""


def build(src: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    if not (src / "simulator" / "src" / "Manager" / "Controller.java").is_file():
        raise FileNotFoundError(f"--rm-simulator {src}: no simulator/src/Manager/Controller.java")
    tree = work / "src"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(src / "simulator" / "src", tree)
    (tree / "Policy" / "ILPScheduler.java").write_text(ILP_STUB)
    (tree / "Manager" / "hackerrank.java").unlink(missing_ok=True)
    classes = work / "classes"
    classes.mkdir(parents=True, exist_ok=True)
    subprocess.run(["javac", "-d", str(classes), *map(str, tree.rglob("*.java"))], check=True)
    return classes


def run_peer(src, classes, work, load, policy, pricing):
    d = work / f"peer-l{load}-p{policy}-c{pricing}"
    d.mkdir(parents=True, exist_ok=True)
    for f in FILES.values():
        shutil.copy(src / f, d)
    local, cloud = PRICES[pricing]
    ini = [f"simulator.home={d}", "workload.type=1", "queue.policy=1", f"scheduler.policy={policy}",
           "resourceSplitThreshold=0.2", "job.total=1000", f"job.arrival={load}", "failed.queue=0",
           "network.penalty=.30", "poisson.mean=50", "lambda=0.01", "deadline.tolerance=0"]
    ini += [f"local.vm.type{i}=1" for i in (1, 2, 3)] + [f"cloud.vm.type{i}=2" for i in (1, 2, 3)]
    ini += [f"local.vm.price{i + 1}={p}" for i, p in enumerate(local)]
    ini += [f"cloud.vm.price{i + 1}={p}" for i, p in enumerate(cloud)]
    (d / "simulator.ini").write_text("\n".join(ini) + "\n")
    out = subprocess.run(["java", "-cp", str(classes), "Manager.Controller"], cwd=d,
                         capture_output=True, text=True, check=True).stdout
    (d / "stdout.txt").write_text(out)
    return d


def run_frugal(frugal, src, work, load, pricing):
    d = work / f"frugal-l{load}-c{pricing}"
    subprocess.run([frugal, "simulate", "--cluster", "small-hybrid", "--jobs-csv", str(src / FILES[load]),
                    "--policy-reading", "authors-code", "--queue", "fcfs", "--kind-penalty", "0",
                    "--pricing", str(pricing), "--policies", ",".join(p[1] for p in POLICIES),
                    "--out", str(d)], check=True, capture_output=True)
    return d / FILES[load].removesuffix(".csv").replace("_", "-")


def compare(peer_dir, frugal_dir, name, suffix):
    peer = {r["id"]: r for r in csv.DictReader(open(peer_dir / f"jobs_{suffix}.csv")) if r["id"].startswith("job")}
    fr = {r["id"]: r for r in csv.DictReader(open(frugal_dir / f"{name}-seed1" / "jobs.csv"))}
    cost_p = float(next(l for l in open(peer_dir / f"VMs_{suffix}.csv") if l.startswith("Total Cost")).split(",")[1])
    cost_f = sum(float(r["cost_usd"]) for r in csv.DictReader(open(frugal_dir / f"{name}-seed1" / "vms.csv")))
    met_p = sum(r["Deadline Satisfied"] == "true" for r in peer.values())
    met_f = sum(r["met_deadline"] == "true" for r in fr.values())
    jct_p = sum(float(r["Finish Time (T_F)"]) - float(r["Arrival Time (T_A)"]) for r in peer.values()) / len(peer)
    jct_f = sum(float(r["finish_s"]) - float(r["arrival_s"]) for r in fr.values() if r["finish_s"]) / len(fr)
    same, first = 0, None
    for i in sorted(peer, key=lambda i: int(i.split("-")[1])):
        a, b = peer[i], fr[i]
        types_p = collections.Counter(v.rsplit("-", 1)[0] for v in a["Placement List"].split())
        types_f = collections.Counter()
        for pair in filter(None, b["placement"].split(";")):
            vm, n = pair.split(":")
            types_f[VM_TYPES[int(vm)]] += int(n)
        ok = b["start_s"] != "" and abs(float(a["Start Time (T_S)"]) - float(b["start_s"])) < 1 and types_p == types_f
        same += ok
        if not ok and first is None:
            first = f"{i} at {a['Start Time (T_S)']} s"
    return cost_p, cost_f, met_p, met_f, jct_p, jct_f, 100 * same / len(peer), first or "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rm-simulator", required=True, type=pathlib.Path, help="an RM-Simulator checkout at 155d62d")
    ap.add_argument("--frugal", default="target/release/frugal", help="the frugal binary")
    ap.add_argument("--work", default="/tmp/rm-simulator-side-by-side", type=pathlib.Path, help="scratch folder")
    a = ap.parse_args()
    if not shutil.which(a.frugal) and not pathlib.Path(a.frugal).is_file():
        raise FileNotFoundError(f"--frugal {a.frugal}: no such binary (cargo build --release)")
    a.work.mkdir(parents=True, exist_ok=True)
    classes = build(a.rm_simulator, a.work)
    print("file  pricing policy                  bill: simulator  frugal    diff   met: sim frugal   JCT s: sim  frugal   diff  same start+VMs  first difference")
    for load, pricing in itertools.product(FILES, PRICES):
        fdir = run_frugal(a.frugal, a.rm_simulator, a.work, load, pricing)
        for policy, name, suffix in POLICIES:
            pdir = run_peer(a.rm_simulator, classes, a.work, load, policy, pricing)
            cp, cf, mp, mf, jp, jf, same, first = compare(pdir, fdir, name, suffix)
            print(f"{'light' if load == 1 else 'high':5} {pricing:7} {name:24} {cp:14.1f} {cf:7.1f} {100 * (cf / cp - 1):+6.1f} %"
                  f" {mp:8} {mf:6} {jp:11.1f} {jf:7.1f} {100 * (jf / jp - 1):+5.1f} % {same:8.1f} %     {first}")


if __name__ == "__main__":
    sys.exit(main())

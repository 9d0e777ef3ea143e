"""Paper 002 Fig. 6-9 on frugal: trains DQN and REINFORCE agents for each arrival pattern
and beta, then compares their total cost and mean JCT with the baselines on the
evaluation hour (normal: FB-2009 hour 0, burst: hour 6), paper 002 Table 4 cluster.

Usage: python3 scripts/reproduce_paper002.py OUT_DIR [--betas 0,0.25,0.5,0.75,1]
       [--seeds 1,2,3] [--dqn-iterations 20000] [--reinforce-iterations 2000]
Prints a markdown table (means over seeds) and writes OUT_DIR/results.csv.
Needs `cargo build --release` first.
"""

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

FRUGAL = Path(__file__).resolve().parent.parent / "target" / "release" / "frugal"
BASELINES = ["round-robin", "round-robin-consolidate", "first-fit", "aep", "optimal"]
LOADS = {"normal": "light", "burst": "high"}


def run(*args):
    return subprocess.run([str(FRUGAL), *args], check=True, capture_output=True, text=True).stdout


def evaluate(out: Path, pattern: str, policies: list[str]) -> dict[str, dict]:
    run("simulate", "--cluster", "paper002-cloud", "--load", LOADS[pattern], "--queue", "fcfs",
        "--policies", ",".join(policies), "--out", str(out))
    results = {}
    for summary in out.glob("*/*/summary.json"):
        s = json.loads(summary.read_text())["run"]
        results[s["policy"]] = s
    return results


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--betas", default="0,0.25,0.5,0.75,1")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--patterns", default="normal,burst")
    p.add_argument("--dqn-iterations", type=int, default=20000)
    p.add_argument("--reinforce-iterations", type=int, default=2000)
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for pattern in a.patterns.split(","):
        base = evaluate(a.out / f"eval-{pattern}-baselines", pattern, BASELINES)
        for name in BASELINES:
            rows.append({"pattern": pattern, "policy": name, "beta": "", "seed": "",
                         "cost": base[name]["cost_usd"], "mean_jct_s": base[name]["mean_jct_s"]})
        for beta in a.betas.split(","):
            for agent, iters in (("dqn", a.dqn_iterations), ("reinforce", a.reinforce_iterations)):
                for seed in a.seeds.split(","):
                    ck = a.out / f"{agent}-{pattern}-b{beta}-s{seed}.safetensors"
                    run("train", "--agent", agent, "--beta", beta, "--workload", pattern,
                        "--iterations", str(iters), "--seed", seed, "--eval-every", str(iters), "--out", str(ck))
                    r = evaluate(a.out / f"eval-{ck.stem}", pattern, [f"rl:{ck}"])[f"rl:{ck}"]
                    rows.append({"pattern": pattern, "policy": agent, "beta": beta, "seed": seed,
                                 "cost": r["cost_usd"], "mean_jct_s": r["mean_jct_s"]})
                    print(f"{pattern} {agent} beta={beta} seed={seed}: cost {r['cost_usd']:.3f}, "
                          f"JCT {r['mean_jct_s']:.0f}", file=sys.stderr)
    with open(a.out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["pattern"], r["policy"], r["beta"]), []).append(r)
    print("| pattern | policy | beta | cost $ | mean JCT s | runs |\n|---|---|---:|---:|---:|---:|")
    for (pattern, policy, beta), rs in groups.items():
        cost = sum(r["cost"] for r in rs) / len(rs)
        jct = sum(r["mean_jct_s"] for r in rs) / len(rs)
        print(f"| {pattern} | {policy} | {beta} | {cost:.3f} | {jct:.0f} | {len(rs)} |")


if __name__ == "__main__":
    main()

"""Plots results.csv of reproduce_paper002.py: total cost and mean JCT against beta for the
agents (mean and range over seeds), with the baselines as horizontal lines (paper 002
Fig. 6-9).

Usage: python3 scripts/plot_paper002.py RESULTS_CSV OUT_PNG   (needs matplotlib)
"""

import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path: str, out: str) -> None:
    rows = list(csv.DictReader(open(path)))
    patterns = sorted({r["pattern"] for r in rows}, key=lambda p: p != "normal")
    fig, axes = plt.subplots(2, len(patterns), figsize=(6 * len(patterns), 8), squeeze=False)
    for col, pattern in enumerate(patterns):
        for row, (metric, label) in enumerate((("cost", "total cost ($)"), ("mean_jct_s", "mean JCT (s)"))):
            ax = axes[row][col]
            agents = defaultdict(lambda: defaultdict(list))
            for r in rows:
                if r["pattern"] != pattern:
                    continue
                if r["beta"]:
                    agents[r["policy"]][float(r["beta"])].append(float(r[metric]))
                else:
                    ax.axhline(float(r[metric]), linestyle="--", linewidth=1, label=r["policy"],
                               color=plt.cm.tab10(len(ax.lines) % 10))
            for agent, by_beta in agents.items():
                betas = sorted(by_beta)
                means = [sum(by_beta[b]) / len(by_beta[b]) for b in betas]
                lo = [means[i] - min(by_beta[b]) for i, b in enumerate(betas)]
                hi = [max(by_beta[b]) - means[i] for i, b in enumerate(betas)]
                ax.errorbar(betas, means, yerr=[lo, hi], marker="o", capsize=3, label=agent.upper())
            ax.set_title(f"{pattern}: {label}")
            ax.set_xlabel("beta (1 = cost only)")
            ax.set_ylabel(label)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""Generates deterministic inputs for the bundled applications:

  words.txt    text for wordcount.py (Zipf-distributed words)
  records.txt  `key value` records for sort.py
  graph.txt    `src dst` edges for pagerank.py (preferential attachment)

Usage: python generate_inputs.py OUTDIR [--scale S] [--seed N]
Scale 1 gives about 2 MB of words, 1 MB of records and 40,000 edges.
"""
import argparse
import os
import random


def words(rng, path, lines):
    vocabulary = [f"w{i}" for i in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(vocabulary))]
    with open(path, "w") as f:
        for _ in range(lines):
            f.write(" ".join(rng.choices(vocabulary, weights, k=12)) + "\n")


def records(rng, path, count):
    with open(path, "w") as f:
        for _ in range(count):
            key = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=10))
            f.write(f"{key} {rng.randrange(10**9)}\n")


def graph(rng, path, pages, edges_per_page):
    targets = [0]
    with open(path, "w") as f:
        for page in range(1, pages):
            for _ in range(edges_per_page):
                dst = rng.choice(targets)
                f.write(f"p{page} p{dst}\n")
                if rng.random() < 0.3:
                    f.write(f"p{dst} p{page}\n")
                targets.append(dst)
            targets.append(page)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.scale <= 0:
        parser.error("--scale: must be > 0")
    os.makedirs(args.outdir, exist_ok=True)
    rng = random.Random(args.seed)
    words(rng, os.path.join(args.outdir, "words.txt"), int(30000 * args.scale))
    records(rng, os.path.join(args.outdir, "records.txt"), int(50000 * args.scale))
    graph(rng, os.path.join(args.outdir, "graph.txt"), int(10000 * args.scale), 3)


if __name__ == "__main__":
    main()

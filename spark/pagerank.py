"""PageRank (network-bound): ITERATIONS rounds of PageRank (damping 0.85) over the
`src dst` edges of INPUT; every round shuffles all ranks. Writes `page<TAB>rank` lines.

Usage: spark-submit pagerank.py INPUT OUTPUT [ITERATIONS] [PARTITIONS]
"""
import sys

from pyspark.sql import SparkSession


def main(argv):
    if not 3 <= len(argv) <= 5:
        sys.exit(__doc__)
    source, target = argv[1], argv[2]
    iterations = int(argv[3]) if len(argv) >= 4 else 10
    partitions = int(argv[4]) if len(argv) == 5 else 6
    spark = SparkSession.builder.appName("pagerank").getOrCreate()
    links = (
        spark.sparkContext.textFile(source, partitions)
        .map(lambda line: tuple(line.split()[:2]))
        .distinct()
        .groupByKey(partitions)
        .cache()
    )
    ranks = links.mapValues(lambda _: 1.0)
    for _ in range(iterations):
        contributions = links.join(ranks).flatMap(
            lambda page: [(dst, page[1][1] / len(page[1][0])) for dst in page[1][0]]
        )
        ranks = contributions.reduceByKey(lambda a, b: a + b, partitions).mapValues(
            lambda r: 0.15 + 0.85 * r
        )
    ranks.map(lambda pr: f"{pr[0]}\t{pr[1]:.6f}").saveAsTextFile(target)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv)

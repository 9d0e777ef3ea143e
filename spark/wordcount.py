"""WordCount (CPU-bound): counts the words of INPUT and writes `word<TAB>count` lines to
OUTPUT, most frequent first.

Usage: spark-submit wordcount.py INPUT OUTPUT [PARTITIONS]
"""
import sys

from pyspark.sql import SparkSession


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    source, target = argv[1], argv[2]
    partitions = int(argv[3]) if len(argv) == 4 else 6
    spark = SparkSession.builder.appName("wordcount").getOrCreate()
    counts = (
        spark.sparkContext.textFile(source, partitions)
        .flatMap(lambda line: line.lower().split())
        .map(lambda word: (word, 1))
        .reduceByKey(lambda a, b: a + b, partitions)
        .sortBy(lambda wc: (-wc[1], wc[0]), numPartitions=1)
        .map(lambda wc: f"{wc[0]}\t{wc[1]}")
    )
    counts.saveAsTextFile(target)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv)

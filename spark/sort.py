"""Sort (memory-bound): sorts the `key value` records of INPUT by key, caching them in
executor memory, and writes them to OUTPUT.

Usage: spark-submit sort.py INPUT OUTPUT [PARTITIONS]
"""
import sys

from pyspark import StorageLevel
from pyspark.sql import SparkSession


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    source, target = argv[1], argv[2]
    partitions = int(argv[3]) if len(argv) == 4 else 6
    spark = SparkSession.builder.appName("sort").getOrCreate()
    records = (
        spark.sparkContext.textFile(source, partitions)
        .map(lambda line: line.split(" ", 1))
        .filter(lambda kv: len(kv) == 2)
        .map(lambda kv: (kv[0], kv[1]))
        .persist(StorageLevel.MEMORY_ONLY)
    )
    records.count()
    records.sortByKey(numPartitions=partitions).map(lambda kv: f"{kv[0]} {kv[1]}").saveAsTextFile(target)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv)

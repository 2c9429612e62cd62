"""``chatformats.ray.RenderStage`` unchanged in Spark's ``DataFrame.mapInPandas`` (local[2]): the
rows Spark returns are the single-process rows, failing rows included.  Needs pyspark (the
``spark`` extra, not in the ``test`` extra: a JVM start takes half a minute), so it skips
without it."""

from __future__ import annotations

import json

import pytest

from chatformats.ray import RenderStage

from .oracle import FIXED_NOW

pa = pytest.importorskip("pyarrow", reason="the parquet extra (pyarrow) is not installed")
pytest.importorskip("pyspark", reason="the spark extra (pyspark) is not installed")


def test_the_stage_runs_unchanged_in_map_in_pandas():
    from pyspark.sql import SparkSession

    rows = [(i, json.dumps([{"role": "user", "content": f"q{i} <|eot_id|>"},
                            {"role": "assistant", "content": f"a{i}"}]) if i % 4 else "[]")
            for i in range(40)]
    rows.append((40, "[{"))
    stage = RenderStage("cogito", now=FIXED_NOW)
    expected = stage(pa.table({"id": [r[0] for r in rows], "messages": [r[1] for r in rows]}))
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    try:
        df = spark.createDataFrame(rows, "id long, messages string").repartition(4)
        out = df.mapInPandas(lambda batches: (stage(batch) for batch in batches),
                             schema="id long, messages string, prompt string, error string")
        got = sorted(tuple(row) for row in out.collect())
    finally:
        spark.stop()
    assert got == [tuple(r.values()) for r in expected.to_pylist()]
    assert sum(row[3] is not None for row in got) == 11  # ten empty conversations, one bad JSON

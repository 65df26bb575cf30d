"""Parse speed of ltrrepro's reader against sklearn's load_svmlight_file, same file, same run.

Writes a Web30K-shaped file (136 features, ~120 docs/query) of about --mb megabytes,
then times: sklearn ``load_svmlight_file(query_id=True)``, ltrrepro's first parse
(no cache), and a cached reload. Prints the ratios and peak memory of the parse.

    python benchmarks/bench_io.py --mb 100
"""
from __future__ import annotations

import argparse
import shutil
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from ltrrepro.io_svmlight import read_svmlight, write_svmlight
from ltrrepro.synthetic import make_synthetic


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0, help="approximate file size in MB")
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="ltrrepro-bench-"))
    path = tmp / "web30k_shaped.txt"
    n_queries = max(10, int(args.mb * 1e6 / (120 * 1500)))
    if not path.exists():
        ds = make_synthetic("web30k", n_queries=n_queries, seed=0)
        write_svmlight(ds, path)
    size_mb = path.stat().st_size / 1e6
    # compile the kernels outside the timing
    warm = tmp / "warm.txt"
    warm.write_text("1 qid:1 1:0.5\n0 qid:1 2:1\n")
    read_svmlight(warm, use_cache=False)

    t = time.perf_counter()
    Xs, ys, qs = load_svmlight_file(str(path), query_id=True, dtype=np.float32)
    t_sk = time.perf_counter() - t
    del Xs, ys, qs

    cache = tmp / "cache"
    shutil.rmtree(cache, ignore_errors=True)   # time a cold parse, first pass included
    tracemalloc.start()
    t = time.perf_counter()
    ds = read_svmlight(path, cache_dir=cache)
    t_parse = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    final = ds.X.nbytes + ds.y.nbytes + ds.qid.nbytes + ds.offsets.nbytes
    del ds
    t = time.perf_counter()
    ds = read_svmlight(path, cache_dir=cache)
    t_cache = time.perf_counter() - t
    shutil.rmtree(cache, ignore_errors=True)
    t = time.perf_counter()
    read_svmlight(path, cache_dir=cache, n_features=136)
    t_decl = time.perf_counter() - t
    print(f"file: {size_mb:.1f} MB, {ds.n_docs} docs, {ds.n_queries} queries, {ds.n_features} features")
    print(f"sklearn load_svmlight_file: {t_sk:8.2f} s  ({size_mb / t_sk:7.1f} MB/s)")
    print(f"ltrrepro parse (no cache) : {t_parse:8.2f} s  ({size_mb / t_parse:7.1f} MB/s)")
    print(f"ltrrepro parse, n_features declared (the registry's path, one pass): {t_decl:8.2f} s  "
          f"({size_mb / t_decl:7.1f} MB/s) -> ratio vs sklearn {t_sk / t_decl:.1f}x")
    print(f"ltrrepro cached reload    : {t_cache:8.4f} s")
    print(f"ratio sklearn / ltrrepro parse   : {t_sk / t_parse:6.1f}x  (target >= 20x)")
    print(f"ratio parse / cached reload      : {t_parse / t_cache:6.0f}x  (target >= 100x)")
    print(f"peak traced memory while parsing : {peak / 1e6:.0f} MB = {peak / final:.2f}x the final arrays "
          f"(target <= 2x); process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")


if __name__ == "__main__":
    main()

"""Parse speed of ltrrepro's reader against sklearn's load_svmlight_file, same files, same run.

Two Web30K-shaped files (136 features, ~120 docs/query, synthetic ``web30k`` profile) of
about --mb megabytes each:

* ``mslr``: the MSLR-WEB30K text layout -- every feature 1..136 on every line, values with
  at most six decimals and trailing zeros dropped (``2 qid:1 1:3 2:0 ... 16:6.931275 ...``);
* ``ltrrepro``: what :func:`write_svmlight` writes -- zeros left out, ``%.9g`` values
  (some with exponents, which take the strict path).

For each: sklearn ``load_svmlight_file(query_id=True)``; ltrrepro's parse with the width
inferred (from the first chunk, a full first pass only when a later index is larger) and
declared (the registry's path), a newline count plus one parsing pass,
both without the cache; the first read that also writes the cache; a cached reload.
Times are the best of --repeats rounds; each round runs sklearn and ltrrepro back to back and
the printed ratio is the median of the rounds' ratios. Prints the peak memory of the parse.

    python benchmarks/bench_io.py --mb 100
"""
from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path

import numba
import numpy as np
from sklearn.datasets import load_svmlight_file

from ltrrepro.svmlight import read_svmlight, write_svmlight
from ltrrepro.synthetic import make_synthetic


def write_mslr_layout(ds, path: Path) -> None:
    """Every feature on every line, ``%.6f`` with trailing zeros (and a bare '.') dropped."""
    tmp = path.with_name(".tmp-" + path.name)
    with open(tmp, "w") as fh:
        for start in range(0, ds.n_docs, 2000):
            blk = np.round(np.asarray(ds.X[start:start + 2000], np.float64), 6) + 0.0
            txt = np.char.rstrip(np.char.rstrip(np.char.mod("%.6f", blk), "0"), ".")
            for r in range(blk.shape[0]):
                fh.write(f"{int(ds.y[start + r])} qid:{int(ds.qid[start + r])} "
                         + " ".join(f"{j + 1}:{v}" for j, v in enumerate(txt[r])) + "\n")
    tmp.replace(path)


def _best(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def bench_file(path: Path, tmp: Path, repeats: int) -> None:
    size_mb = path.stat().st_size / 1e6
    # the three readers run back to back in each round, so that a change of the machine's
    # speed between rounds (seen here: sklearn 4.1 s to 9.1 s on the same file) moves all
    # of them; the ratio of each round is reported as the median over rounds
    rounds = []
    for _ in range(repeats):
        t_sk, _ = _best(lambda: load_svmlight_file(str(path), query_id=True, dtype=np.float32), 1)
        t_inf, ds = _best(lambda: read_svmlight(path, use_cache=False), 1)
        t_decl, _ = _best(lambda: read_svmlight(path, n_features=136, use_cache=False), 1)
        rounds.append((t_sk, t_inf, t_decl))
    rounds = np.array(rounds)
    t_sk, t_inf, t_decl = rounds.min(axis=0)
    r_inf = np.median(rounds[:, 0] / rounds[:, 1])
    r_decl = np.median(rounds[:, 0] / rounds[:, 2])
    cache = tmp / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    tracemalloc.start()
    t = time.perf_counter()
    read_svmlight(path, n_features=136, cache_dir=cache)      # parse + write the cache
    t_first = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    t_cache, _ = _best(lambda: read_svmlight(path, n_features=136, cache_dir=cache), repeats)
    shutil.rmtree(cache, ignore_errors=True)
    final = ds.X.nbytes + ds.y.nbytes + ds.qid.nbytes + ds.offsets.nbytes
    print(f"\n{path.name}: {size_mb:.1f} MB, {ds.n_docs} docs, {ds.n_queries} queries, "
          f"{ds.n_features} features; {numba.get_num_threads()} threads; {repeats} rounds")
    print(f"  sklearn load_svmlight_file           : {t_sk:7.3f} s ({size_mb / t_sk:6.1f} MB/s)")
    print(f"  ltrrepro, width inferred             : {t_inf:7.3f} s ({size_mb / t_inf:6.1f} MB/s)"
          f"  -> {r_inf:5.1f}x sklearn")
    print(f"  ltrrepro, width declared (registry)  : {t_decl:7.3f} s ({size_mb / t_decl:6.1f} MB/s)"
          f"  -> {r_decl:5.1f}x sklearn (target >= 20x)")
    print("  ratio per round (sklearn / inferred, sklearn / declared): "
          + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(rounds[:, 0] / rounds[:, 1],
                                                        rounds[:, 0] / rounds[:, 2])))
    print(f"  first read, writing the cache        : {t_first:7.3f} s")
    print(f"  cached reload                        : {t_cache:7.4f} s  -> parse / reload "
          f"{t_decl / t_cache:5.0f}x (target >= 100x)")
    print(f"  peak traced memory, first read       : {peak / 1e6:.0f} MB = {peak / final:.2f}x the final "
          f"arrays (target <= 2x)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0, help="approximate size of each file in MB")
    ap.add_argument("--dir", default=None, help="keep the generated files here between runs")
    ap.add_argument("--layout", choices=["mslr", "ltrrepro", "both"], default="both")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="ltrrepro-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    warm = tmp / "warm.txt"                  # compile the kernels outside the timing
    warm.write_text("1 qid:1 1:0.5\n0 qid:1 2:1 3:1e-3\n")
    read_svmlight(warm, use_cache=False)
    read_svmlight(warm, n_features=3, use_cache=False)
    layouts = ["mslr", "ltrrepro"] if args.layout == "both" else [args.layout]
    for layout in layouts:
        per_query = 120 * (1600 if layout == "mslr" else 1700)   # bytes per query, measured
        n_queries = max(10, int(args.mb * 1e6 / per_query))
        path = tmp / f"web30k_{layout}_{n_queries}q.txt"
        if not path.exists():
            ds = make_synthetic("web30k", n_queries=n_queries, seed=0)
            (write_mslr_layout if layout == "mslr" else write_svmlight)(ds, path)
        bench_file(path, tmp, args.repeats)
    print(f"\nprocess max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.0f} MB")


if __name__ == "__main__":
    main()

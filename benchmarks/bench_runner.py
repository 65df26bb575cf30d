"""Parallel efficiency of independent units and peak memory per worker.

    python benchmarks/bench_runner.py [--queries 10000] [--units 8] [--trees 40] [--jobs N]

Runs the same ``units`` Bruch units (XE_NDCG MART, fixed number of trees, no early
stopping, one thread each) once with 1 job and once with ``--jobs`` jobs (default: all
cores) through :func:`ltrrepro.runner.run_units`, and prints

* parallel efficiency = T(1 job) / (jobs × T(jobs));
* the disk per unit of saved TREC runs (``--save-runs``, docs/export.md): the gzip run
  file, the arrays its record keeps for it, and the trial's qrels;
* per unit, the peak of the worker's anonymous memory (``Anonymous`` of
  /proc/self/smaps_rollup: heap and arrays, not the memory-mapped dataset, whose pages are
  shared by all workers through the page cache), sampled every 20 ms while the unit runs,
  minus its value before the unit; and the peak RSS increase, which also counts the mapped
  dataset pages the unit touched. Both as multiples of the dataset's in-memory size; the
  model (a few MB of trees) is included in both.

Measured on the 2-core development machine (LightGBM 4.7, preset ``fast``, XE_NDCG):
full scale (``--queries 31531 --units 2 --trees 20``, 2,000 MiB): efficiency 0.66, peak
anonymous memory 0.95x, RSS increase 1.95x; ``--queries 6000 --units 4 --trees 30`` (380 MiB):
efficiency 0.75, anonymous 1.74x — at that size LightGBM's bin-construction sample
(``bin_construct_sample_cnt`` = 200,000 rows × 12 bytes per value, ≈ 330 MB whatever the
dataset) dominates; it is a fixed cost, 0.16x of the full dataset.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments.bruch2021 import protocol as bruch  # noqa: E402
from ltrrepro import make_synthetic  # noqa: E402
from ltrrepro.runner import Unit, UnitContext, materialize, run_units  # noqa: E402
from ltrrepro.store import ResultStore  # noqa: E402


def _anon_kb() -> int:
    try:
        with open("/proc/self/smaps_rollup") as fh:
            return sum(int(line.split()[1]) for line in fh if line.startswith("Anonymous:"))
    except OSError:
        return 0


def _rss_kb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def measured_unit(unit, ctx):
    base_priv, base_rss = _anon_kb(), _rss_kb()
    peak = {"priv": base_priv, "rss": base_rss}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak["priv"] = max(peak["priv"], _anon_kb())
            peak["rss"] = max(peak["rss"], _rss_kb())
            time.sleep(0.02)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        rec, arrays = bruch.unit_fn(unit, ctx)
    finally:
        stop.set()
        th.join()
    rec["memory_kb"] = {"anon_increase": peak["priv"] - base_priv, "rss_increase": peak["rss"] - base_rss,
                        "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    return rec, arrays


def _bytes_under(root: Path) -> int:
    return sum(f.stat().st_size for f in Path(root).rglob("*") if f.is_file()) if Path(root).exists() else 0


def _layout_disk(n_queries: int) -> str:
    """Disk written by loading a real layout twice (pooled, as the experiments load it)."""
    from ltrrepro.datasets import load_dataset
    from ltrrepro.svmlight import write_svmlight

    ds = make_synthetic("web30k", n_queries=n_queries, seed=1)
    size = ds.X.nbytes + ds.y.nbytes + ds.qid.nbytes + ds.offsets.nbytes
    with tempfile.TemporaryDirectory() as tmp:
        fold = Path(tmp) / "data" / "MSLR-WEB30K" / "Fold1"
        fold.mkdir(parents=True)
        q = np.arange(ds.n_queries)
        for part, sel in (("train", q[: n_queries * 3 // 5]), ("vali", q[n_queries * 3 // 5: n_queries * 4 // 5]),
                          ("test", q[n_queries * 4 // 5:])):
            write_svmlight(ds.subset(sel), fold / f"{part}.txt")
        cache = Path(tmp) / "cache"
        pooled = load_dataset("web30k", data_dir=Path(tmp) / "data", cache_dir=cache)
        materialize(pooled, cache_dir=cache)
        first = _bytes_under(cache)
        again = load_dataset("web30k", data_dir=Path(tmp) / "data", cache_dir=cache)
        materialize(again, cache_dir=cache)
        second = _bytes_under(cache) - first
    return (f"real layout ({n_queries} queries, {size / 2**20:.0f} MiB in memory): first load writes "
            f"{first / 2**20:.0f} MiB ({first / size:.2f}x the dataset), a second load {second / 2**20:.1f} MiB")


def _runs_disk(store, dest: Path) -> str:
    """Disk per unit of the saved TREC runs (``--save-runs``): the gzip run file, the arrays the
    record keeps for it (scores, grades, sizes), and the trial's qrels (one per trial,
    shared by its units; here every unit is its own trial)."""
    import io

    from ltrrepro import trec

    out = trec.export_store(store, dest)
    recs = store.records()
    runs = sum(p.stat().st_size for p in out["runs"]) / len(out["runs"])
    qrels = sum(p.stat().st_size for p in out["qrels"]) / len(out["qrels"])
    kept, docs = [], []
    for r in recs:
        a = store.arrays(r["key"])
        buf = io.BytesIO()
        np.savez(buf, **{k: a[k] for k in (trec.SCORE, trec.LABEL, trec.SIZE, trec.DOCID) if k in a})
        kept.append(len(buf.getvalue()))
        docs.append(a[trec.SCORE].size)
    per = np.mean(docs)
    return (f"saved runs, per unit ({per:.0f} test documents): run file {runs / 1024:.1f} KiB (gzip, "
            f"{runs / per:.1f} B per document), arrays kept in the record for it {np.mean(kept) / 1024:.1f} KiB; "
            f"qrels {qrels / 1024:.1f} KiB per trial (shared by the trial's units)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--units", type=int, default=8)
    ap.add_argument("--trees", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--layout-queries", type=int, default=1000)
    args = ap.parse_args()
    ds = make_synthetic("web30k", n_queries=args.queries, seed=0)
    data_bytes = ds.X.nbytes + ds.y.nbytes + ds.qid.nbytes + ds.offsets.nbytes
    with tempfile.TemporaryDirectory() as tmp:
        ref = materialize(ds, cache_dir=tmp)
        written = _bytes_under(tmp)
        del ds
        cfg = bruch.BruchConfig(experiment="bench", dataset="synthetic-web30k", queries=args.queries, preset="fast",
                                rounds=args.trees, early_stopping=False)
        ctx = UnitContext(data={"path": ref.path, "name": ref.name}, cfg=cfg)
        units = [Unit("bench", "syn", t, "xendcg", (("noise", "none"),)) for t in range(args.units)]
        times = {}
        mem = []
        for jobs in (1, args.jobs):
            store = ResultStore(Path(tmp) / f"run{jobs}", {"jobs": jobs})
            t0 = time.perf_counter()
            s = run_units(units, measured_unit, ctx, store, jobs=jobs, threads=1, quiet=True)
            times[jobs] = time.perf_counter() - t0
            assert s.ok, s.failed
            mem += [r["memory_kb"] for r in store.records()]
        runs_line = _runs_disk(store, Path(tmp) / "trec")
    eff = times[1] / (args.jobs * times[args.jobs])
    mb = data_bytes / 2**20
    priv = max(m["anon_increase"] for m in mem) * 1024 / data_bytes
    rss = max(m["rss_increase"] for m in mem) * 1024 / data_bytes
    print(f"dataset {args.queries} queries, {mb:.0f} MiB in memory; {args.units} units of {args.trees} trees")
    print(f"disk written for the workers: {written / 2**20:.0f} MiB ({written / data_bytes:.2f}x the dataset; the "
          f"units write only their records)")
    print(_layout_disk(args.layout_queries))
    print(runs_line)
    print(f"1 job: {times[1]:.1f} s   {args.jobs} jobs: {times[args.jobs]:.1f} s   "
          f"parallel efficiency {eff:.2f}")
    print(f"peak anonymous memory per unit: {priv:.2f}x the dataset (limit 1.5x + model); "
          f"peak RSS increase (counts the shared memory map too): {rss:.2f}x")


if __name__ == "__main__":
    main()

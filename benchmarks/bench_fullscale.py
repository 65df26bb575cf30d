"""Training time per model at full Web30K scale, and the cost of the 100-trial protocol.

    python benchmarks/bench_fullscale.py [--queries 31531] [--trees 20] [--threads 2]
                                         [--library xgboost --device cuda]

Draws the synthetic Web30K profile at full size (31,531 queries, ≈3.7M documents), takes
trial 0's 60/20/20 split and trains λMART (LightGBM ``lambdarank``), XE_NDCG MART and
ListNet with the paper's hyperparameters (``bruch-web30k``: 400 leaves, lr 0.02, 255 bins,
min_data_in_leaf 50) for ``--trees`` trees, evaluating validation NDCG@5 after every tree
as the experiments do. Prints the dataset construction time and the time per tree, and
extrapolates to 500 trees (the paper's cap; early stopping can only shorten it) and to the
100-trial protocol of Table 1 (3 models) and of one Figure 3 panel (2 models × 6 levels) on
``--cores`` cores with ``--threads`` threads per job. With ``--device cuda`` every model is
also trained on the GPU (XGBoost's wheels; LightGBM only if built with CUDA; refused with a
clear message otherwise) and its per-tree time is printed next to the CPU's.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltrrepro import make_synthetic, trial_split  # noqa: E402
from ltrrepro.runner import unit_seed  # noqa: E402
from ltrrepro.device import DEVICES, DeviceError  # noqa: E402
from ltrrepro.fit.backends import check_device, custom_objective_libraries  # noqa: E402
from ltrrepro.fit import BACKENDS, SYSTEMS, preset  # noqa: E402


def _fit(model, args, tr, va, device):
    trainer = SYSTEMS[model].trainer(preset("bruch-web30k", rounds=args.trees, early_stopping=args.trees),
                                     library=args.library, seed=unit_seed(0, 0, 2, model), threads=args.threads,
                                     device=device)
    trainer.add_train(tr)
    trainer.add_valid(va)
    return trainer.fit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=31531)
    ap.add_argument("--trees", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cores", type=int, default=16)
    ap.add_argument("--models", default="lambdamart,xendcg,listnet")
    ap.add_argument("--library", choices=custom_objective_libraries(), default=custom_objective_libraries()[0])
    ap.add_argument("--device", choices=DEVICES, default="cpu", help="also train on this device (cuda)")
    args = ap.parse_args()
    if args.device != "cpu":
        try:
            check_device(args.device, args.library)
        except DeviceError as err:
            print(f"error: {err}", file=sys.stderr)
            sys.exit(2)
    t0 = time.perf_counter()
    ds = make_synthetic("web30k", n_queries=args.queries, seed=0)
    t_gen = time.perf_counter() - t0
    sp = trial_split(ds.n_queries, 0, 0)
    tr, va, te = ds.subset(sp.train), ds.subset(sp.valid), ds.subset(sp.test)
    print(f"{ds}: generated in {t_gen:.1f} s; train {tr.n_docs} docs, valid {va.n_docs}, test {te.n_docs}")
    del ds
    per_tree = {}
    for m in args.models.split(","):
        # time the binning alone (the trainer's backend builds the same training set), then the training
        backend = BACKENDS[args.library]
        params = backend.params(backend.objectives["lambdarank"], preset("bruch-web30k"), threads=args.threads, seed=0)
        t0 = time.perf_counter()
        bins = backend.dataset(tr, params, threads=args.threads)
        t_bin = time.perf_counter() - t0
        del bins
        fit = _fit(m, args, tr, va, "cpu")
        per_tree[m] = fit.train_s / fit.n_rounds      # train_s: the boosting alone (binning is setup_s)
        print(f"{m:12s} binning {t_bin:.1f} s; {fit.n_rounds} trees in {fit.train_s:.1f} s: "
              f"{per_tree[m]:.2f} s/tree with {args.threads} threads -> 500 trees {per_tree[m] * 500 / 60:.1f} min; "
              f"valid NDCG@5 after {fit.n_rounds} trees {fit.valid_curve[-1]:.4f}", flush=True)
        if args.device != "cpu":
            dev = _fit(m, args, tr, va, args.device)
            print(f"{'':12s} {args.device}: {dev.train_s / dev.n_rounds:.3f} s/tree against "
                  f"{per_tree[m]:.3f} s/tree on the CPU (boosting only, binning excluded from both)", flush=True)
    jobs = max(1, args.cores // args.threads)
    t1 = sum(per_tree[m] * 500 for m in ("lambdamart", "xendcg", "listnet") if m in per_tree)
    t3 = sum(per_tree[m] * 500 for m in ("lambdamart", "xendcg") if m in per_tree) * 6
    print(f"estimate, 100 trials on {args.cores} cores ({jobs} jobs x {args.threads} threads, perfect scaling, "
          f"500 trees each, per-tree times as above): Table 1 {100 * t1 / jobs / 3600:.1f} h; "
          f"one Figure 3 panel (6 levels) {100 * t3 / jobs / 3600:.1f} h")


if __name__ == "__main__":
    main()

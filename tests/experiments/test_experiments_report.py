"""Report hardening (issue #31): degenerate but valid results never crash a report, each report
records its files and takes away what an earlier one left, ``study.run/load`` raise user
errors, and plug-in file names are one per unit name. Every input is built in tmp_path as a
results store (no training), so each test takes seconds."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import canonical
from experiments.cli import USER_ERRORS, UsageError
from experiments.report import rebuild
from experiments.zheng2007.protocol import DCG5
import experiments as study
from ltrrepro.report import file_stem
from ltrrepro.fit import SYSTEMS
from ltrrepro.store import ResultStore, StoreError

NDCG = [canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10")]
NDCG5 = canonical("ndcg@5")
BRUCH = {"dataset": "svmlight", "library": "lightgbm", "preset": "tiny", "deviations": [], "choices": [],
         "baseline": "lambdamart", "plugins": []}
NO_REL = "inconclusive (no query with a relevant document in the test parts)"


def _store(root, experiment, cfg, units):
    """A finished run of ``experiment`` in ``root``: ``units`` are (trial, model, setting,
    record fields, arrays); reports read it as they read a real run."""
    store = ResultStore(root, {"experiment": experiment, **cfg})
    store.start(experiment, argv=[])
    for trial, model, setting, fields, arrays in units:
        key = f"d/t{trial:03d}/{','.join(f'{k}={v}' for k, v in setting.items()) or 'base'}/{model}"
        rec = {"unit": {"experiment": experiment, "dataset": "d", "trial": trial, "model": model, "setting": setting,
                        "seed": 0}, "fit": {"best_iteration": 3}, "timings": {"train_s": 0.1, "unit_s": 0.1}}
        system = SYSTEMS.get(model)             # the identity every unit function stores
        if system is not None:
            rec["system"] = {"family": system.family, "variant": system.variant}
        store.write(key, {**rec, **fields}, arrays)
    store.finish("ok")
    return store


def _ndcg(value, n_queries=4):
    """Means and per-query test arrays of the four NDCG cutoffs, all ``value`` (NaN: no query
    with a relevant document)."""
    return ({"means": {m: value for m in NDCG}},
            {**{f"test:{m}": np.full(n_queries, value) for m in NDCG}, "test:qid": np.arange(n_queries)})


def _quality(root, trials, value):
    models = ("listnet", "lambdamart", "xendcg")
    units = []
    for t in range(trials):
        for i, m in enumerate(models):
            fields, arrays = _ndcg(value(t, i))
            units.append((t, m, {"noise": "none"}, fields, arrays))
    return _store(root, "quality", {**BRUCH, "models": list(models)}, units)


# ----------------------------------------------------------------------------- 1. degenerate results
def test_quality_report_with_every_label_zero_shows_missing_values(tmp_path):
    """No relevant document anywhere: NDCG has no query, every cell is missing, every claim is
    inconclusive and says why; the manifest-level report does not crash."""
    _quality(tmp_path / "run", 2, lambda t, i: float("nan"))
    info = rebuild(tmp_path / "run", quiet=True)
    md = (tmp_path / "run" / "tables" / "table1.md").read_text()
    assert "| ListNet | 2 | – | – | – | – |" in md and "Missing: NDCG@1, NDCG@3, NDCG@5, NDCG@10" in md
    csv = pd.read_csv(tmp_path / "run" / "tables" / "table1.csv")
    assert csv[NDCG5].isna().all()
    claims = json.loads((tmp_path / "run" / "claims.json").read_text())["claims"]
    assert len(claims) == 6 and {c["verdict"] for c in claims} == {NO_REL}
    assert "Missing: NDCG@1" in info.text and NO_REL in info.text


def test_quality_report_one_trial_and_zero_variance_are_inconclusive(tmp_path):
    _quality(tmp_path / "one", 1, lambda t, i: 0.4 + 0.01 * i)
    claims = rebuild(tmp_path / "one", quiet=True).claims
    assert {c.verdict for c in claims} == {"inconclusive (one trial: no test)"}
    _quality(tmp_path / "flat", 3, lambda t, i: 0.4 + 0.01 * t + 0.01 * i)   # the same difference every trial
    claims = rebuild(tmp_path / "flat", quiet=True).claims
    assert {c.verdict for c in claims} == {"inconclusive (zero variance of the paired differences: no test)"}


def test_quality_report_leaves_out_a_trial_without_a_relevant_test_document(tmp_path):
    """Trial 0 has no defined NDCG: the means and tests use trials 1–3, the legend says so."""
    _quality(tmp_path / "run", 4, lambda t, i: float("nan") if t == 0 else 0.4 + 0.01 * i + 0.003 * t * i)
    info = rebuild(tmp_path / "run", quiet=True)
    assert {c.trials for c in info.claims} == {3}
    assert info.table("table1").frame[NDCG5].notna().all()
    assert "no value in 3 of 12 unit(s)" in (tmp_path / "run" / "tables" / "table1.md").read_text()


def _robustness(root, noises, levels, value, trials=2, models=("lambdamart", "xendcg"), plugins=()):
    settings = [{"noise": "none", "level": 0}] + [{"noise": n, "level": lv} for n in noises for lv in levels if lv]
    units = [(t, m, s, {"means": {NDCG5: value(t, i, s)}}, None)
             for t in range(trials) for s in settings for i, m in enumerate(models)]
    cfg = {**BRUCH, "models": list(models), "noise": list(noises), "levels": list(levels), "plugins": list(plugins)}
    return _store(root, "robustness", cfg, units)


def test_robustness_report_with_every_label_zero(tmp_path):
    _robustness(tmp_path / "run", ("documents", "labels"), (0, 50), lambda t, i, s: float("nan"))
    info = rebuild(tmp_path / "run", quiet=True)
    assert [c.verdict for c in info.claims] == [NO_REL, NO_REL]
    table = pd.read_csv(tmp_path / "run" / "tables" / "robustness.csv")
    assert len(table) == 4 and (table.trials == 0).all() and table.p.isna().all()
    assert "Missing: NDCG@5: no value in 12 of 12 unit(s)" in info.text


def test_click_levels_with_one_trial_are_inconclusive(tmp_path):
    units = [(0, m, {"noise": "clicks", "level": lv}, {"means": {NDCG5: 0.4 + 0.01 * i}}, None)
             for lv in (0.05, 0.3) for i, m in enumerate(("lambdamart", "xendcg"))]
    _store(tmp_path / "run", "clicks", {**BRUCH, "models": ["lambdamart", "xendcg"], "noise": ["clicks"],
                                        "levels": [0.05, 0.3]}, units)
    verdicts = {c.text: c.verdict for c in rebuild(tmp_path / "run", quiet=True).claims}
    assert verdicts["XE_NDCG beats λMART at click level 0.05"] == "inconclusive (one trial: no test)"
    assert verdicts["XE_NDCG beats λMART at every click level, each significant (appendix E)"] == \
        "inconclusive (one trial: no test)"


def test_convergence_report_without_a_relevant_validation_document(tmp_path):
    units = [(t, m, {"noise": "none"}, {"means": {}, "valid_curve": [float("nan")] * 10}, None)
             for t in range(2) for m in ("lambdamart", "xendcg")]
    _store(tmp_path / "run", "convergence", {**BRUCH, "models": ["lambdamart", "xendcg"]}, units)
    info = rebuild(tmp_path / "run", quiet=True)
    assert info.claims[0].verdict == "inconclusive (no query with a relevant document in the validation parts)"
    assert "Missing: validation NDCG@5 of λMART: no value in 2 of 2 trial(s)" in info.text


def test_split_principles_report_with_every_label_zero(tmp_path):
    """Xia's report: no defined metric and a LambdaMART loss of 0 (no pair to order)."""
    metrics = [canonical(m) for m in ("ndcg@1", "ndcg@3", "ndcg@10", "err")]
    units = []
    for t in range(2):
        for m in ("mcrank-se", "mcrank-ole", "lambdamart-se", "lambdamart-ole"):
            units.append((t, m, {"leaves": 10, "lr": 0.1}, {
                "means": {k: float("nan") for k in metrics}, "fit": {"train_loss": 0.0 if "lambda" in m else 5.0},
                "curve_points": [1, 2], "curves": {k: [float("nan")] * 2 for k in metrics},
                "timings": {"train_s": 0.1, "boost_s": 0.1, "unit_s": 0.1}}, None))
    _store(tmp_path / "run", "split_principles", {"dataset": "svmlight", "deviations": [], "choices": []}, units)
    info = rebuild(tmp_path / "run", quiet=True)
    verdicts = [c.verdict for c in info.claims if "most comparisons" in c.text]
    assert verdicts == [NO_REL, NO_REL]
    loss = next(c for c in info.claims if c.text.startswith("lambdamart: OLE's final objective loss"))
    assert loss.verdict.startswith("inconclusive (no fold with a finite loss ratio")
    assert "Missing: NDCG@1, NDCG@3, NDCG@10, ERR" in info.text
    # a manifest without growth / leaf rule: the configuration's defaults, as the run had them
    assert "trees width-first, leaf rule diagonal" in info.text
    assert "trees grown width-first, leaf rule diagonal" in (tmp_path / "run" / "tables" / "table_se_ole.md").read_text()


def test_qbrank_report_without_preference_pairs_in_one_trial(tmp_path):
    """Zheng's report: one trial, precision at K% undefined (no pair in P3)."""
    percents = range(10, 101, 10)
    sizes = {"L1_queries": 2, "L2_queries": 4, "V_queries": 1, "L3_queries": 5}
    units = [(0, sys_, {"train": train}, {
        "means": {DCG5: 5.0 + i, **{f"prec@{k}%": float("nan") for k in percents}},
        "curve_points": [5], "test_curve_dcg5": [5.0 + i], "info": {"sizes": sizes}}, None)
        for i, (sys_, train) in enumerate([("gbt", "L1"), ("gbt", "L2"), ("gbt", "L1L2"), ("qbrank", "P2"),
                                            ("qbrank", "P2L1"), ("ranksvm", "P2")])]
    _store(tmp_path / "run", "qbrank", {"dataset": "svmlight", "library": "lightgbm", "deviations": [],
                                        "choices": []}, units)
    info = rebuild(tmp_path / "run", quiet=True)
    verdicts = {c.text: c.verdict for c in info.claims}
    assert verdicts["Table 1: QBRank(P2) > GBT on precision at 10%"] == \
        "inconclusive (no preference pair in the test parts)"
    assert verdicts["Figure 1: adding L1 helps GBT — GBT(L1∪L2) > GBT(L2) (DCG-5)"] == "inconclusive (one trial: no test)"


# ----------------------------------------------------------------------------- 2. stale outputs
def test_a_report_takes_away_the_tables_and_figures_of_an_earlier_one(tmp_path):
    """documents,labels then labels only into the same OUT: the documents figure goes,
    report.json lists exactly this report's files, and study.load returns exactly those."""
    out = tmp_path / "run"
    good = lambda t, i, s: 0.4 + 0.01 * i + 0.001 * t * (i + 1)          # noqa: E731
    _robustness(out, ("documents", "labels"), (0, 50), good)
    rebuild(out, quiet=True)
    assert (out / "figures" / "fig3_documents.png").exists()
    (out / "tables" / "mine.csv").write_text("a\n1\n")      # no report recorded it: set aside, not deleted
    for f in (out / "units").glob("*noise=documents*"):
        f.unlink()
    _robustness(out, ("labels",), (0, 50), good)
    info = rebuild(out, quiet=True)
    assert not (out / "figures" / "fig3_documents.png").exists() and (out / "stale" / "tables" / "mine.csv").exists()
    listed = json.loads((out / "report.json").read_text())["files"]
    assert "figures/fig3_labels.png" in listed and "figures/fig3_documents.png" not in listed
    assert sorted(p.relative_to(out).as_posix() for d in ("tables", "figures") for p in (out / d).iterdir()) == \
        sorted(f for f in listed if f.startswith(("tables/", "figures/")))
    assert "figures/fig3_documents.png" in info.stale and "tables/mine.csv" in info.stale
    assert "note: removed 2 file(s) of an earlier report" in info.text and "tables/mine.csv" in info.text
    res = study.load(out)
    assert set(res.tables) == {"robustness"} and [p.name for p in res.figures] == ["fig3_labels.png"]


# ----------------------------------------------------------------------------- 3. study.run / load errors
@pytest.mark.parametrize("params", [{"bogus": 1}, {"trials": 0}])
def test_study_run_raises_a_usage_error_not_system_exit(tmp_path, params):
    with pytest.raises(UsageError, match="trials|bogus"):
        study.run("quality", out=tmp_path / "out", **params)


def test_study_load_refuses_a_missing_or_damaged_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        study.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        study.load(tmp_path / "empty")
    out = tmp_path / "run"
    _quality(out, 2, lambda t, i: 0.4 + 0.01 * i + 0.002 * t * i)
    rebuild(out, quiet=True)
    assert set(study.load(out).tables) == {"table1", "table1_tests", "timings"}
    (out / "claims.json").write_text('{"claims": [')
    with pytest.raises(StoreError, match=r"claims\.json.*python -m experiments\.report") as err:
        study.load(out)
    assert isinstance(err.value, USER_ERRORS)
    rebuild(out, quiet=True)
    (out / "manifest.json").write_text("{")
    with pytest.raises(StoreError, match=r"manifest\.json.*re-running the experiment's command"):
        study.load(out)


# ----------------------------------------------------------------------------- 4. plug-in file names
def test_plugin_file_names_are_one_per_unit_name(tmp_path):
    """Unit names differing only in '-' / '.' get their own tables and figures."""
    plugins = [("plugin_losses.Squared@scale=0.5", "plugin_losses:Squared(scale=0.5)"),
               ("plugin_losses.Squared@scale=0-5", "plugin_losses:Squared(scale='0-5')")]
    assert len({file_stem(k) for k, _ in plugins}) == 2
    assert file_stem(plugins[0][0]) == "plugin_losses-Squared@scale=0-5"          # unchanged README names
    models = ("lambdamart", "xendcg", *(k for k, _ in plugins))
    out = tmp_path / "run"
    _robustness(out, ("labels",), (0, 50), lambda t, i, s: 0.4 + 0.01 * i + 0.001 * t * i, models=models,
                plugins=plugins)
    rebuild(out, quiet=True)
    for key, spec in plugins:
        table = pd.read_csv(out / "tables" / f"robustness_{file_stem(key)}.csv")
        assert spec.split(":")[1] in table.columns           # its own model's column
        assert (out / "figures" / f"fig3_labels_{file_stem(key)}.png").exists()

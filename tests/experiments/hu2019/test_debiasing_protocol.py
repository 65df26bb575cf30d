"""The debiasing study's protocol: its units (default point, sweeps, the corner), the flags'
checks (one error line each), the arms' systems, the true examination curve, the three columns
of notes, and the click systems' handling of positions (LightGBM's position field, position as a
feature fixed at position 1)."""
import numpy as np
import pytest

import experiments
from experiments.errors import UsageError
from experiments.hu2019.protocol import ARMS, DebiasingConfig, build_units, settings, true_curve
from ltrrepro.clicks import click_probabilities, examination, shown_lists, simulate
from ltrrepro.data import RankingDataset
from ltrrepro.fit import SYSTEMS
from ltrrepro.fit.boosting import preset


def test_units_cover_the_default_point_the_sweeps_and_the_corner():
    cfg = experiments.configure("debiasing", trials=2)
    groups = dict(settings(cfg))
    default = cfg.default_setting
    assert groups[default] == tuple(ARMS)                                # every arm at the default point
    sweeps = [s for s in groups if s != default]
    assert len(sweeps) == 9                     # sessions 4, 64; η .5, 2; share .02, .1, 1; cascade; the corner
    assert all(set(groups[s]) >= {"naive", "ulm_lgb"} for s in sweeps)
    corner = dict(default, sessions=4, share=1.0)
    assert tuple(corner.items()) in groups and groups[tuple(corner.items())] == ("naive", "ulm_lgb")
    keys = [u.key for u in build_units(cfg)]
    assert len(keys) == len(set(keys)) == 2 * (len(ARMS) + 8 * 4 + 2)


def test_the_default_point_is_the_authors_generator():
    """The authors' generator as the defaults: every document shown, the eye-tracking table, 16 sessions
    re-drawn until clicked, a Ranking SVM logger, the authors' Unbiased LambdaMART (p = 0.5);
    each has its option, and the notes name it."""
    cfg = experiments.configure("debiasing")
    assert (cfg.k, cfg.shown, cfg.curve, cfg.sessions, cfg.no_click, cfg.logger, cfg.ulm) == \
        (0, None, "eyetracking", 16, "redraw", "svm", "authors")
    kw = cfg.ulm_kwargs()
    assert (kw["sigma"], kw["p"], kw["n_positions"], kw["score_norm"], kw["list_norm"]) == (2.0, 0.5, 12, True, False)
    assert cfg.ulm_kwargs(update=False)["update"] is False
    notes = " ".join(cfg.as_paper())
    for option in ("--k K", "--curve inverse", "--no-click drop", "--logger lambdamart", "--ulm lambdarank_unbiased"):
        assert option in notes, option
    other = experiments.configure("debiasing", k=10, curve="inverse", no_click="drop", logger="lambdamart",
                                  ulm="equations", bias_p=2.0)
    text = " ".join(other.choices())
    for option in ("--k all", "--curve eyetracking", "--no-click redraw", "--logger svm", "--bias-p"):
        assert option in text, option
    assert other.ulm_kwargs()["p"] == 2.0 and other.shown == 10
    xgb_like = experiments.configure("debiasing", ulm="lambdarank_unbiased")      # set as the study's XGBoost arm
    assert xgb_like.ulm_kwargs()["list_norm"] is bool(xgb_like.boosting.lambdarank_norm) is False


@pytest.mark.parametrize("fields, message", [
    ({"share": 0}, "--share and --sweep-share in"), ({"sweep_click": ("ubm",)}, "--click-model / --sweep-click"),
    ({"models": ("naive", "magic")}, "unknown arm"), ({"library": "catboost"}, "one that trains ltrrepro.s objectives"),
    ({"eps_minus": 0.5, "eps_plus": 0.2}, "eps-minus"), ({"sweep_share": (1.5,)}, "--sweep-share"),
    ({"k": 1}, "--k >= 2"), ({"no_click": "keep"}, "--no-click"), ({"logger": "oracle"}, "--logger"),
    ({"ulm": "mine"}, "--ulm"), ({"bias_p": -1.0}, "--bias-p"),
    ({"sessions": 10 ** 12}, r"sessions \(--sessions\) must be between 1 and 100,000"),
    ({"sweep_sessions": (300, 10 ** 12)}, r"sweep_sessions \(--sweep-sessions\) must be between 1 and 100,000"),
])
def test_bad_values_are_one_clear_error(fields, message):
    with pytest.raises(UsageError, match=message):
        experiments.configure("debiasing", **fields)


@pytest.mark.parametrize("argv, message", [
    (["--share", "0"], "--share must be in"), (["--sweep-click", "ubm"], "--click-model / --sweep-click"),
    (["--models", "naive,magic"], "unknown arm"), (["--sweep-share", "x"], "--sweep-share"),
    (["--k", "1"], "--k: 'all' or a whole number"), (["--k", "many"], "--k: 'all' or a whole number"),
])
def test_bad_flags_are_one_clear_error(argv, message):
    from experiments.cli import parse_command

    with pytest.raises(UsageError, match=message):
        parse_command("debiasing", argv)


@pytest.mark.parametrize("argv, match", [
    (["--sessions", "1000000000000"], "'1000000000000' is more than 100,000, the most a run takes"),
    (["--sweep-sessions", "300,1000000000000"], "sweep_sessions (--sweep-sessions) must be between 1 and 100,000"),
])
def test_sessions_without_bound_are_refused_before_any_work(tmp_path, capsys, argv, match):
    """``--sessions 1000000000000`` once started the run and every unit failed with MemoryError
    (19 units, 25 lines); now one line naming the maximum, and nothing written (issue 48)."""
    from experiments.__main__ import main

    try:
        code = main(["debiasing", *argv, "--out", str(tmp_path / "o"), "--quiet"])
    except SystemExit as exit_:                      # argparse's own error path
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("error:") and match in err
    assert not (tmp_path / "o").exists()


def test_every_arm_names_a_registered_system_in_its_library():
    for name, arm in ARMS.items():
        system = SYSTEMS[arm.system]
        assert arm.library is None or arm.library in system.libraries, name
        assert arm.data in ("clicks", "labels") and arm.propensity in ("", "true", "estimated"), name


def test_notes_have_three_columns_and_say_what_differs():
    cfg = experiments.configure("debiasing")
    notes = cfg.protocol_notes()
    assert all(notes[k] for k in ("as_paper", "choices", "deviations"))
    assert any("0.3 of the training queries" in d for d in notes["deviations"])
    real = DebiasingConfig(experiment="debiasing", dataset="synthetic-web30k", queries=50, share=0.01, bias_p=1.0)
    assert not any("training queries" in d for d in real.deviations())
    assert any("p = 1" in d for d in real.deviations())
    table = DebiasingConfig(experiment="debiasing", dataset="synthetic-web30k", queries=50, bias_p=0.0)
    assert not any("bias regularization" in d for d in table.deviations())


def test_true_curve_is_the_examination_relative_to_position_one(rng):
    y = rng.integers(0, 5, 200).astype(np.int32)
    offs = np.arange(0, 201, 20)
    rows, sizes = shown_lists(rng.random(200), offs, 10)
    pbm = simulate(y, rows, sizes, 5, rng, click_probs=click_probabilities(0.1, 1, 4), eta=2.0)
    assert np.allclose(true_curve(pbm, 10), examination(10, 2.0))
    cas = simulate(y, rows, sizes, 5, rng, model="cascade", click_probs=click_probabilities(0.1, 1, 4))
    curve = true_curve(cas, 10)
    assert curve[0] == 1 and np.all(np.diff(curve) <= 0)


def _toy(rng, n=400, m=10):
    X = rng.normal(size=(n, 3)).astype(np.float32)
    pos = np.tile(np.arange(m), n // m)
    y = ((X[:, 0] > 0.5) | (pos == 0)).astype(np.int32)                  # the top position is always clicked
    return RankingDataset(X=X, y=y, qid=np.repeat(np.arange(n // m), m), offsets=np.arange(0, n + 1, m)), pos


def test_position_as_a_feature_is_fixed_at_position_one(rng):
    ds, pos = _toy(rng)
    trainer = SYSTEMS["position_feature_lambdamart"].trainer(preset("tiny"), library="lightgbm",
                                                            seed=np.random.SeedSequence(0), threads=1)
    trainer.add_train(ds, position=pos)
    fitted = trainer.fit()
    X = ds.X[:20]
    inner = fitted.raw.__closure__[0].cell_contents                     # the model of (features, position)
    assert np.allclose(fitted.scores(X), inner(np.hstack([X, np.zeros((20, 1), np.float32)]), 0, fitted.best_iteration))
    assert not np.allclose(fitted.scores(X), inner(np.hstack([X, np.full((20, 1), 5, np.float32)]), 0,
                                                   fitted.best_iteration))


OLD_LIGHTGBM = tuple(int(v) for v in __import__("lightgbm").__version__.split(".")[:2]) < (4, 1)


@pytest.mark.skipif(OLD_LIGHTGBM, reason="LightGBM < 4.1 has no Dataset position")
@pytest.mark.allowed_skip(reason="LightGBM < 4.1 (the floor) has no Dataset position")
def test_lightgbm_position_reaches_the_library(rng):
    ds, pos = _toy(rng)
    scores = []
    for p in (pos, np.zeros_like(pos)):
        trainer = SYSTEMS["lgb_position_lambdamart"].trainer(preset("tiny"), library="lightgbm",
                                                            seed=np.random.SeedSequence(0), threads=1)
        trainer.add_train(ds, position=p)
        scores.append(trainer.fit().scores(ds.X))
    assert not np.allclose(*scores)                                     # the position-bias term absorbed position 1
    with pytest.raises(ValueError, match="pass the rows' positions"):
        SYSTEMS["lgb_position_lambdamart"].trainer(preset("tiny"), library="lightgbm", seed=np.random.SeedSequence(0),
                                                   threads=1).add_train(ds)
    pinned = SYSTEMS["xgb_unbiased_lambdamart"].trainer(preset("tiny"), library="lightgbm",
                                                        seed=np.random.SeedSequence(0), threads=1)
    assert pinned.library == "xgboost"                                  # a library's own method keeps its library


@pytest.mark.slow
def test_a_plug_in_is_an_arm_on_the_clicks(tmp_path):
    """``--models naive,plugin_losses:Squared(scale=0.5)``: the plug-in trains on the click sessions
    (a ClickTrainer), has its row in the main table and its claim against naive λMART."""
    import json

    from experiments.execution import Execution
    from ltrrepro.fit.ranking import ClickTrainer

    spec = "plugin_losses:Squared(scale=0.5)"
    cfg = experiments.configure("debiasing", queries=30, trials=2, rounds=2, sessions=5, models=("naive", spec),
                                sweep_models=("naive",), sweep_sessions=(), sweep_eta=(), sweep_share=(), sweep_click=())
    key = dict((s, k) for k, s in cfg.plugins)[spec]
    assert cfg.system(key).trainer_cls is ClickTrainer and cfg.arm(key).label == "Squared(scale=0.5)"
    assert experiments.run(cfg, Execution(out=str(tmp_path / "p"), quiet=True)).exit_code == 0
    assert "Squared(scale=0.5)" in (tmp_path / "p" / "tables" / "main.csv").read_text()
    claims = json.loads((tmp_path / "p" / "claims.json").read_text())["claims"]
    assert any(c["claim"] == "Squared(scale=0.5) beats λMART on raw clicks" for c in claims)
    with pytest.raises(UsageError, match="no model uses it"):
        DebiasingConfig(experiment="debiasing", queries=30, models=("naive",), plugins=((key, spec),))

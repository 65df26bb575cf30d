"""Every field of DebiasingConfig reaches the run: changed alone, it changes the units, the data
or a unit's record (a field that reaches nothing fails here)."""
import dataclasses

import pytest

from experiments import registry
from experiments.hu2019.protocol import DebiasingConfig
from experiments.study import prepare_data

SHOWN_ONCE = {"experiment", "data_dir", "looks"}       # RunConfig's own paths: tests/test_config_fields.py
ELSEWHERE = {"plugins"}                                 # test_debiasing_protocol.py::test_a_plug_in_is_an_arm_on_the_clicks


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in ("timings", "log")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def fingerprint(cfg, tmp, max_units=3):
    exp = registry.get(cfg.experiment)
    units = exp.units(cfg)
    info = prepare_data(cfg, tmp)
    ctx = {"cfg": cfg, "data": info.ref, "threads": 1}
    return [u.key for u in units], info.facts, [_strip(exp.unit_fn(u, ctx)[0]) for u in units[:max_units]]


@pytest.mark.slow
def test_every_debiasing_field_reaches_the_run(tmp_path):
    base = DebiasingConfig(experiment="debiasing", queries=30, trials=1, rounds=2, logger_rounds=2,
                           models=("ulm_lgb", "xgb_unbiased"), sweep_models=("naive",), sessions=5,
                           sweep_sessions=(8,), sweep_eta=(2.0,), sweep_share=(0.5,), sweep_click=("cascade",))
    changes = {"dataset": "synthetic-yahoo", "queries": 32, "trials": 2, "seed": 1, "library": "xgboost",
               "preset": "tiny", "rounds": 3, "models": ("ulm_lgb", "naive"), "sweep_models": ("skyline",), "k": 5,
               "sessions": 6, "eta": 0.5, "share": 0.2, "click_model": "cascade", "curve": "eyetracking",
               "eps_plus": 0.9, "eps_minus": 0.2, "bias_p": 1.0, "logger_rounds": 3, "sweep_sessions": (9,),
               "sweep_eta": (1.5,), "sweep_share": (0.6,), "sweep_click": ()}
    assert {f.name for f in dataclasses.fields(base)} == set(changes) | SHOWN_ONCE | ELSEWHERE
    ref = fingerprint(base, tmp_path / "base")
    same = [k for k, v in changes.items()
            if fingerprint(dataclasses.replace(base, **{k: v}), tmp_path / k) == ref]
    assert same == [], f"DebiasingConfig: changing {same} changes no unit, data or record"

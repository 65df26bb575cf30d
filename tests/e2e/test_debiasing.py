"""The debiasing study end to end (python -m experiments.debiasing): a small run writes the
main table, every sweep's table and figure, the propensity-recovery figure and the claims with
power and verdict; a user's directory in LightGBM's layout (no qid:, a .query sidecar) runs to
the end."""
import json

import pytest

import experiments
from experiments.execution import Execution
from ltrrepro.svmlight import write_svmlight
from ltrrepro.synthetic import make_synthetic

#: LightGBM < 4.1 (the floor) has no Dataset position: the run refuses the arm, so it is left out there
OLD_LIGHTGBM = tuple(int(v) for v in __import__("lightgbm").__version__.split(".")[:2]) < (4, 1)
SMALL = dict(queries=40, trials=2, rounds=3, sessions=10, sweep_sessions=(20,), sweep_eta=(2.0,), sweep_share=(0.5,),
             sweep_click=("cascade",))


@pytest.mark.slow
def test_a_small_run_writes_every_table_figure_and_claim(tmp_path):
    models = {"models": ("skyline", "naive", "xgb_unbiased", "ulm_lgb", "ulm_xgb", "ulm_off", "ips_true", "ips_est",
                         "ipsxe_true",
                         "ipsxe_est"), "sweep_models": ("naive", "xgb_unbiased", "ulm_lgb")} if OLD_LIGHTGBM else {}
    cfg = experiments.configure("debiasing", **SMALL, **models)
    res = experiments.run(cfg, Execution(out=str(tmp_path / "run"), quiet=True, jobs=1, threads=1))
    assert res.exit_code == 0
    root = tmp_path / "run"
    for name in ("main", "sweep_sessions", "sweep_eta", "sweep_share", "sweep_click", "propensity", "clicks"):
        assert (root / "tables" / f"{name}.md").exists(), name
    for name in ("sweep_sessions", "sweep_eta", "sweep_share", "sweep_click", "propensity"):
        assert (root / "figures" / f"{name}.png").exists(), name
    claims = json.loads((root / "claims.json").read_text())["claims"]
    texts = " | ".join(c["claim"] for c in claims)
    for part in ("Unbiased LambdaMART beats LambdaMART trained on raw clicks", "close to λMART on expert labels",
                 *(() if OLD_LIGHTGBM else ("LightGBM's position-debiased",)), "lambdarank_unbiased", "strong logger",
                 "XE_NDCG beats λMART under IPS", "The bias update pays"):
        assert part in texts, part
    assert all("power" in c and c["verdict"] for c in claims)
    clicks = (root / "tables" / "clicks.csv").read_text()
    assert "logger NDCG@10" in clicks and "skyline NDCG@10" in clicks    # the conditions beside the click logs
    man = json.loads((root / "manifest.json").read_text())
    assert set(man["config"]) >= {"as_paper", "choices", "deviations"}


def _lightgbm_layout(ds, path):
    write_svmlight(ds, path.with_name("tmp.txt"), comment_docid=False)
    lines = path.with_name("tmp.txt").read_text().splitlines()
    path.write_text("\n".join(" ".join(t for t in ln.split() if not t.startswith("qid:")) for ln in lines) + "\n")
    path.with_name(path.name + ".query").write_text("\n".join(map(str, ds.query_sizes)) + "\n")
    path.with_name("tmp.txt").unlink()


@pytest.mark.slow
def test_a_users_lightgbm_layout_directory_runs_to_the_end(tmp_path):
    data = tmp_path / "mydata"
    data.mkdir()
    _lightgbm_layout(make_synthetic("web30k", n_queries=40, seed=4), data / "train.txt")
    cfg = experiments.configure("debiasing", dataset="svmlight", data_dir=str(data), trials=1, rounds=2, sessions=5,
                                models=("skyline", "naive", "ulm_lgb", "xgb_unbiased"), sweep_models=("naive",),
                                sweep_sessions=(), sweep_eta=(), sweep_share=(), sweep_click=())
    res = experiments.run(cfg, Execution(out=str(tmp_path / "out"), quiet=True, jobs=1, threads=1))
    assert res.exit_code == 0
    main = (tmp_path / "out" / "tables" / "main.csv").read_text()
    assert "Unbiased LambdaMART" in main and "skyline" in main

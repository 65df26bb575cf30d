"""Plug-in objectives: a loss defined outside ltrrepro runs through Bruch's experiments with
both libraries, appears in tables and claims, is recorded in the manifest, and a broken one
is a clear error (before any work when it cannot be loaded; its own units only when it breaks
on the data, while the built-in models finish)."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import quality, robustness
from ltrrepro.fit import SYSTEMS, Boosting, PluginError, load_plugin, plugin_key
from ltrrepro.fit.plugins import parse_spec, split_models

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--queries", "60", "--trials", "2", "--preset", "tiny", "--jobs", "1", "--threads", "1", "--quiet"]
SQ = "plugin_losses:Squared(scale=0.5)"
SQ_KEY = "plugin_losses.Squared@scale=0.5"


def test_specs_parse_and_name_their_units():
    assert parse_spec("a.b:C(x=1, y='z', f=True)") == ("a.b", "C", {"x": 1, "y": "z", "f": True})
    assert plugin_key("a.b:C(y=2, x=1.5)") == "a.b.C@x=1.5,y=2" and plugin_key("a.b:C") == "a.b.C"
    assert split_models("lambdamart,a:B(x=1, y=2),xendcg") == ["lambdamart", "a:B(x=1, y=2)", "xendcg"]
    for bad, why in [("a.b", "package.module:Name"), ("a:B(1)", "by keyword"), ("a:B(x=foo)", "literals"),
                     ("a:B(t=5)(t=1)", "one argument list"), ("a:B(**{})", "no \\*\\*mapping"),
                     ("a:B(t=1, t=2)", "given twice"), (["a:B"], "a spec is a string")]:
        with pytest.raises(PluginError, match=why):
            parse_spec(bad)


def test_a_plugin_is_checked_and_wrapped_like_a_builtin():
    system = load_plugin(SQ)
    assert system.name == SQ_KEY and system.label == "Squared(scale=0.5)" and "plug-in" in system.paper
    assert load_plugin("plugin_losses:make_squared").name == "plugin_losses.make_squared"     # annotated factory
    assert load_plugin("plugin_losses:marked_squared").name == "plugin_losses.marked_squared"  # marked factory
    for spec, why in [("no_such_module_xyz:Loss", "cannot import 'no_such_module_xyz'"),
                      ("plugin_losses:Missing", "has no 'Missing'"),
                      ("plugin_losses:NotAnObjective", "not an ltrrepro.objectives.Objective subclass"),
                      ("plugin_losses:unmarked_squared", "nothing was called"),
                      ("os:system(command='id')", "nothing was called"),
                      ("builtins:eval(source='1')", "nothing was called"),
                      ("plugin_losses:Squared(scales=2)", "raised TypeError")]:
        with pytest.raises(PluginError, match=why):
            load_plugin(spec)
    assert SQ_KEY not in SYSTEMS                       # plug-ins do not change the registry


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_a_plugin_trains_in_both_libraries_with_its_own_seeded_generator(library):
    from ltrrepro import make_synthetic
    ds = make_synthetic("web30k", n_queries=30, seed=4)
    parts = [ds.subset(np.arange(k, 30, 3)) for k in range(3)]

    def fit(seed):
        tr = load_plugin(SQ).trainer(Boosting(rounds=3, num_leaves=4, min_data_in_leaf=5, max_bin=15),
                                     library=library, seed=np.random.SeedSequence(seed))
        tr.add_train(parts[0])
        tr.add_valid(parts[1])
        return tr.fit().scores(parts[2].X)

    np.testing.assert_array_equal(fit(1), fit(1))
    assert not np.array_equal(fit(1), fit(2))


@pytest.mark.slow
@pytest.mark.parametrize("library", ["xgboost"])        # LightGBM's: the README's example (tests/docs/test_readme_example.py)
def test_quality_and_robustness_run_a_plugin_next_to_the_builtins(tmp_path, library):
    q = tmp_path / "q"
    assert quality.main(TINY + ["--library", library, "--models", f"lambdamart,xendcg,{SQ}", "--out", str(q)]) == 0
    t = pd.read_csv(q / "tables" / "table1.csv")
    assert "Squared(scale=0.5)" in set(t.model)
    claims = json.loads((q / "claims.json").read_text())["claims"]
    assert any(c["claim"] == "Squared(scale=0.5) > λMART on NDCG@5" for c in claims)
    man = json.loads((q / "manifest.json").read_text())["config"]
    assert man["plugins"] == [[SQ_KEY, SQ]] and "plugin_losses.py" in man["plugin_sources"][0]["source"]
    r = tmp_path / "r"
    assert robustness.main(TINY + ["--library", library, "--levels", "0,50", "--noise", "labels", "--models",
                                   f"lambdamart,xendcg,{SQ}", "--out", str(r)]) == 0
    assert (r / "tables" / "robustness.csv").exists()                   # the paper's pair, as always
    files = SQ_KEY.replace(".", "-")
    plug = pd.read_csv(r / "tables" / f"robustness_{files}.csv")
    assert "Squared(scale=0.5)" in plug.columns and (plug.trials == 2).all()
    assert (r / "figures" / f"fig3_labels_{files}.png").exists()
    claims = json.loads((r / "claims.json").read_text())["claims"]
    assert any(c["claim"].startswith("λMART degrades faster than Squared(scale=0.5)") for c in claims)


def test_a_plugin_that_cannot_load_is_one_line_before_any_work(tmp_path, capsys):
    assert quality.main(TINY + ["--models", "lambdamart,no_such_module_xyz:Loss", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "plug-in 'no_such_module_xyz:Loss': cannot import" in err[0]
    assert not (tmp_path / "o" / "units").exists()


@pytest.mark.slow
@pytest.mark.parametrize("spec,why", [("plugin_losses:NaNAfterFirst", "non-finite gradient"),
                                      ("plugin_losses:ShortOnBigLists", "gradients and")])
def test_a_plugin_that_breaks_on_the_data_fails_its_units_only(tmp_path, capsys, spec, why):
    out = tmp_path / "o"
    assert quality.main(TINY + ["--models", f"lambdamart,{spec}", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert why in err and f"({spec})" in err                          # names the plug-in where it is defined
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    assert {r["unit"]["model"] for r in recs} == {"lambdamart"} and len(recs) == 2   # the built-in finished
    assert len(list((out / "failures").glob("*.json"))) == 2


def test_the_baseline_must_run(tmp_path, capsys):
    assert quality.main(TINY + ["--models", f"xendcg,{SQ}", "--out", str(tmp_path / "o")]) == 2
    assert "--baseline lambdamart" in capsys.readouterr().err


def test_a_plugin_missing_where_the_units_run_fails_those_units_only(tmp_path):
    """A plug-in that imports where the run starts but not on a worker (a cluster node without
    the module): its units fail with the import message, the built-in's finish."""
    from experiments.bruch2021.protocol import BruchConfig, unit_fn
    from ltrrepro import make_synthetic
    from ltrrepro.runner import Unit, UnitContext, materialize, run_units
    from ltrrepro.store import ResultStore
    ds = make_synthetic("web30k", n_queries=40, seed=3)
    ref = materialize(ds, cache_dir=tmp_path / "cache")
    cfg = BruchConfig(experiment="quality", queries=40, preset="tiny", models=("lambdamart", SQ_KEY),
                      plugins=((SQ_KEY, SQ),))
    object.__setattr__(cfg, "plugins", ((SQ_KEY, "module_missing_on_worker:Squared(scale=0.5)"),))
    units = [Unit("quality", "d", t, m, (("noise", "none"),)) for t in range(2) for m in ("lambdamart", SQ_KEY)]
    store = ResultStore(tmp_path / "run", {"c": 1})
    s = run_units(units, unit_fn, UnitContext(cfg=cfg, data={"path": ref.path, "name": ref.name}), store, jobs=1,
                  quiet=True)
    assert sorted(s.failed) == sorted(u.key for u in units if u.model == SQ_KEY) and s.n_done == 2
    assert all("cannot import 'module_missing_on_worker'" in f["error"] for f in store.failures())
    assert {r["unit"]["model"] for r in store.records()} == {"lambdamart"}


@pytest.mark.slow
def test_a_manifest_naming_any_other_callable_is_refused_before_it_is_called(tmp_path, capsys, monkeypatch):
    """``--config`` reads plug-in specs from a file: they pass the same checks as ``--models``,
    before anything is called — ``os:system`` never runs, whatever the manifest says."""
    import os
    out = tmp_path / "o"
    assert quality.main(TINY + ["--models", f"lambdamart,{SQ}", "--out", str(out)]) == 0
    capsys.readouterr()
    man = json.loads((out / "manifest.json").read_text())
    man["config"]["plugins"] = [["os.system@command=id", "os:system(command='id')"]]
    man["config"]["models"] = ["lambdamart", "os.system@command=id"]
    (out / "manifest.json").write_text(json.dumps(man))
    calls = []
    monkeypatch.setattr(os, "system", lambda *a, **k: calls.append(a))
    code = quality.main(["--config", str(out / "manifest.json"), "--out", str(tmp_path / "again"), "--quiet"])
    assert code == 2 and not calls
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "nothing was called" in err[-1]
    assert not (tmp_path / "again" / "units").exists()


@pytest.mark.slow
@pytest.mark.parametrize("how,why", [("segfault", "killed by signal SIGSEGV"), ("exit", "exited with code 3"),
                                     ("sysexit", "called sys.exit(0)")])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_plugin_that_kills_its_process_fails_its_units_only(tmp_path, capsys, how, why, jobs):
    out = tmp_path / "o"
    spec = f"plugin_losses:CrashOnData(how='{how}')"
    argv = TINY + ["--models", f"lambdamart,{spec}", "--out", str(out)]
    argv[argv.index("--jobs") + 1] = jobs
    assert quality.main(argv) == 1
    err = capsys.readouterr().err
    assert why in err and "Traceback" not in err
    recs = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    assert {r["unit"]["model"] for r in recs} == {"lambdamart"} and len(recs) == 2   # the built-in finished
    fails = [json.loads(p.read_text()) for p in (out / "failures").glob("*.json")]
    assert len(fails) == 2 and all(why in f["error"] for f in fails)
    assert json.loads((out / "manifest.json").read_text())["status"] == "failed"


def test_a_plugin_drawing_from_global_random_state_is_refused(tmp_path, capsys):
    with pytest.raises(PluginError, match="two calls with the generator in the same state"):
        load_plugin("plugin_losses:GlobalRandom")
    assert quality.main(TINY + ["--models", "lambdamart,plugin_losses:GlobalRandom", "--out", str(tmp_path / "o")]) == 2
    assert "draw every random number from the rng argument" in capsys.readouterr().err


@pytest.mark.slow
def test_editing_a_plugins_source_recomputes_its_units(tmp_path, capsys, monkeypatch):
    import importlib
    import sys
    pkg = tmp_path / "src"
    pkg.mkdir()
    src = (ROOT / "tests" / "plugins" / "plugin_losses.py").read_text()
    (pkg / "edited_losses.py").write_text(src)
    monkeypatch.syspath_prepend(str(pkg))
    out = tmp_path / "o"
    argv = TINY + ["--models", "lambdamart,edited_losses:Squared(scale=0.5)", "--out", str(out)]
    assert quality.main(argv) == 0
    stamp = {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*.json")}
    assert quality.main(argv) == 0                                      # unchanged source: every unit resumed
    assert {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*.json")} == stamp
    (pkg / "edited_losses.py").write_text(src + "\n# a user's edit\n")
    load_plugin.cache_clear()
    sys.modules.pop("edited_losses", None)
    importlib.invalidate_caches()
    assert quality.main(argv) == 0
    after = {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*.json")}
    assert all(after[k] != v for k, v in stamp.items())                 # recomputed under the new source


@pytest.mark.slow
def test_a_plugin_as_the_baseline_is_never_compared_with_itself(tmp_path):
    out = tmp_path / "o"
    assert quality.main(TINY + ["--models", f"lambdamart,{SQ}", "--baseline", SQ_KEY, "--out", str(out)]) == 0
    claims = [c["claim"] for c in json.loads((out / "claims.json").read_text())["claims"]]
    assert not any(c.count("Squared(scale=0.5)") > 1 for c in claims), claims


@pytest.mark.slow
def test_editing_the_module_a_plugin_inherits_from_recomputes_its_units(tmp_path, monkeypatch):
    import importlib
    import sys
    pkg = tmp_path / "src"
    pkg.mkdir()
    (pkg / "base_losses.py").write_text((ROOT / "tests" / "plugins" / "plugin_losses.py").read_text())
    (pkg / "child_losses.py").write_text("from base_losses import Squared\n\n\nclass Child(Squared):\n"
                                         "    name = 'child'\n")
    monkeypatch.syspath_prepend(str(pkg))
    out = tmp_path / "o"
    argv = TINY + ["--models", "lambdamart,child_losses:Child(scale=0.5)", "--out", str(out)]
    assert quality.main(argv) == 0
    child = {p.name: p.stat().st_mtime_ns for p in (out / "units").glob("*child_losses*.json")}
    assert len(child) == 2
    (pkg / "base_losses.py").write_text((pkg / "base_losses.py").read_text() + "\n# the parent edited\n")
    load_plugin.cache_clear()
    for m in ("child_losses", "base_losses"):
        sys.modules.pop(m, None)
    importlib.invalidate_caches()
    assert quality.main(argv) == 0
    assert all((out / "units" / k).stat().st_mtime_ns != v for k, v in child.items())

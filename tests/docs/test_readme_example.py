"""The README's "Compare your own loss" runs as written: its objective file, its two commands
(in a fresh directory, as a user would), and its Python snippet."""
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _blocks():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Compare your own loss"):]
    section = section[:section.index("\n## ", 5)]
    code = re.search(r"<!-- readme-example: mylosses.py -->\n```python\n(.*?)```", section, re.S).group(1)
    commands = re.search(r"<!-- readme-example: commands -->\n```bash\n(.*?)```", section, re.S).group(1)
    snippet = re.findall(r"```python\n(import experiments\n.*?)```", section, re.S)[0]
    return code, [c for c in commands.splitlines() if c.strip()], snippet


@pytest.mark.slow
def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    code, commands, snippet = _blocks()
    (tmp_path / "mylosses.py").write_text(code)
    env = {**os.environ, "LTRREPRO_CACHE": str(tmp_path / "cache")}
    for line in commands:
        argv = shlex.split(line)
        assert argv[:2] == ["python", "-m"]
        r = subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=400)
        assert r.returncode == 0, (line, r.stderr[-3000:])
    table1 = (tmp_path / "runs/mine-table1/tables/table1.md").read_text()
    assert "SoftmaxXE(temperature=0.5)" in table1
    assert "SoftmaxXE(temperature=0.5) > λMART on NDCG@5" in (tmp_path / "runs/mine-table1/claims.md").read_text()
    # the plug-in as the manifest records it (this run is LightGBM's plug-in run: tests/lib/
    # test_fit_plugins.py runs the same two studies with a plug-in under XGBoost)
    man = json.loads((tmp_path / "runs/mine-table1/manifest.json").read_text())["config"]
    spec = "mylosses:SoftmaxXE(temperature=0.5)"
    assert man["plugins"] == [["mylosses.SoftmaxXE@temperature=0.5", spec]]
    assert "mylosses.py" in man["plugin_sources"][0]["source"]
    fig3 = tmp_path / "runs/mine-fig3"
    plug = pd.read_csv(fig3 / "tables/robustness_mylosses-SoftmaxXE@temperature=0-5.csv")
    assert "SoftmaxXE(temperature=0.5)" in plug.columns and (plug.trials == 3).all()
    assert (fig3 / "tables/robustness_mylosses-SoftmaxXE@temperature=0-5.md").exists()
    assert (fig3 / "figures/fig3_labels_mylosses-SoftmaxXE@temperature=0-5.png").exists()
    assert "λMART degrades faster than SoftmaxXE(temperature=0.5)" in (fig3 / "claims.md").read_text()
    # the Python snippet: same directory, same results (it resumes the command's run)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("LTRREPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "mylosses", raising=False)    # another test's copy: this one's file
    from ltrrepro.fit.plugins import load_plugin
    load_plugin.cache_clear()
    scope: dict = {}
    exec(compile(snippet, "README.md", "exec"), scope)
    res = scope["res"]
    assert res.exit_code == 0 and res.manifest["n_done"] == 0 and res.manifest["n_skipped"] == 27
    assert len(res.tables["robustness_mylosses-SoftmaxXE@temperature=0-5"]) == 4
    assert any("SoftmaxXE" in c["claim"] for c in res.claims) and res.figures


def test_the_python_api_raises_user_errors_and_reads_runs_back(tmp_path):

    import experiments
    from experiments.bruch2021.protocol_jensen_gap import JensenConfig
    from experiments.errors import UsageError
    from experiments.execution import Execution
    with pytest.raises(UsageError, match="at least 10 queries"):
        experiments.run("robustness", out=tmp_path / "o", queries=3)
    with pytest.raises(UsageError, match="unknown experiment 'table9'"):
        experiments.run("table9", out=tmp_path / "o")
    with pytest.raises(UsageError, match="out belong"):                 # execution is not configuration
        experiments.configure("quality", out=tmp_path / "o")
    res = experiments.run("jensen_gap", out=tmp_path / "j", trials=2, draws=20, docs=10, jobs=1)
    assert res.exit_code == 0 and "fig1_jensen_gap" in res.tables and len(res.claims) == 1
    again = experiments.load(tmp_path / "j")
    assert again.tables["fig1_jensen_gap"].equals(res.tables["fig1_jensen_gap"])
    # the same study from a configuration object: the same records, nothing recomputed
    cfg = JensenConfig(experiment="jensen_gap", trials=2, draws=20, docs=10)
    assert cfg == experiments.configure("jensen_gap", trials=2, draws=20, docs=10)
    res2 = experiments.run(cfg, Execution(out=str(tmp_path / "j"), quiet=True))
    assert res2.manifest["n_done"] == 0 and res2.manifest["n_skipped"] == 2

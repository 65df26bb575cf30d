"""Every command line of the corpus gives the configuration it
gave when the corpus was recorded — the same ``to_dict`` and the same hash, so stored runs keep
resuming — or is refused as it was (the message may improve; a refusal stays a refusal).

The corpus — each study's flags (each value a flag's choices allow, a sample value otherwise),
the README's and the docs' commands, the CLI tests' command lines — and what each gave was
recorded from the code of the day: ``python tests/experiments/test_config_corpus.py`` writes
``data/config_corpus.json`` (only when the configurations are meant to change)."""
from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("data") / "config_corpus.json"

#: a value for each flag that takes a free value (the others: their choices)
SAMPLES = {"--seed": ["7"], "--dataset": ["synthetic-yahoo", "synthetic-web10k", "web30k"], "--queries": ["50"],
           "--trials": ["2", "auto"], "--rounds": ["5"], "--every": ["2"], "--levels": ["0,50", "0.1,0.2"],
           "--baseline": ["xendcg", "ranknet"], "--tune": ["3"], "--noise": ["labels", "documents"],
           "--impressions": ["4"], "--eta": ["0.5", "2"], "--lists": ["3"], "--draws": ["20"], "--docs": ["7"],
           "--probs": [".4,.3,.2,.05,.05", "a,b"], "--max-pairs": ["500"], "--gbt-grid": ["0.1:10,0.2:20", "x"],
           "--leaves": ["10", "7,15", "1"], "--rates": ["0.1", "0.1,0.5", "2"], "--sessions": ["8"],
           "--share": ["0.5", "2"], "--k": ["5", "all", "1"], "--eps-plus": ["0.9"], "--eps-minus": ["0.05"],
           "--bias-p": ["1"], "--sweep-sessions": ["4", ""], "--sweep-eta": ["1", ""], "--sweep-share": ["0.5", ""],
           "--sweep-click": ["pbm", ""], "--sweep-models": ["naive", ""], "--max-trials": ["4"],
           "--models": ["", "nope", "a,a"], "--data-dir": ["/nonexistent"]}
#: extra command lines of a study (models, plug-ins, combinations)
EXTRA = {
    "quality": [["--models", "lambdamart,xendcg"], ["--models", "xendcg,tests.plugins.plugin_losses:Squared(scale=0.5)"],
                ["--baseline", "tests.plugins.plugin_losses:Squared(scale=0.5)", "--models", "lambdamart,tests.plugins.plugin_losses:Squared(scale=0.5)"],
                ["--tune", "2", "--tune-on", "per-trial"], ["--tune-on", "per-trial"], ["--dataset", "web30k", "--trials", "3"],
                ["--trials", "auto", "--max-trials", "6", "--looks", "2"], ["--looks", "3"]],
    "robustness": [["--noise", "labels", "--levels", "0,10"], ["--models", "lambdamart,lambdamart"]],
    "clicks": [["--click-model", "pbm", "--eta", "2"], ["--eta", "2"], ["--click-model", "pbm", "--eta", "-1"]],
    "qbrank": [["--models", "gbt,qbrank"], ["--models", "gbt,tests.plugins.plugin_losses:Squared(scale=0.5)"],
               ["--qbrank-params", "gbt-tuned"], ["--dataset", "yahoo", "--data-dir", "/nonexistent"]],
    "split_principles": [["--models", "lambdamart-se,tests.plugins.plugin_losses:Squared(scale=0.5)-se"],
                         ["--models", "lambdamart-se,tests.plugins.plugin_losses:Squared(scale=0.5)"], ["--rounds", "7"]],
    "debiasing": [["--models", "naive,tests.plugins.plugin_losses:Squared(scale=0.5)"], ["--models", "naive,naive"],
                  ["--models", "naive,skyline", "--sweep-models", "naive"]],
}


def _record(name: str, argv: list) -> dict:
    from experiments.cli import parse_command
    from experiments.errors import USER_ERRORS
    from ltrrepro.migrations import config_hash, hashed_config
    from ltrrepro.fit.plugins import PluginError

    try:
        cfg, _ = parse_command(name, list(argv))
    except SystemExit:
        return {"study": name, "argv": argv, "error": "argparse"}
    except (*USER_ERRORS, PluginError) as err:
        return {"study": name, "argv": argv, "error": str(err)}
    d = json.loads(json.dumps(cfg.to_dict(), default=str))
    d.pop("plugin_sources", None)          # a plug-in's source digest: its file, not the command line
    return {"study": name, "argv": argv, "config": d, "hash": config_hash(hashed_config(d))}


def study_lines() -> list:
    """Each study's flags, one at a time, with each of their values."""
    from experiments import registry
    from experiments.cli import EXECUTION, parser_for

    out = []
    for name, exp in sorted(registry.experiments().items()):
        if exp.paper in ("toy2026",):
            continue
        out.append((name, []))
        for action in parser_for(exp)._actions:
            flag = next((s for s in action.option_strings if s.startswith("--")), None)
            if flag is None or flag[2:] in (*EXECUTION, "help"):
                continue
            if action.nargs == 0:
                out.append((name, [flag]))
                continue
            values = [str(c) for c in action.choices] if action.choices else SAMPLES.get(flag, ["1"])
            out += [(name, [flag, v]) for v in values]
        out += [(name, argv) for argv in EXTRA.get(name, [])]
    return out


def doc_lines() -> list:
    """The commands of the README and docs (``python -m experiments.NAME ...`` or ``python -m
    experiments NAME ...``), brackets of optional parts dropped."""
    from experiments import registry

    known = set(registry.experiments())
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for line in path.read_text().splitlines():
            m = re.search(r"python -m experiments(?:\.| )(\w+)((?: [^`|#]*)?)", line)
            if not m or m.group(1) not in known:
                continue
            try:
                argv = shlex.split(m.group(2).replace("[", " ").replace("]", " ").replace("\\", " "))
            except ValueError:
                continue
            if not any(a in ("...", "…", "|") or "|" in a for a in argv):
                out.append((m.group(1), argv))
    return out


def cli_test_lines() -> list:
    """The command lines of tests/experiments/test_cli.py and test_config.py given as lists."""
    from experiments import registry

    known = set(registry.experiments())
    out = []
    for f in ("test_cli.py", "test_config.py"):
        text = (ROOT / "tests" / "experiments" / f).read_text()
        for m in re.finditer(r'parse_command\("(\w+)", (\[[^\]]*\])', text):
            if m.group(1) in known:
                try:
                    argv = eval(m.group(2), {})          # noqa: S307 - literal lists of the repository's own tests
                except Exception:                      # noqa: BLE001 - a list built from names: skipped
                    continue
                out.append((m.group(1), [str(a) for a in argv]))
    return out


def corpus() -> list:
    seen, out = set(), []
    for name, argv in [*study_lines(), *doc_lines(), *cli_test_lines()]:
        key = (name, tuple(argv))
        if key not in seen:
            seen.add(key)
            out.append((name, argv))
    return out


RECORDED = json.loads(OUT.read_text()) if OUT.exists() else []


def test_the_corpus_covers_every_study_and_the_docs():
    studies = {r["study"] for r in RECORDED}
    assert {"quality", "convergence", "robustness", "clicks", "jensen_gap", "qbrank", "split_principles",
            "debiasing"} <= studies
    assert len(RECORDED) > 250


def _outside_plugin(argv) -> bool:
    """A command line naming a plug-in module that is not the repository's (the docs' example
    ``mylosses``): whether it imports depends on what other tests of the worker put on the path."""
    return any(re.search(r"(?<![\w.])(?!tests\.)[A-Za-z_][\w.]*:[A-Za-z_]\w*\(", a) for a in argv)


def test_an_outside_plugin_is_told_apart():
    assert _outside_plugin(["--models", "lambdamart,mylosses:SoftmaxXE(temperature=0.5)"])
    assert not _outside_plugin(["--models", "xendcg,tests.plugins.plugin_losses:Squared(scale=0.5)"])
    assert not _outside_plugin(["--models", "lambdamart,xendcg"])


@pytest.mark.parametrize("study", sorted({r["study"] for r in RECORDED}))
def test_every_command_line_gives_the_recorded_configuration(study):
    wrong = []
    for rec in (r for r in RECORDED if r["study"] == study and not _outside_plugin(r["argv"])):
        now = _record(study, rec["argv"])
        if "error" in rec:
            if "error" not in now:
                wrong.append((rec["argv"], "was refused", now.get("config")))
        elif now.get("config") != rec["config"] or now.get("hash") != rec["hash"]:
            wrong.append((rec["argv"], rec["config"], now.get("config") or now.get("error")))
    assert wrong == []


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    records = [_record(n, a) for n, a in corpus()]
    OUT.write_text(json.dumps(records, indent=0, sort_keys=True) + "\n")
    print(len(records), "command lines,", sum("error" in r for r in records), "refused")

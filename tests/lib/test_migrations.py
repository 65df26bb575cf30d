"""Stored runs across versions (ltrrepro.migrations): every manifest and record the store writes
carries the schema; an older one is brought to it step by step on read; the committed runs,
written before the schema existed, resume with nothing recomputed."""
import json
from pathlib import Path

import pytest

from ltrrepro import migrations
from ltrrepro.store import ResultStore, config_hash

ROOT = Path(__file__).resolve().parents[2]


def test_what_the_store_writes_carries_the_schema(tmp_path):
    store = ResultStore(tmp_path, {"type": "X", "seed": 0})
    store.start("x", argv=[])
    store.write("u1", {"unit": {"model": "lambdamart"}, "means": {}})
    assert json.loads((tmp_path / "manifest.json").read_text())["schema"] == migrations.SCHEMA
    assert json.loads((tmp_path / "units" / "u1.json").read_text())["schema"] == migrations.SCHEMA
    assert len(migrations.MANIFEST_STEPS) == len(migrations.RECORD_STEPS) == migrations.SCHEMA


def test_a_schema_0_record_gains_what_readers_now_expect():
    old = {"unit": {"model": "lambdamart"}, "info": {"eta": 0.05, "leaves": 20}, "means": {}}
    new = migrations.record(old)
    assert new["schema"] == migrations.SCHEMA and new["system"] == {"family": "lambdamart", "variant": "builtin"}
    assert new["info"]["shared_params"] == {"eta": 0.05, "leaves": 20}
    assert "system" not in old                                           # read in memory, the input untouched
    plugin = migrations.record({"unit": {"model": "mylosses.Focal"}})     # a model no registry knows: as it is
    assert "system" not in plugin
    newer = {"schema": migrations.SCHEMA + 1, "unit": {"model": "x"}}     # a newer harness wrote it: read as it is
    assert migrations.record(newer) == newer


def test_a_renamed_configuration_field_resumes_its_records(tmp_path):
    """Zheng's qbrank_params became shared_params: a store whose manifest and records were written
    under the old name is this configuration's (its records re-stamped), and --config reads it."""
    from experiments.config import load_manifest_config

    old = {"type": "ZhengConfig", "seed": 0, "qbrank_params": "gbt-tuned", "deviations": ["few trials"]}
    new = {"type": "ZhengConfig", "seed": 0, "shared_params": "tuned", "deviations": ["few trials"]}
    ResultStore(tmp_path, old).write("u1", {"unit": {"model": "gbt_L2"}, "means": {}})
    h = config_hash({k: v for k, v in old.items() if k != "deviations"})
    (tmp_path / "manifest.json").write_text(json.dumps({"config": old, "config_hash": h}))
    assert migrations.manifest(json.loads((tmp_path / "manifest.json").read_text()))["config"]["shared_params"] == \
        "tuned"
    assert load_manifest_config(tmp_path)["shared_params"] == "tuned"
    assert ResultStore(tmp_path, new).is_done("u1")
    assert not ResultStore(tmp_path, {**new, "shared_params": "paper"}).is_done("u1")


def test_a_schema_1_manifest_records_the_command_as_typed_and_no_user():
    """Schema 1 stored sys.argv (the script's absolute path first, --out as typed, absolute or
    not) and the user's name; schema 2 the command in module form and no machine path."""
    old = {"schema": 1, "argv": ["/work/wt/h40/experiments/quality.py", "--tune", "20", "--out", "/tmp/h40/run"],
           "machine": {"host": "vm", "platform": "Linux", "cpus": 2, "user": "root"},
           "history": [{"argv": ["/work/main/experiments/__main__.py", "clicks", "--out", "results/bruch2021/clicks"]},
                       {"argv": None}]}
    new = migrations.manifest(old)
    assert new["schema"] == migrations.SCHEMA
    assert new["argv"] == ["python", "-m", "experiments.quality", "--tune", "20", "--out", "…/run"]
    assert new["history"][0]["argv"] == ["python", "-m", "experiments", "clicks", "--out", "results/bruch2021/clicks"]
    assert new["history"][1]["argv"] is None and new["machine"] == {"host": "vm", "platform": "Linux", "cpus": 2}
    assert old["argv"][0].startswith("/") and old["machine"]["user"] == "root"       # the input untouched
    typed = ["python", "-m", "experiments.quality", "--out", "runs/q", "--data-dir", "/data/web30k"]
    assert migrations.typed_command(typed) == [*typed[:-1], "…/web30k"]     # a schema-1 command in module form
    assert migrations.manifest(new) == new                                  # once at the schema: as it is


@pytest.mark.slow
def test_a_run_without_a_schema_resumes_with_nothing_recomputed(tmp_path):
    """A run written before the schema — its manifest and unit records without ``schema``, the
    records without ``system``, as results/zheng2007's records are — re-runs with --config and
    every unit resumes, its manifest then at the current schema. Built here from a small run:
    the committed run's stored data hash names the synthetic Yahoo data as materialized when it
    was made (2026-11-24); the same seed materializes other bytes since (already at 5f75fff,
    under one BLAS thread or two), so on a machine without a cached copy its units cannot be
    current, whatever their schema."""
    from experiments.qbrank import main

    src = ROOT / "results" / "zheng2007"
    assert all("schema" not in json.loads(p.read_text()) for p in (src / "units").glob("*.json"))
    d = tmp_path / "zheng"
    assert main(["--queries", "60", "--trials", "1", "--rounds", "3", "--out", str(d), "--quiet", "--jobs", "1",
                 "--threads", "1"]) == 0
    units = sorted((d / "units").glob("*.json"))
    for p in units:                                                   # as a record written before the schema
        rec = json.loads(p.read_text())
        p.write_text(json.dumps({k: v for k, v in rec.items() if k not in ("schema", "system")}))
    man = json.loads((d / "manifest.json").read_text())
    (d / "manifest.json").write_text(json.dumps({k: v for k, v in man.items() if k != "schema"}))
    assert main(["--config", str(d / "manifest.json"), "--out", str(d), "--quiet", "--jobs", "1", "--threads", "1"]) == 0
    man = json.loads((d / "manifest.json").read_text())
    assert man["n_done"] == 0 and man["n_skipped"] == len(units) > 0
    assert man["schema"] == migrations.SCHEMA

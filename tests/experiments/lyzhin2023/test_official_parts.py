"""The tricks study on the datasets' official parts (--split, Lyzhin et al. §4.1 "Datasets"): a
fold layout's units train, early-stop and test on Fold 1's files; full Istella, which has no
validation file, gets one drawn from its official training queries with the run's seed (recorded
in each unit, said at the start of the run and in the notes); a sample-only Istella directory
named as ``istella`` is one ``error:`` line; synthetic data keeps its random splits and its hash."""
import dataclasses
import json

import numpy as np
import pytest

from experiments import registry, tricks
from experiments.cli import parse_command
from experiments.errors import UsageError
from experiments.lyzhin2023.protocol import DRAWN_VALID, TricksConfig, unit_parts
from ltrrepro.runner import UnitContext
from ltrrepro.svmlight import write_svmlight
from ltrrepro.synthetic import make_synthetic

TINY = dict(experiment="tricks", trials=2, preset="tiny", rounds=2, families=("xgb_rank_ndcg",), targets=("ndcg",),
            ablations=())


def _write(root, files: dict, n_queries: int, seed: int = 0) -> dict:
    """Each file of ``files`` (relative path -> (first, last) query) written from one synthetic dataset with
    distinct query ids; returns each file's query ids."""
    ds = make_synthetic("web30k", n_queries=n_queries, seed=seed)
    out = {}
    for rel, (lo, hi) in files.items():
        part = ds.subset(range(lo, hi))
        write_svmlight(part, root / rel)
        out[rel] = part.query_ids
    return out


def istella(root, seed: int = 0) -> dict:
    """Full Istella's layout: ``full/train.txt`` (40 queries) and ``full/test.txt`` (20), no validation file."""
    return _write(root, {"full/train.txt": (0, 40), "full/test.txt": (40, 60)}, 60, seed)


def _parts(cfg, unit_index=0, parts=("train", "valid", "test")):
    units = registry.get("tricks").units(cfg)
    return unit_parts(units[unit_index], UnitContext(cfg=cfg, threads=1), parts)


def _cfg(root, **kw):
    return TricksConfig(**{**TINY, "dataset": "istella", "data_dir": str(root), "split": "official", **kw})


def test_istellas_validation_part_is_drawn_from_its_official_training_queries(tmp_path):
    files = istella(tmp_path)
    cfg = _cfg(tmp_path)
    parts, drawn = _parts(cfg)
    train, valid, test = (set(parts[p].query_ids.tolist()) for p in ("train", "valid", "test"))
    official_train = set(files["full/train.txt"].tolist())
    assert valid and valid < official_train and not valid & train and not valid & test
    assert train | valid == official_train                     # every training query is in one part or the other
    np.testing.assert_array_equal(parts["test"].query_ids, files["full/test.txt"])   # the test file, exactly
    assert len(valid) == round(DRAWN_VALID * 40) == drawn["valid_drawn"]["n_queries"]
    assert drawn["valid_drawn"]["seed"] == cfg.seed and drawn["valid_drawn"]["of_train_queries"] == 40
    # one fixed split: trial 1's parts are trial 0's (the trials differ in the model seed only)
    units = registry.get("tricks").units(cfg)
    assert [u.trial for u in units] == [0, 1]
    other, _ = _parts(cfg, 1)
    for p in ("train", "valid", "test"):
        np.testing.assert_array_equal(other[p].query_ids, parts[p].query_ids)
    # a search's parts never read the test part, and are the unit's
    search, _ = _parts(cfg, 0, ("train", "valid"))
    assert set(search) == {"train", "valid"}
    np.testing.assert_array_equal(search["valid"].query_ids, parts["valid"].query_ids)


def test_the_same_seed_draws_the_same_validation_part_and_another_seed_another(tmp_path):
    istella(tmp_path)
    valid = {s: _parts(_cfg(tmp_path, seed=s))[0]["valid"].query_ids for s in (0, 0, 1)}
    again = _parts(_cfg(tmp_path, seed=0))[0]["valid"].query_ids
    np.testing.assert_array_equal(valid[0], again)
    assert not np.array_equal(valid[0], valid[1])


def test_a_fold_layout_uses_fold_1s_official_parts(tmp_path):
    files = _write(tmp_path / "MSLR-WEB30K", {"Fold1/train.txt": (0, 30), "Fold1/vali.txt": (30, 40),
                                              "Fold1/test.txt": (40, 50), "Fold2/train.txt": (10, 40),
                                              "Fold2/vali.txt": (40, 50), "Fold2/test.txt": (0, 10)}, 50)
    cfg = TricksConfig(**{**TINY, "dataset": "web30k", "data_dir": str(tmp_path), "split": "official"})
    parts, drawn = _parts(cfg)
    assert drawn == {}
    for p, rel in (("train", "Fold1/train.txt"), ("valid", "Fold1/vali.txt"), ("test", "Fold1/test.txt")):
        np.testing.assert_array_equal(parts[p].query_ids, files[rel])
    # --split random: trial 0's 60/20/20 split of the pooled 50 queries instead
    rnd = dataclasses.replace(cfg, split="random")
    from experiments.study import prepare_data
    info = prepare_data(rnd, tmp_path / "out")
    rparts, _ = unit_parts(registry.get("tricks").units(rnd)[0], UnitContext(cfg=rnd, data=info.ref))
    assert [rparts[p].n_queries for p in ("train", "valid", "test")] == [30, 10, 10]
    assert not np.array_equal(rparts["test"].query_ids, files["Fold1/test.txt"])


def test_the_split_defaults_to_official_on_a_registered_dataset_and_random_on_synthetic_data(tmp_path):
    cfg, _ = parse_command("tricks", ["--dataset", "istella", "--data-dir", str(tmp_path)])
    assert cfg.split == "official" and cfg.drawn_valid and cfg.to_dict()["split"] == "official"
    cfg, _ = parse_command("tricks", ["--dataset", "istella-s", "--data-dir", str(tmp_path)])
    assert cfg.split == "official" and not cfg.drawn_valid
    cfg, _ = parse_command("tricks", ["--dataset", "web30k", "--data-dir", str(tmp_path), "--split", "random"])
    assert cfg.split == "random" and "split" not in cfg.to_dict()      # the hash of the runs stored before the flag
    cfg, _ = parse_command("tricks", [])
    assert cfg.split == "random" and "split" not in cfg.to_dict()
    with pytest.raises(UsageError, match="--split official.*no official parts"):
        parse_command("tricks", ["--split", "official"])
    with pytest.raises(UsageError, match="--split official"):
        parse_command("tricks", ["--dataset", "svmlight", "--data-dir", str(tmp_path), "--split", "official"])


def test_a_sample_only_istella_directory_is_one_error_line(tmp_path, capsys):
    _write(tmp_path, {"sample/train.txt": (0, 20), "sample/vali.txt": (20, 30), "sample/test.txt": (30, 40)}, 40)
    assert tricks.main(["--dataset", "istella", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o"),
                        "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "full/train.txt" in lines[0] and "full/test.txt" in lines[0] and "--dataset istella-s" in lines[0]
    assert not (tmp_path / "o" / "units").exists()


@pytest.mark.slow
def test_istella_end_to_end_says_its_drawn_validation_part(tmp_path, capsys):
    istella(tmp_path / "data")
    out = tmp_path / "run"
    assert tricks.main(["--dataset", "istella", "--data-dir", str(tmp_path / "data"), "--trials", "1",
                        "--families", "lgb_lambdarank,xgb_rank_ndcg", "--targets", "ndcg", "--ablations", "",
                        "--preset", "tiny", "--rounds", "3", "--threads", "1", "--jobs", "1", "--quiet",
                        "--out", str(out)]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "no official validation part" in line]
    assert len(said) == 1 and "20%" in said[0] and "seed 0" in said[0]
    man = json.loads((out / "manifest.json").read_text())
    assert man["config"]["split"] == "official"
    assert any("Istella has no validation part of its own: 20% of its official training queries" in c
               for c in man["config"]["choices"])
    assert "random 60/20/20" not in " ".join(man["config"]["deviations"])
    records = [json.loads(p.read_text()) for p in (out / "units").glob("*.json")]
    assert len(records) == 2 and all(r["valid_drawn"]["n_queries"] == 8 for r in records)
    assert "Istella has no validation part of its own" in (out / "notes.md").read_text()

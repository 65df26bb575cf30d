"""Datasets by name (ltrrepro.datasets): official layouts, the missing-dataset error, the MQ2008 sample."""
import numpy as np
import pytest

from ltrrepro.data import RankingDataset
from ltrrepro.datasets import DatasetNotFoundError, load_dataset, load_fold
from ltrrepro.svmlight import write_svmlight
from ltrrepro.synthetic import make_synthetic


def test_missing_dataset_error_lists_paths_and_source(tmp_path):
    with pytest.raises(DatasetNotFoundError) as exc:
        load_dataset("web30k", data_dir=tmp_path)
    msg = str(exc.value)
    assert str(tmp_path / "Fold1" / "train.txt") in msg and "vali.txt" in msg
    assert "microsoft.com/en-us/research/project/mslr" in msg
    with pytest.raises(DatasetNotFoundError, match="(?s)set1.train.txt.*webscope"):
        load_dataset("yahoo", data_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match="LTRREPRO_DATA_DIR"):
        load_dataset("mq2008")


def test_registry_reads_official_layouts(tmp_path, monkeypatch):
    ds = make_synthetic("web30k", n_queries=30, seed=0)
    root = tmp_path / "MQ2008"
    parts = {"train": ds.subset(range(0, 18)), "vali": ds.subset(range(18, 24)), "test": ds.subset(range(24, 30))}
    for name, part in parts.items():
        sub = RankingDataset(X=part.X[:, :46], y=np.minimum(part.y, 2), qid=part.qid)
        write_svmlight(sub, root / "Fold1" / (f"{name}.txt.gz" if name == "test" else f"{name}.txt"))
    monkeypatch.setenv("LTRREPRO_DATA_DIR", str(tmp_path))      # the parent of MQ2008/
    pooled = load_dataset("mq2008")
    assert pooled.n_queries == 30 and pooled.n_features == 46
    np.testing.assert_array_equal(pooled.qid, ds.qid)
    folds = load_fold("mq2008", fold=1)
    assert folds["valid"].n_queries == 6 and folds["test"].n_queries == 6


def test_mq2008_sample_as_explicit_svmlight(mq2008_dir):
    ds = load_dataset("svmlight", paths=[mq2008_dir / "vali.txt", mq2008_dir / "test.txt"])
    assert (ds.n_queries, ds.n_docs, ds.n_features) == (50, 705, 46)


def test_mq2008_official_layout_from_the_real_sample(tmp_path, mq2008_dir, monkeypatch):
    """The registry reads the LETOR fold layout with compressed members: the real sample placed
    as ``MQ2008/Fold1/{train.txt.gz, vali.txt.bz2, test.txt}``."""
    import shutil
    fold = tmp_path / "MQ2008" / "Fold1"
    fold.mkdir(parents=True)
    shutil.copy(mq2008_dir / "vali.txt.gz", fold / "train.txt.gz")
    shutil.copy(mq2008_dir / "vali.txt.bz2", fold / "vali.txt.bz2")
    shutil.copy(mq2008_dir / "test.txt", fold / "test.txt")
    parts = load_fold("mq2008", fold=1, data_dir=tmp_path)
    assert {k: v.n_queries for k, v in parts.items()} == {"train": 25, "valid": 25, "test": 25}
    np.testing.assert_array_equal(parts["train"].X, parts["valid"].X)


def _istella_files(root, layout):
    """Three small synthetic parts written under ``root`` as ``layout`` (part -> relative path)."""
    ds = make_synthetic("web30k", n_queries=30, seed=0)
    spans = {"train": range(0, 18), "valid": range(18, 24), "test": range(24, 30)}
    for part, rel in layout.items():
        write_svmlight(ds.subset(spans[part]), root / rel)
    return ds


def test_full_istella_has_train_and_test_only_and_the_sample_its_own_name(tmp_path):
    from ltrrepro.datasets import REGISTRY

    assert REGISTRY["istella"].parts == ("train", "test") and REGISTRY["istella"].n_features == 220
    assert REGISTRY["istella-s"].parts == ("train", "valid", "test")
    ds = _istella_files(tmp_path / "istella", {"train": "full/train.txt", "test": "full/test.txt"})
    parts = load_fold("istella", data_dir=tmp_path)              # the parent of istella/
    assert set(parts) == {"train", "test"} and parts["train"].n_queries == 18 and parts["test"].n_queries == 6
    with pytest.raises(ValueError, match="no part"):
        load_fold("istella", data_dir=tmp_path, parts=("valid",))
    pooled = load_dataset("istella", data_dir=tmp_path)          # train + test: the queries a random split draws from
    assert pooled.n_queries == 24 and pooled.n_features == 220
    np.testing.assert_array_equal(np.unique(pooled.qid), np.unique(ds.subset([*range(18), *range(24, 30)]).qid))
    with pytest.raises(DatasetNotFoundError, match="(?s)sample/train.txt.*istella.ai"):
        load_dataset("istella-s", data_dir=tmp_path)


def test_the_sample_named_as_full_istella_is_one_line_naming_the_files_and_istella_s(tmp_path):
    _istella_files(tmp_path, {"train": "sample/train.txt", "valid": "sample/vali.txt", "test": "sample/test.txt"})
    assert load_fold("istella-s", data_dir=tmp_path)["valid"].n_queries == 6
    assert load_dataset("istella-s", data_dir=tmp_path).n_queries == 30
    with pytest.raises(DatasetNotFoundError) as exc:
        load_fold("istella", data_dir=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and "--dataset istella-s" in msg
    assert str(tmp_path / "full" / "train.txt") in msg and str(tmp_path / "full" / "test.txt") in msg
    # without the sample there: the usual error, the expected layout and where it is published
    with pytest.raises(DatasetNotFoundError, match="(?s)full/train.txt.*full/test.txt.*istella.ai") as exc:
        load_fold("istella", data_dir=tmp_path / "nothing")
    assert "istella-s" not in str(exc.value)

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

import numpy as np
import pytest

from ltrrepro.data import RankingDataset
from ltrrepro.datasets import DatasetNotFoundError, load_dataset, load_fold
from ltrrepro.svmlight import write_svmlight
from ltrrepro.splits import random_query_split, trial_split
from ltrrepro.synthetic import PROFILES, make_synthetic


def test_splits_reproducible_disjoint_and_independent_of_trial_count():
    a = trial_split(1000, seed=7, trial=3)
    b = trial_split(1000, seed=7, trial=3)
    c = trial_split(1000, seed=7, trial=4)
    for part in ("train", "valid", "test"):
        np.testing.assert_array_equal(a.parts()[part], b.parts()[part])
    assert not np.array_equal(a.train, c.train)
    allq = np.concatenate([a.train, a.valid, a.test])
    assert np.unique(allq).size == allq.size == 1000
    assert (a.train.size, a.valid.size, a.test.size) == (600, 200, 200)
    s = random_query_split(10, np.random.default_rng(0), fractions=(0.5, 0.3, 0.2))
    assert (s.train.size, s.valid.size, s.test.size) == (5, 3, 2)
    with pytest.raises(ValueError):
        random_query_split(10, np.random.default_rng(0), fractions=(0.5, 0.6, 0.2))


@pytest.mark.parametrize("profile", ["web30k", "yahoo"])
def test_synthetic_statistics_match_targets(profile):
    p = PROFILES[profile]
    ds = make_synthetic(profile, n_queries=3000, seed=11)
    assert ds.n_features == p.n_features and ds.n_queries == 3000
    shares = ds.label_counts()[:5] / ds.n_docs
    target = np.asarray(p.label_shares) / sum(p.label_shares)
    np.testing.assert_allclose(shares, target, atol=0.01)                 # label shares within 1 point
    assert abs(ds.query_sizes.mean() - p.mean_docs) / p.mean_docs < 0.05  # docs/query within 5%
    assert ds.query_sizes.max() > 4 * p.mean_docs                          # a long tail
    assert ds.query_sizes.max() <= p.max_docs
    norel = ds.queries_without_relevant().mean()
    assert abs(norel - p.norel_share) < 0.01
    # single-grade queries with a grade >= 1 exist (Zheng's L1)
    qmax = np.maximum.reduceat(ds.y, ds.offsets[:-1])
    qmin = np.minimum.reduceat(ds.y, ds.offsets[:-1])
    single = (qmax == qmin) & (qmax >= 1) & (ds.query_sizes > 1)
    assert single.mean() > 0.01
    # heterogeneous, heavy-tailed scales and query-constant features
    spread = np.percentile(np.abs(ds.X), 99, axis=0)
    assert spread.max() / max(spread[spread > 0].min(), 1e-12) > 1e4
    const = [(np.ptp(ds.X[a:b], axis=0) == 0) for a, b in zip(ds.offsets[:-1], ds.offsets[1:]) if b - a > 1]
    assert np.mean(const, axis=0).max() == 1.0 and np.mean(const, axis=0).min() < 0.01


def test_synthetic_is_seeded():
    a = make_synthetic("yahoo", n_queries=200, seed=3)
    b = make_synthetic("yahoo", n_queries=200, seed=3)
    c = make_synthetic("yahoo", n_queries=200, seed=4)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.y, c.y)


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

"""A user's own data: SVMlight/LETOR files in a directory or one file, LightGBM's layout (no
qid, group sizes in a .query/.group sidecar), a pandas DataFrame — all load identically and
run through the experiments that make random splits."""
import json
import re

import numpy as np
import pandas as pd
import pytest

from experiments import qbrank, quality, robustness, split_principles
from ltrrepro import make_synthetic
from ltrrepro.data import QueryOrderError, RankingDataset
from ltrrepro.datasets import load_dataset, user_files
from ltrrepro.svmlight import SVMLightFormatError, read_svmlight, write_svmlight

TINY = ["--trials", "2", "--preset", "tiny", "--jobs", "1", "--threads", "1", "--quiet"]


@pytest.fixture(scope="module")
def data():
    return make_synthetic("web30k", n_queries=60, seed=8)


def _lightgbm_layout(ds, path, sidecar=".query"):
    """LightGBM's examples: no qid:, the query sizes one per line in FILE.query."""
    write_svmlight(ds, path.with_name("tmp.txt"), comment_docid=False)
    lines = path.with_name("tmp.txt").read_text().splitlines()
    path.write_text("\n".join(" ".join(t for t in ln.split() if not t.startswith("qid:")) for ln in lines) + "\n")
    path.with_name(path.name + sidecar).write_text("\n".join(map(str, ds.query_sizes)) + "\n")
    path.with_name("tmp.txt").unlink()


@pytest.mark.parametrize("sidecar", [".query", ".group"])
def test_lightgbm_layout_reads_like_letor(tmp_path, data, sidecar):
    letor = tmp_path / "letor.txt"
    write_svmlight(data, letor, comment_docid=False)
    lgb_file = tmp_path / "train.txt"
    _lightgbm_layout(data, lgb_file, sidecar)
    a = read_svmlight(letor, use_cache=False)
    b = read_svmlight(lgb_file, cache_dir=tmp_path / "cache")
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    assert b.query_ids.tolist() == list(range(data.n_queries))            # numbered in file order
    again = read_svmlight(lgb_file, cache_dir=tmp_path / "cache")            # cached with its sidecar
    assert "cache" in again.meta and np.array_equal(again.offsets, a.offsets)


def test_a_sidecar_that_does_not_fit_is_named(tmp_path, data):
    f = tmp_path / "train.txt"
    _lightgbm_layout(data, f)
    f.with_name("train.txt.query").write_text("3\n4\n")
    with pytest.raises(SVMLightFormatError, match=r"train\.txt\.query: the query sizes add up to 7"):
        read_svmlight(f, use_cache=False)
    f.with_name("train.txt.query").write_text("3\nx\n")
    with pytest.raises(SVMLightFormatError, match=r"train\.txt\.query, line 2: a query size"):
        read_svmlight(f, use_cache=False)
    f.with_name("train.txt.query").unlink()
    with pytest.raises(SVMLightFormatError, match=r"line 1: missing 'qid.*FILE\.query"):
        read_svmlight(f, use_cache=False)


def test_qids_beside_a_sidecar_must_agree_with_it(tmp_path, data):
    f = tmp_path / "train.txt"
    write_svmlight(data, f, comment_docid=False)                  # qid: on every line
    f.with_name("train.txt.query").write_text("\n".join(map(str, data.query_sizes)) + "\n")
    np.testing.assert_array_equal(read_svmlight(f, use_cache=False).qid, data.qid)      # agreeing: kept
    sizes = data.query_sizes.copy()
    sizes[0] -= 1
    sizes[1] += 1                                                # same total, other boundaries
    f.with_name("train.txt.query").write_text("\n".join(map(str, sizes)) + "\n")
    with pytest.raises(SVMLightFormatError, match="do not match the query sizes"):
        read_svmlight(f, use_cache=False)


def test_a_dataframe_loads_like_the_file(tmp_path, data):
    letor = tmp_path / "letor.txt"
    write_svmlight(data, letor)
    a = read_svmlight(letor, use_cache=False)
    df = pd.DataFrame(np.asarray(a.X), columns=[f"f{i}" for i in range(a.n_features)])
    df.insert(0, "query", a.qid)
    df.insert(1, "grade", a.y)
    b = RankingDataset.from_frame(df, qid="query", label="grade")
    for x, y in ((a.X, b.X), (a.y, b.y), (a.qid, b.qid), (a.offsets, b.offsets)):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(QueryOrderError):
        RankingDataset.from_frame(df.iloc[::-1].reset_index(drop=True).iloc[np.r_[0:5, 200:205, 5:10]],
                                  qid="query", label="grade")
    with pytest.raises(KeyError, match="no column 'qid'"):
        RankingDataset.from_frame(df)


def test_user_files_in_a_directory_and_one_file(tmp_path, data):
    d = tmp_path / "mine"
    d.mkdir()
    q = np.arange(data.n_queries)
    write_svmlight(data.subset(q[:36]), d / "train.txt")
    write_svmlight(data.subset(q[36:48]), d / "vali.txt.gz")
    write_svmlight(data.subset(q[48:]), d / "test.txt")
    assert [p.name for p in user_files(d)] == ["train.txt", "vali.txt.gz", "test.txt"]
    pooled = load_dataset("svmlight", data_dir=d, cache_dir=tmp_path / "c")
    assert pooled.n_queries == data.n_queries and pooled.n_docs == data.n_docs
    single = load_dataset(str(d / "train.txt"), cache_dir=tmp_path / "c")
    assert single.n_queries == 36


@pytest.mark.slow
def test_svmlight_directory_runs_end_to_end(tmp_path, data):
    d = tmp_path / "mine"
    d.mkdir()
    _lightgbm_layout(data, d / "train.txt")                  # one file, LightGBM's layout
    out = tmp_path / "o"
    assert robustness.main(TINY + ["--dataset", "svmlight", "--data-dir", str(d), "--levels", "0,50", "--noise",
                                   "labels", "--models", "lambdamart,xendcg,plugin_losses:Squared(scale=0.5)",
                                   "--out", str(out)]) == 0
    devs = json.loads((out / "claims.json").read_text())["deviations"]
    assert any(f"dataset {d}, not the paper's" in x for x in devs)
    t = pd.read_csv(out / "tables" / "robustness.csv")
    assert (t.trials == 2).all()
    q = tmp_path / "q"
    assert quality.main(TINY + ["--dataset", str(d / "train.txt"), "--models", "lambdamart,xendcg",
                                "--out", str(q)]) == 0
    assert next((q / "units").glob("*.json")).name.startswith("user-train__")
    x = tmp_path / "x"                                       # the fold-based study: random splits, said so
    assert split_principles.main(TINY[:2] + ["--dataset", str(d / "train.txt"), "--rounds", "2", "--leaves", "4",
                                             "--rates", "0.1", "--models", "lambdamart-ole", "--quiet",
                                             "--out", str(x)]) == 0
    assert any("random 60/20/20 query splits" in s for s in json.loads((x / "claims.json").read_text())["deviations"])


def test_a_user_dataset_error_is_one_line(tmp_path, capsys):
    assert quality.main(["--dataset", "svmlight", "--out", str(tmp_path / "o")]) == 2
    assert "give --data-dir" in capsys.readouterr().err
    assert qbrank.main(["--dataset", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "o")]) == 2
    assert "neither a known dataset" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert quality.main(["--dataset", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "expected train/vali/test files" in capsys.readouterr().err


def _parts(data, d, layout):
    """train/vali/test of ``data`` (36/12/12 queries) in ``d``, each numbering its queries from 0
    (LightGBM's layout) or from 1 with ``qid:`` (ids reused across parts)."""
    d.mkdir()
    q = np.arange(data.n_queries)
    for part, sel in (("train", q[:36]), ("vali", q[36:48]), ("test", q[48:])):
        sub = data.subset(sel)
        if layout == "lightgbm":
            _lightgbm_layout(sub, d / f"{part}.txt")
        else:
            sub = RankingDataset(X=sub.X, y=sub.y, qid=np.repeat(np.arange(1, sub.n_queries + 1), sub.query_sizes))
            write_svmlight(sub, d / f"{part}.txt")


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["lightgbm", "qid-reused"])
def test_parts_that_reuse_query_ids_pool_keyed_by_part_and_run(tmp_path, data, layout, capsys):
    d = tmp_path / "mine"
    _parts(data, d, layout)
    pooled = load_dataset("svmlight", data_dir=d, cache_dir=tmp_path / "c")
    assert pooled.n_queries == data.n_queries and pooled.n_docs == data.n_docs
    np.testing.assert_array_equal(pooled.query_sizes, data.query_sizes)       # nothing merged or reordered
    np.testing.assert_array_equal(pooled.y, data.y)
    first = 0 if layout == "lightgbm" else 1
    assert pooled.query_ids[0] == first and pooled.query_ids[36] == 100 + first and pooled.query_ids[48] == 200 + first
    assert "keyed by (part, qid): pooled qid = part × 100 + qid" in capsys.readouterr().err
    again = load_dataset("svmlight", data_dir=d, cache_dir=tmp_path / "c")     # from the cache: said again
    np.testing.assert_array_equal(again.qid, pooled.qid)
    assert "keyed by (part, qid)" in capsys.readouterr().err
    assert quality.main(TINY + ["--dataset", "svmlight", "--data-dir", str(d), "--models", "lambdamart",
                                "--out", str(tmp_path / "o")]) == 0


def test_editing_or_deleting_a_sidecar_is_seen_through_the_pooled_cache(tmp_path, data):
    f = tmp_path / "train.txt"
    _lightgbm_layout(data, f)
    assert load_dataset(str(f), cache_dir=tmp_path / "c").n_queries == 60
    sizes = data.query_sizes
    f.with_name("train.txt.query").write_text("\n".join(map(str, sizes[0::2] + sizes[1::2])) + "\n")
    assert load_dataset(str(f), cache_dir=tmp_path / "c").n_queries == 30      # the sidecar now says 30
    f.with_name("train.txt.query").unlink()
    with pytest.raises(SVMLightFormatError, match="qid"):                        # no sidecar: lines lack qid:
        load_dataset(str(f), cache_dir=tmp_path / "c")


def test_a_cached_array_edited_in_place_is_seen(tmp_path, data):
    from ltrrepro.runner import materialize
    f = tmp_path / "train.txt"
    write_svmlight(data, f)
    ds = load_dataset(str(f), cache_dir=tmp_path / "c")
    entry = tmp_path / "c" / "datasets" / ds.meta["cache"].rsplit("/", 1)[-1]
    y = np.load(entry / "y.npy")
    np.save(entry / "y.npy", np.where(y > 0, 0, 1).astype(y.dtype))             # same shape, other labels
    again = load_dataset(str(f), cache_dir=tmp_path / "c")
    np.testing.assert_array_equal(again.y, data.y)                              # parsed again, not trusted
    y = np.load(entry / "y.npy")
    np.save(entry / "y.npy", y[::-1].copy())
    ref = materialize(data, cache_dir=tmp_path / "c")                           # the runner's entry too
    np.testing.assert_array_equal(np.load(f"{ref.path}/y.npy"), data.y)


# --- issue #31 -------------------------------------------------------------------------------

def _with_qid(ds, path):
    write_svmlight(ds, path, comment_docid=False)


@pytest.mark.parametrize("d", [1, 2])
def test_a_lightgbm_layout_file_with_one_or_two_features_reads_like_letor(tmp_path, data, d):
    """The width scan skipped the first token after the label as if it were 'qid:', so the one
    feature of a LightGBM line went unseen ("declared number of features (0)")."""
    small = RankingDataset(X=np.asarray(data.X[:, :d]) + 0.5, y=data.y, qid=data.qid)   # no zero left out
    _with_qid(small, tmp_path / "letor.txt")
    _lightgbm_layout(small, tmp_path / "train.txt")
    a = read_svmlight(tmp_path / "letor.txt", use_cache=False)
    b = read_svmlight(tmp_path / "train.txt", use_cache=False)
    c = load_dataset(str(tmp_path / "train.txt"), cache_dir=tmp_path / "c")     # the pooled path's scan too
    for got in (b, c):
        assert got.n_features == d
        np.testing.assert_array_equal(got.X, a.X)
        np.testing.assert_array_equal(got.y, a.y)
        np.testing.assert_array_equal(got.offsets, a.offsets)


def test_an_inferred_width_beyond_the_bound_is_refused_for_a_user_path(tmp_path):
    """load_dataset(PATH) inferred the width with scan_svmlight and passed it on as if declared:
    a 10 kB file with index 3,000,000 allocated rows x 3M floats and cached them."""
    import tracemalloc
    from ltrrepro.svmlight import MAX_INFERRED_FEATURES
    f = tmp_path / "wide.txt"
    f.write_text("1 qid:1 1:0.5 2:1\n0 qid:1 1:0.25 3000000:1\n2 qid:2 1:1\n0 qid:2 2:3\n")
    tracemalloc.start()
    try:
        with pytest.raises(SVMLightFormatError, match=r"wide\.txt, line 2: .*feature index 3,000,000.*"
                                                      + f"{MAX_INFERRED_FEATURES:,}.*n_features"):
            load_dataset(str(f), cache_dir=tmp_path / "c")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20                                  # nothing of rows x 3M floats
    assert not (tmp_path / "c" / "datasets").exists()
    assert load_dataset(str(f), cache_dir=tmp_path / "c", n_features=3_000_000).n_features == 3_000_000


@pytest.mark.parametrize("kind", ["directory", "loop", "fifo", "dangling"])
def test_a_train_file_that_is_not_a_regular_file_is_named_not_skipped(tmp_path, data, kind):
    import os
    d = tmp_path / "mine"
    d.mkdir()
    q = np.arange(data.n_queries)
    write_svmlight(data.subset(q[36:48]), d / "vali.txt")
    write_svmlight(data.subset(q[48:]), d / "test.txt")
    bad = d / "train.txt"
    {"directory": bad.mkdir, "fifo": lambda: os.mkfifo(bad), "loop": lambda: os.symlink(bad, bad),
     "dangling": lambda: os.symlink(d / "gone.txt", bad)}[kind]()
    why = {"directory": "is a directory", "fifo": "is a FIFO", "loop": "cannot be opened",
           "dangling": "is a symbolic link to a missing file"}[kind]
    from ltrrepro.datasets import DatasetNotFoundError
    with pytest.raises(DatasetNotFoundError, match=r"mine/train\.txt: " + why + r".*not a regular readable file"):
        user_files(d)
    with pytest.raises(DatasetNotFoundError, match=r"train\.txt"):                # not 24 of 60 queries
        load_dataset("svmlight", data_dir=d, cache_dir=tmp_path / "c")


def test_a_fifo_given_as_the_data_file_is_not_a_regular_file(tmp_path):
    import os
    from ltrrepro.datasets import DatasetNotFoundError
    f = tmp_path / "pipe.txt"
    os.mkfifo(f)
    with pytest.raises(DatasetNotFoundError, match=r"pipe\.txt: is a FIFO / named pipe, not a regular readable file"):
        load_dataset(str(f), cache_dir=tmp_path / "c")
    with pytest.raises(SVMLightFormatError, match=r"pipe\.txt: not a regular file \(a FIFO"):
        read_svmlight(f, use_cache=False)


@pytest.mark.parametrize("size", ["\u00b2", "12345678901234567890123", "-3", "3 4", "0"])
def test_a_bad_query_size_is_one_error_naming_the_sidecar_and_line(tmp_path, data, size):
    f = tmp_path / "train.txt"
    _lightgbm_layout(data, f)
    sizes = [str(s) for s in data.query_sizes]
    sizes[2] = size
    f.with_name("train.txt.query").write_text("\n".join(sizes) + "\n", encoding="utf-8")
    with pytest.raises(SVMLightFormatError, match=r"train\.txt\.query, line 3: a query size must be a positive "
                                                  r"integer.*got " + re.escape(repr(size))):
        read_svmlight(f, use_cache=False)


def test_negative_qids_beside_a_sidecar_are_read_as_written(tmp_path, data):
    """-1 was the reader's 'no qid:' marker: qid:-1 on every line was renumbered 0, 1, ...
    silently. Written qids are kept, negative ones too, and must agree with the sizes."""
    f = tmp_path / "train.txt"
    neg = RankingDataset(X=data.X, y=data.y, qid=-np.repeat(np.arange(1, data.n_queries + 1), data.query_sizes))
    write_svmlight(neg, f, comment_docid=False)
    f.with_name("train.txt.query").write_text("\n".join(map(str, data.query_sizes)) + "\n")
    np.testing.assert_array_equal(read_svmlight(f, use_cache=False).qid, neg.qid)
    every = RankingDataset(X=data.X, y=data.y, qid=np.full(data.n_docs, -1))
    write_svmlight(every, f, comment_docid=False)
    with pytest.raises(SVMLightFormatError, match=rf"train\.txt, line {data.query_sizes[0] + 1}: the qid: values "
                                                  r"do not match the query sizes .*qid:-1"):
        read_svmlight(f, use_cache=False)


@pytest.mark.parametrize("column,values,what", [
    ("label", [2**32 + 1, 0, 1, 0], r"column 'label', row 0 \(index 0\): 4294967297 is outside 0..31"),
    ("label", [1, 0, 2.5, 0], r"column 'label', row 2 \(index 2\): 2.5 is not an integer"),
    ("label", [1, 0, np.nan, 0], r"column 'label', row 2 \(index 2\): nan is missing"),
    ("label", [1, -1, 0, 0], r"column 'label', row 1 \(index 1\): -1 is outside 0..31"),
    ("qid", [1.2, 1.2, 1.7, 1.7], r"column 'qid', row 0 \(index 0\): 1.2 is not an integer query id"),
    ("qid", [1.0, 1.0, np.nan, np.nan], r"column 'qid', row 2 \(index 2\): nan is missing"),
    ("qid", [1.0, 1.0, np.inf, np.inf], r"column 'qid', row 2 \(index 2\): inf is missing|not a finite"),
    ("qid", np.array([1, 1, 2**64 - 1, 2**64 - 1], np.uint64), r"column 'qid', row 2 .*is outside"),
    ("qid", ["a", "a", "b", "b"], r"column 'qid' holds .* not numbers.*factorize"),
])
def test_from_frame_refuses_what_it_would_convert_silently(column, values, what):
    df = pd.DataFrame({"qid": [7, 7, 9, 9], "label": [1, 0, 2, 0], "f": [0.5, 0.1, 0.3, 0.2]})
    df[column] = values
    with pytest.raises(ValueError, match=r"from_frame: " + what):
        RankingDataset.from_frame(df)


def test_from_frame_keeps_integer_valued_floats_and_follows_max_label():
    df = pd.DataFrame({"qid": [7.0, 7.0, 9.0], "label": [1.0, 0.0, 40.0], "f": [0.5, 0.1, 0.3]})
    with pytest.raises(ValueError, match=r"column 'label', row 2 \(index 2\): 40.0 is outside 0..31.*max_label"):
        RankingDataset.from_frame(df)
    ds = RankingDataset.from_frame(df, max_label=40)
    assert ds.qid.tolist() == [7, 7, 9] and ds.y.tolist() == [1, 0, 40] and ds.n_queries == 2


def test_a_label_31_trains_lightgbm_lambdarank_and_smaller_labels_are_unchanged(tmp_path, data):
    """The reader accepts labels up to 31; LightGBM's default label_gain stops at 30."""
    from ltrrepro.fit import SYSTEMS, Boosting
    f = tmp_path / "train.txt"
    y = data.y.copy()
    y[np.argmax(y)] = 31
    write_svmlight(data.with_labels(y), f)
    top = read_svmlight(f, use_cache=False)
    assert top.y.max() == 31
    idx = np.arange(top.n_queries)
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=3, early_stopping=2)

    def fit(ds, **extra):
        tr = SYSTEMS["lambdamart"].trainer(b, library="lightgbm", seed=np.random.SeedSequence(1), threads=1)
        tr.params.update(extra)
        tr.add_train(ds.subset(idx[:40]))
        tr.add_valid(ds.subset(idx[40:]))
        return tr, tr.fit()

    tr, fitted = fit(top)
    assert len(tr.params["label_gain"]) == 32 and tr.params["label_gain"][31] == 2.0 ** 31 - 1
    assert np.isfinite(fitted.scores(top.X)).all()
    # labels <= 30: no label_gain passed (parameters as before), and LightGBM's default is 2^y - 1
    tr, plain = fit(data)
    assert "label_gain" not in tr.params
    _, explicit = fit(data, label_gain=[2.0 ** i - 1 for i in range(31)])
    np.testing.assert_array_equal(plain.scores(data.X), explicit.scores(data.X))


@pytest.mark.slow
def test_the_default_out_of_a_dataset_path_is_one_directory_named_after_the_file(tmp_path, data, monkeypatch):
    f = tmp_path / "my data.txt"
    write_svmlight(data, f)
    monkeypatch.chdir(tmp_path)
    assert quality.main(TINY + ["--dataset", str(f), "--models", "lambdamart"]) == 0
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["quality-user-my_data"]


def test_from_frame_refuses_an_infinite_feature_naming_it():
    df = pd.DataFrame({"qid": [1, 1, 2], "label": [0, 1, 2], "f1": [0.5, np.inf, 0.1], "f2": [1.0, 2.0, 1e40]})
    with pytest.raises(ValueError, match=r"column 'f1', row 1: inf is infinite"):
        RankingDataset.from_frame(df)
    df.loc[1, "f1"] = 0.0
    with pytest.raises(ValueError, match=r"column 'f2', row 2: inf is infinite \(or beyond float32\)"):
        RankingDataset.from_frame(df)

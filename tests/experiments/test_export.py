"""TREC runs out: --save-runs and `python -m experiments.export` write each unit's test ranking
and each trial's qrels; ir_measures (pytrec_eval) and ranx read them back and get every
unit's recorded NDCG@5/@10 to 1e-9 on data with tied scores; the hash stays; old stores and
other studies are refused in one line."""
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from experiments import export, quality
from ltrrepro import make_synthetic, write_svmlight
from ltrrepro.store import ResultStore
from ltrrepro.trec import SCORE, SIZE, harness_order

ir_measures = pytest.importorskip("ir_measures")
ranx = pytest.importorskip("ranx")

ROOT = Path(__file__).resolve().parents[2]
# two trees of 7 leaves: few distinct scores per query, so ties are many
FAST = ["--trials", "2", "--preset", "tiny", "--rounds", "2", "--jobs", "1", "--threads", "1", "--quiet",
        "--models", "lambdamart,xendcg"]
NDCG5, NDCG10 = "ndcg@5[gain=exp2,norel=drop]", "ndcg@10[gain=exp2,norel=drop]"


def _text(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return fh.read()


def _relevant(qrels_text: str) -> set:
    return {q for q, _, _, y in (line.split() for line in qrels_text.splitlines()) if int(y) > 0}


def _ir_measures(qrels_text, run_text, k):
    m = ir_measures.nDCG(gains={y: 2 ** y - 1 for y in range(32)}) @ k
    qrels = list(ir_measures.read_trec_qrels(qrels_text))
    run = list(ir_measures.read_trec_run(run_text))
    keep = _relevant(qrels_text)                     # the harness drops queries without a relevant document
    return float(np.mean([r.value for r in ir_measures.iter_calc([m], qrels, run) if r.query_id in keep]))


def _ranx(units, tmp: Path) -> dict:
    """ranx's NDCG@5/@10 of every unit, ``{(run file, k): value}``, from one ``Qrels`` and one
    ``Run`` that ranx reads from gzip TREC files itself (``ndcg_burges`` is NDCG with the gain
    2^y − 1). The exported lines go in as written but for their query id, which takes the run's
    file name as a prefix, so that one evaluation holds every unit: numba compiles ranx's kernels
    for each width of the document ids it meets (tens of seconds each in a fresh environment),
    and one ``Qrels`` and one ``Run`` meet one."""
    qrels_lines, run_lines = [], []
    for run_path, qrels_path in units:
        unit = run_path.name
        qrels_lines += [f"{unit}/{line}" for line in _text(qrels_path).splitlines()]
        run_lines += [f"{unit}/{line}" for line in _text(run_path).splitlines()]
    for name, lines in (("all.qrels.gz", qrels_lines), ("all.run.gz", run_lines)):
        with gzip.open(tmp / name, "wt", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    qrels, run = ranx.Qrels.from_file(str(tmp / "all.qrels.gz")), ranx.Run.from_file(str(tmp / "all.run.gz"))
    values = ranx.evaluate(qrels, run, ["ndcg_burges@5", "ndcg_burges@10"], return_mean=False)
    keep = {q for q, _, _, y in (line.split() for line in qrels_lines) if int(y) > 0}
    out: dict = {}
    for k in (5, 10):
        for run_path, _ in units:
            mine = [v for q, v in zip(qrels.keys(), values[f"ndcg_burges@{k}"])
                    if q in keep and q.startswith(run_path.name + "/")]
            out[run_path.name, k] = float(np.mean(mine))
    return out


def _check(out: Path, with_ranx: bool = False):
    """Every unit's exported run, evaluated by ir_measures (and ranx: its numba compile costs
    tens of seconds once per process, so one test pays it), gives the recorded NDCG@5/@10."""
    store = ResultStore.open(out)
    records = store.records()
    assert records
    paths = {}
    for rec in records:
        u = rec["unit"]
        name = rec["key"].replace("/", "__")
        paths[rec["key"]] = (out / "trec" / "runs" / f"{name}.run.gz",
                             out / "trec" / "qrels" / f"{u['dataset']}__t{u['trial']:03d}.qrels.gz")
    if with_ranx:
        (out.parent / "ranx").mkdir()
    by_ranx = _ranx(list(paths.values()), out.parent / "ranx") if with_ranx else {}
    tied = 0
    for rec in records:
        u = rec["unit"]
        run_path, qrels_path = paths[rec["key"]]
        run_text, qrels_text = _text(run_path), _text(qrels_path)
        lines = [x.split() for x in run_text.splitlines()]
        assert all(len(x) == 6 and x[1] == "Q0" and x[5] == u["model"] for x in lines)
        arrays = store.arrays(rec["key"])
        s, sizes = arrays[SCORE], arrays[SIZE]
        tied += sum(len(np.unique(q)) < len(q) for q in np.split(s, np.cumsum(sizes)[:-1]))
        for k, metric in ((5, NDCG5), (10, NDCG10)):
            want = rec["means"][metric]
            assert abs(_ir_measures(qrels_text, run_text, k) - want) < 1e-9, (run_path.name, k)
            assert not with_ranx or abs(by_ranx[run_path.name, k] - want) < 1e-9, (run_path.name, k)
    assert tied > 0                                  # the data did have tied scores


@pytest.mark.slow
def test_saved_runs_read_by_ir_measures_and_ranx_give_the_recorded_ndcg(tmp_path):
    out = tmp_path / "q"
    assert quality.main(FAST + ["--queries", "40", "--save-runs", "--out", str(out)]) == 0
    _check(out, with_ranx=True)
    runs = sorted((out / "trec" / "runs").glob("*.run.gz"))
    qrels = sorted((out / "trec" / "qrels").glob("*.qrels.gz"))
    assert len(runs) == 4 and len(qrels) == 2
    qid, _, docid = _text(runs[0]).split()[:3]
    assert docid.startswith(qid + "-") and docid[len(qid) + 1:].isdigit()     # no #docid: <qid>-<position>
    before = {p.name: p.read_bytes() for p in runs + qrels}
    hash_before = json.loads((out / "manifest.json").read_text())["config_hash"]
    # export of the finished run: the same bytes; --save-runs changed no configuration
    assert quality.main(FAST + ["--queries", "40", "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["config_hash"] == hash_before
    assert export.main([str(out), "--to", str(tmp_path / "again"), "--quiet"]) == 0
    again = {p.name: p.read_bytes() for p in (tmp_path / "again").rglob("*.gz")}
    assert again == before
    # the models' raw scores: pytrec_eval breaks their ties by doc id, so some unit's NDCG moves
    assert export.main([str(out), "--to", str(tmp_path / "raw"), "--raw-scores", "--quiet"]) == 0
    moved = 0
    for rec in ResultStore.open(out).records():
        u, name = rec["unit"], rec["key"].replace("/", "__")
        run_text = _text(tmp_path / "raw" / "runs" / f"{name}.run.gz")
        qrels_text = _text(tmp_path / "raw" / "qrels" / f"{u['dataset']}__t{u['trial']:03d}.qrels.gz")
        moved += abs(_ir_measures(qrels_text, run_text, 5) - rec["means"][NDCG5]) > 1e-9
    assert moved > 0


@pytest.mark.slow
def test_a_letor_file_exports_its_docids(tmp_path):
    """A LETOR file (#docid comments): the run files carry its document ids."""
    out = tmp_path / "m"
    data = ROOT / "tests" / "data" / "mq2008" / "vali.txt"
    assert quality.main(FAST + ["--dataset", str(data), "--out", str(out)]) == 0
    assert export.main([str(out), "--quiet"]) == 0
    _check(out)
    first = _text(next((out / "trec" / "runs").glob("*.run.gz"))).split()[2]
    assert first.startswith("GX") and first in data.read_text(encoding="latin-1")


def test_rank_derived_scores_keep_the_harness_order_where_raw_scores_tie():
    scores = np.array([1.0, 2.0, 2.0, 0.5, 0.5, 0.5])
    sizes = np.array([3, 3])
    assert harness_order(scores, sizes).tolist() == [1, 2, 0, 3, 4, 5]
    from ltrrepro.trec import run_lines
    arrays = {SCORE: scores, SIZE: sizes, "test:qid": np.array([7, 9]), "test:label": np.zeros(6, np.int8)}
    lines = [x.split() for x in run_lines(arrays, "m").splitlines()]
    assert [x[2] for x in lines] == ["7-1", "7-2", "7-0", "9-0", "9-1", "9-2"]
    assert [x[4] for x in lines] == ["3", "2", "1", "3", "2", "1"] and [x[3] for x in lines] == ["1", "2", "3"] * 2
    raw = [x.split()[4] for x in run_lines(arrays, "m", raw=True).splitlines()]
    assert raw[:3] == ["2", "2", "1"]


def test_scores_are_kept_in_float32_only_where_the_ranking_stays():
    from ltrrepro.data import RankingDataset
    from ltrrepro.trec import test_arrays
    ds = RankingDataset(np.zeros((4, 1), np.float32), [1, 0, 2, 0], [5, 5, 5, 5])
    assert test_arrays(np.array([0.5, 0.25, 1.0, 0.0]), ds)[SCORE].dtype == np.float32
    close = np.array([1.0, 1.0 + 1e-12, 0.0, 0.0])             # equal in float32: the later one would lose
    assert test_arrays(close, ds)[SCORE].dtype == np.float64


@pytest.mark.slow
def test_an_old_store_without_scores_is_one_line(tmp_path, capsys):
    out = tmp_path / "q"
    assert quality.main(FAST + ["--queries", "40", "--trials", "1", "--out", str(out)]) == 0
    for npz in (out / "units").glob("*.npz"):                 # as stored before units kept their scores
        with np.load(npz) as z:
            kept = {k: z[k] for k in z.files if k not in (SCORE, "test:label", SIZE, "test:docid")}
        np.savez(npz, **kept)
    assert export.main([str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "has no stored test scores" in err[0]
    assert quality.main(FAST + ["--queries", "40", "--trials", "1", "--out", str(out)]) == 0
    assert json.loads((out / "manifest.json").read_text())["n_done"] == 0          # resumed: nothing recomputed
    assert export.main([str(tmp_path / "nowhere")]) == 2


def test_save_runs_is_refused_where_units_keep_no_rankings(tmp_path, capsys):
    from experiments import jensen_gap
    assert jensen_gap.main(["--lists", "2", "--draws", "5", "--save-runs", "--out", str(tmp_path / "j")]) == 2
    assert capsys.readouterr().err.strip().startswith("error: --save-runs: the jensen_gap study")


@pytest.mark.slow
def test_user_file_in_lightgbm_layout(tmp_path):
    """A user SVMlight file without doc ids (LightGBM's layout): row ids, same metrics."""
    ds = make_synthetic("yahoo", n_queries=30, seed=3)
    path = tmp_path / "mine.txt"
    write_svmlight(ds, path)
    out = tmp_path / "u"
    assert quality.main(FAST + ["--dataset", str(path), "--trials", "1", "--save-runs", "--out", str(out)]) == 0
    _check(out)

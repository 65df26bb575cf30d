"""The repository stands on its own: the papers' numbers used by the code are the numbers of
the in-repository protocol pages (``docs/protocols``), and nothing cites a file outside it."""
import re
from pathlib import Path

import pytest

from experiments.bruch2021 import paper as bruch
from experiments.xia import protocol as xia_protocol
from experiments.xia import paper as sp
from experiments.zheng2007 import paper as qbrank

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _md_tables(path: Path) -> list[list[list[str]]]:
    """Every Markdown table of ``path`` as rows of cell strings (header and rule rows dropped)."""
    tables, cur = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = []                                  # header row
            elif not all(set(c) <= set("-: ") for c in cells):
                cur.append(cells)
        elif cur is not None:
            tables.append(cur)
            cur = None
    if cur is not None:
        tables.append(cur)
    return tables


def _num(s: str) -> float:
    return float(s.replace("−", "-"))


def test_xia_tables_in_code_are_the_docs_tables():
    tables = [t for t in _md_tables(DOCS / "protocols" / "xia.md") if t and t[0][0] in ("McRank", "LambdaMART")]
    assert len(tables) == 2                                # Yahoo, then MSLR-WEB10K
    for key, rows in zip(("yahoo", "web10k"), tables):
        assert len(rows) == 12
        parsed = {}
        for system, leaves, lr, *cells in rows:
            parsed[(system.lower(), int(leaves), round(_num(lr), 2))] = tuple(
                tuple(_num(x) for x in c.split("/")) for c in cells)
        assert parsed == sp._T[key], key
    # the grid the experiment runs is the paper's: leaves and learning rates of the tables
    assert tuple(sorted({k[1] for k in parsed})) == xia_protocol.LEAVES
    assert tuple(sorted({k[2] for k in parsed})) == xia_protocol.RATES


def test_bruch_table1_in_code_is_the_docs_table():
    rows = next(t for t in _md_tables(DOCS / "protocols" / "bruch2021.md") if t and t[0][0] == "ListNet")
    names = {"ListNet": "listnet", "λMART": "lambdamart", "XE_NDCG MART": "xendcg"}
    for name, w5, w10, y5, y10 in rows:
        m = names[name]
        assert bruch.PAPER_TABLE1["web30k"][m] == (_num(w5), _num(w10))
        assert bruch.PAPER_TABLE1["yahoo"][m] == (_num(y5), _num(y10))


def test_zheng_table1_in_code_is_the_docs_table():
    rows = next(t for t in _md_tables(DOCS / "protocols" / "zheng2007.md") if t and t[0][0] == "10")
    parsed = {int(k): (_num(a), _num(b), _num(c)) for k, a, b, c in rows}
    assert parsed == qbrank.PAPER_TABLE1


def _sources():
    files = [ROOT / "README.md", *sorted((ROOT / "ltrrepro").rglob("*.py")), *sorted((ROOT / "experiments").rglob("*.py"))]
    return [(f, f.read_text(encoding="utf-8")) for f in files]


def test_nothing_cites_a_file_outside_the_repository():
    bad = [f"{f.relative_to(ROOT)}:{i + 1}: {line.strip()}" for f, text in _sources()
           for i, line in enumerate(text.splitlines())
           if re.search(r"\.\./shared|seed 00\d|PROTOCOLS", line)]
    assert not bad, "\n".join(bad)


def test_every_cited_docs_page_exists():
    cited = {m.group(0).rstrip(").,") for _, text in _sources() for m in re.finditer(r"docs/[\w/.-]+\.md", text)}
    assert cited, "docstrings should cite docs/ pages"
    missing = sorted(c for c in cited if not (ROOT / c).is_file())
    assert not missing, missing


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "protocols").glob("*.md")))
def test_protocol_pages_link_to_references(page):
    text = (DOCS / "protocols" / page).read_text(encoding="utf-8")
    refs = (DOCS / "references.md").read_text(encoding="utf-8")
    for anchor in re.findall(r"references\.md#([\w-]+)", text):
        assert f'<a id="{anchor}"></a>' in refs, anchor


def test_bruch_presets_are_the_docs_hyperparameters():
    from ltrrepro.fit.backends import lightgbm_params
    from ltrrepro.fit.boosting import PRESETS
    rows = {r[0]: r[1:] for r in next(t for t in _md_tables(DOCS / "protocols" / "bruch2021.md")
                                      if t and t[0][0] == "max_bin")}
    for col, (key, preset) in enumerate((("web30k", "bruch-web30k"), ("yahoo", "bruch-yahoo"))):
        doc = {k: v[col] for k, v in rows.items()}
        for name in ("max_bin", "num_leaves", "min_data_in_leaf"):
            assert PRESETS[preset][name] == int(doc[name]), (preset, name)
        assert PRESETS[preset]["learning_rate"] == _num(doc["learning rate"])
        assert lightgbm_params("lambdarank")["min_sum_hessian_in_leaf"] == _num(doc["min_sum_hessian_in_leaf"])
        assert PRESETS[preset]["sigmoid"] == _num(doc["σ (λMART sigmoid)"])
        assert PRESETS[preset]["lambdarank_norm"] is (doc["lambdarank_norm"] == "true")
        stopping = re.search(r"after (\d+) rounds, at most (\d+) trees", rows["model selection"][0])
        assert (PRESETS[preset]["early_stopping"], PRESETS[preset]["rounds"]) == tuple(map(int, stopping.groups()))


def test_bruch_noise_and_click_probabilities_are_the_docs_numbers():
    from ltrrepro.noise import BRUCH_CLICK_PROBS, BRUCH_NOISE_PROBS
    text = (DOCS / "protocols" / "bruch2021.md").read_text(encoding="utf-8")
    noise = re.search(r"redrawn from 0–4 with probabilities ([.\d, ]+)", text).group(1)
    clicks = re.search(r"the probability of its label, \(([.\d, ]+)\)", text).group(1)
    assert BRUCH_NOISE_PROBS == tuple(float(x) for x in noise.rstrip(". ").split(","))
    assert BRUCH_CLICK_PROBS == tuple(float(x) for x in clicks.split(","))


def test_every_python_m_command_in_readme_and_docs_answers_help():
    """Each ``python -m experiments.X`` a user is told to run exists and answers ``--help``
    (the README once named ``experiments.demo``, long gone)."""
    import subprocess
    import sys
    texts = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    mods = sorted({m.group(1) for p in texts for m in re.finditer(r"python -m (experiments\.\w+)",
                                                                   p.read_text())})
    assert "experiments.robustness" in mods and len(mods) >= 8
    for mod in mods:
        r = subprocess.run([sys.executable, "-m", mod, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "usage" in r.stdout.lower(), f"python -m {mod} --help: {r.stderr[-500:]}"

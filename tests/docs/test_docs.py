"""The repository stands on its own: the papers' numbers used by the code are the numbers of
the in-repository protocol pages (``docs/protocols``), and nothing cites a file outside it."""
import re
import sys
from pathlib import Path

import pytest

from experiments.bruch2021 import paper as bruch
from experiments.xia import protocol as xia_protocol
from experiments.xia import paper as sp
from experiments.zheng2007 import paper as qbrank

ROOT = Path(__file__).resolve().parents[2]
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


# --- The README and the pages under docs/: every command runs, every link resolves -----------------

PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
#: flags named in the pages that belong to other programs (a dask worker's, pytest's), not to ltrrepro's
FOREIGN_FLAGS = {"--nthreads", "--pdb", "--no-loadscope-reorder"}
#: flags the pages name as refused (an abbreviation is unknown)
REFUSED_FLAGS = {"--conf"}


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _strip_fences(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def _commands(text: str) -> list[str]:
    """Every command a page tells its reader to run: each line of its ``bash`` blocks (a ``\\``
    continuation joined), each inline code span that starts with ``python ``, ``pip `` or
    ``bash ``; ``a && b`` is two commands."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        lines += [ln.strip() for ln in re.sub(r"\\\n\s*", " ", block).splitlines()
                  if ln.strip() and not ln.strip().startswith("#")]
    lines += re.findall(r"`((?:python|pip|bash) [^`]+)`", _strip_fences(text))
    return [c.strip() for ln in lines for c in _braces(ln).split("&&")]


def _braces(line: str) -> str:
    """``python -m experiments.{a,b}`` as ``python -m experiments.a && python -m experiments.b``."""
    m = re.fullmatch(r"(python -m experiments\.)\{([\w,]+)\}(.*)", line)
    return " && ".join(m.group(1) + name + m.group(3) for name in m.group(2).split(",")) if m else line


def _all_commands() -> list[tuple[str, str]]:
    return [(_page_id(p), c) for p in PAGES for c in _commands(p.read_text(encoding="utf-8"))]


def _is_placeholder(word: str) -> bool:
    return word.isupper() or word.startswith("<")


def _study_parsers() -> dict:
    from experiments import registry
    from experiments.cli import parser_for
    return {name: parser_for(exp) for name, exp in registry.experiments().items()}


def _parses(parser, argv) -> str | None:
    """``None`` when ``parser`` accepts ``argv``, else what it printed."""
    import contextlib
    import io
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as e:
        return None if e.code == 0 else err.getvalue().strip() or f"exit {e.code}"      # 0: --help
    return None


def _helps(argvs: list[list[str]]) -> dict:
    """``--help`` output of each program, run in parallel (a handful of processes)."""
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    def one(argv):
        r = subprocess.run([sys.executable, *argv, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "usage" in r.stdout.lower(), f"{' '.join(argv)} --help: {r.stderr[-800:]}"
        return r.stdout

    with ThreadPoolExecutor(4) as pool:
        return dict(zip(map(tuple, argvs), pool.map(one, argvs)))


def _example_studies() -> set[str]:
    """The studies the packages under ``examples/`` declare (entry points ``ltrrepro.studies``)."""
    import tomllib
    return {name for p in (ROOT / "examples").glob("*/pyproject.toml")
            for name in tomllib.loads(p.read_text())["project"].get("entry-points", {}).get("ltrrepro.studies", {})}


def _extras() -> set[str]:
    import tomllib
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def test_every_command_in_readme_and_docs_runs(tmp_path, monkeypatch):
    """Each command of the README and of docs/*.md: a study's command line is parsed by that
    study's own parser (its flags and their values accepted: ``--trials auto`` must parse) and
    builds its configuration (model names known, the README's plug-in checked), any
    other ``python -m`` module and benchmark script exists and answers ``--help`` with every flag
    the command gives it, ``pip install`` names extras ``pyproject.toml`` has, and the test
    command is the one ``.ci/run`` runs."""
    import importlib.util
    import shlex

    from experiments import registry

    commands = _all_commands()
    assert ("README.md", "python -m experiments.robustness") in commands          # the main job
    readme = (ROOT / "README.md").read_text(encoding="utf-8")                     # its plug-in, importable
    (tmp_path / "mylosses.py").write_text(
        re.search(r"<!-- readme-example: mylosses.py -->\n```python\n(.*?)```", readme, re.S).group(1))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "mylosses", None)        # restored after the test (None: not importable yet)
    del sys.modules["mylosses"]
    parsers, extras, helps, bad = _study_parsers(), _extras(), {}, []
    for page, cmd in commands:
        argv = shlex.split(cmd)
        if argv[:3] == ["python", "-m", "pip"]:
            argv = argv[2:]
        if argv[:2] == ["pip", "install"]:
            bad += [f"{page}: {cmd}: no extra [{x}] in pyproject.toml"
                    for a in argv if "[" in a for x in re.search(r"\[(.*)\]", a).group(1).split(",") if x not in extras]
        elif argv[:3] == ["python", "-m", "pytest"] or argv[:2] in (["bash", ".ci/floor"], ["bash", ".ci/run"]):
            assert (ROOT / ".ci" / "run").is_file() and (ROOT / ".ci" / "floor").is_file()
        elif argv[:2] == ["python", "-m"] and len(argv) > 2 and argv[2].startswith("ltrrepro."):
            if importlib.util.find_spec(argv[2]) is None:                     # the library's own processes
                bad.append(f"{page}: {cmd}: no module {argv[2]}")
        elif argv == ["python", "-m"]:
            continue                                                         # prose: "the `python -m` entry points"
        elif argv[:3] == ["python", "-m", "experiments"] and len(argv) > 3 and not argv[3].startswith("-") \
                and argv[3] not in parsers:
            if argv[3] not in _example_studies() and not _is_placeholder(argv[3]):       # installed by the page
                bad.append(f"{page}: {cmd}: no study {argv[3]} (built in or in examples/)")
        elif argv[:2] == ["python", "-m"] and len(argv) > 2 and argv[2].startswith("experiments"):
            if argv[2] == "experiments" and len(argv) > 3 and argv[3] in parsers:
                argv = ["python", "-m", f"experiments.{argv[3]}", *argv[4:]]    # python -m experiments NAME
            mod = argv[2]
            if _is_placeholder(mod.rsplit(".", 1)[-1]):
                continue                                                     # python -m experiments.NAME
            name = mod.split(".", 1)[1] if "." in mod else None
            if name in parsers:
                why = _parses(parsers[name], argv[3:])
                if why:
                    bad.append(f"{page}: {cmd}: {why.splitlines()[-1]}")
                elif "--help" not in argv and "--config" not in argv:
                    try:
                        registry.get(name).from_args(parsers[name].parse_args(argv[3:]))
                    except Exception as e:                                   # a user error, a bad plug-in
                        bad.append(f"{page}: {cmd}: {type(e).__name__}: {e}")
            elif importlib.util.find_spec(mod) is None:
                bad.append(f"{page}: {cmd}: no module {mod}")
            else:
                helps[(page, cmd)] = ["-m", mod]
        elif argv[0] == "python" and argv[1].startswith("benchmarks/"):
            if not (ROOT / argv[1]).is_file():
                bad.append(f"{page}: {cmd}: no file {argv[1]}")
            else:
                helps[(page, cmd)] = [argv[1]]
        else:
            bad.append(f"{page}: {cmd}: a command this test does not know how to check")
    outputs = _helps(sorted({tuple(v) for v in helps.values()}))
    for (page, cmd), prog in helps.items():
        out = outputs[tuple(prog)]
        bad += [f"{page}: {cmd}: {flag} is not in its --help" for flag in re.findall(r"(?<!\S)--[a-z][\w-]*", cmd)
                if flag not in out]
    assert not bad, "\n".join(bad)
    # the README's test command is what CI runs (.ci/run, with pip's -q), in a new environment outside the clone
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'venv="$(mktemp -d "${TMPDIR:-/tmp}/' in ci and '-m venv "$venv"' in ci
    assert '"$venv/bin/python" -m pip install -q -e ".[test]"' in ci and '\n"$venv/bin/python" -m pytest -q "$@"\n' in ci
    assert ("README.md", 'python -m pip install -e ".[test]"') in commands
    assert ("README.md", "python -m pytest -q") in commands


def test_every_flag_the_docs_name_is_a_flag():
    """An inline ``--flag`` (or ``--flag value``) of the README or a docs page is a flag of a study
    or of a tool, and a value given with it is one some study's parser accepts; every flag of
    every study is documented somewhere."""
    parsers = _study_parsers()
    known = {f for ap in parsers.values() for f in ap._option_string_actions} | FOREIGN_FLAGS | REFUSED_FLAGS
    for flag in REFUSED_FLAGS:
        assert all(_parses(ap, [flag, "x"]) for ap in parsers.values()), flag
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    checked = "\n".join(p.read_text(encoding="utf-8") for p in PAGES if p.name != "errors.md")   # bad input there
    bad = []
    for span in re.findall(r"`(--[a-z][^`]*)`", _strip_fences(checked)):
        words = span.split()
        flags = [w for w in words if w.startswith("--")]
        bad += [f"`{span}`: {f} is no flag" for f in flags if f.split("=")[0] not in known]
        if len(words) == 2 and words[0] not in FOREIGN_FLAGS and not words[1].startswith("-") \
                and not _is_placeholder(words[1]) and not re.search(r"[\[\]{}…]|\.\.\.", words[1]):
            owners = [ap for ap in parsers.values() if words[0] in ap._option_string_actions]
            if owners and all(_parses(ap, words) for ap in owners):
                bad.append(f"`{span}`: no study accepts it ({_parses(owners[0], words).splitlines()[-1]})")
    assert not bad, "\n".join(bad)
    mentioned = set(re.findall(r"--[a-z][\w-]*", text))
    undocumented = sorted({f for ap in parsers.values() for f in ap._option_string_actions
                           if f.startswith("--") and f != "--help"} - mentioned)
    assert not undocumented, f"flags no page names: {undocumented}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text, lower case, punctuation dropped, spaces
    to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _strip_fences(path.read_text(encoding="utf-8"))
    return ({_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
            | set(re.findall(r'<a id="([^"]+)"', text)))


def test_slugs_are_githubs():
    assert _slug("§2 Dataset layouts the reader knows") == "2-dataset-layouts-the-reader-knows"
    assert _slug("Bruch 2021 ([protocols/bruch2021.md](protocols/bruch2021.md))") == "bruch-2021-protocolsbruch2021md"
    assert _slug("One flag contract") == "one-flag-contract"


def test_every_relative_link_of_readme_and_docs_resolves():
    bad = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", _strip_fences(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue                                                     # https:, mailto:
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                bad.append(f"{_page_id(page)}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                bad.append(f"{_page_id(page)}: {target}: no heading #{anchor} in {dest.name}")
    assert not bad, "\n".join(bad)


def test_the_readme_stays_a_five_minute_read():
    """The README is what a newcomer reads (issue 29): short, its reference material in docs/,
    which it links; its picture of Figure 3 is a committed file of the default run."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 160
    linked = set(re.findall(r"\]\(docs/([\w/.-]+\.md)", text))
    assert {"cli.md", "store.md", "statistics.md", "data.md", "benchmarks.md", "layout.md"} <= linked
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert pictures and all(p.startswith("results/") and (ROOT / p).is_file() for p in pictures)
    from experiments import registry
    for name in registry.experiments():
        assert f"python -m experiments.{name}`" in text, name                # the seven studies


def test_python_m_experiments_lists_every_study_on_one_line(capsys):
    from experiments import registry
    from experiments.__main__ import main
    assert main([]) == 0
    out = capsys.readouterr().out.splitlines()
    studies = registry.experiments()
    for name, exp in studies.items():
        assert [ln for ln in out if ln.split()[:1] == [name]] == [f"  {name:<16}  {exp.title}"], name
    assert "report" in {ln.split()[0] for ln in out if ln.startswith("  ")}
    assert main(["--help"]) == 0 and capsys.readouterr().out.splitlines() == out
    assert main(["table9"]) == 2                  # python -m experiments NAME runs a study; an unknown one:
    err = capsys.readouterr().err
    assert err.startswith("error: unknown study 'table9'") and "python -m experiments" in err and err.count("\n") == 1


def test_the_readme_claims_are_the_committed_runs():
    """The claims the README quotes are those of ``results/bruch2021/robustness/claims.json``
    (text, p to 3 decimals, power to 2, trials for 80%, verdict): a re-run that changes them
    shows here."""
    import json
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [r for t in _md_tables(ROOT / "README.md") for r in t if r and "degrades faster" in r[0]]
    stored = {c["claim"]: c for c in json.loads(
        (ROOT / "results/bruch2021/robustness/claims.json").read_text(encoding="utf-8"))["claims"]}
    main = {k: c for k, c in stored.items() if "degrades faster" in k}
    assert "results/bruch2021/robustness/claims.md" in text and len(rows) == len(main) == 2
    for claim, p, power, verdict in rows:
        c = stored[claim]
        assert (p, power) == (f"{c['p']:.3f}", f"{c['power']:.2f}"), claim
        assert verdict == f"{c['verdict']}; {c['trials_80']} trials for 80%", claim


def test_every_benchmark_and_tool_is_documented():
    """Each script under benchmarks/ and each ``python -m experiments.X`` module is named in the
    README or a docs page (docs/benchmarks.md holds the benchmarks' table)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    missing = [f"benchmarks/{p.name}" for p in sorted((ROOT / "benchmarks").glob("bench_*.py"))
               if f"benchmarks/{p.name}" not in text]
    mains = [p.stem for p in sorted((ROOT / "experiments").glob("*.py"))
             if re.search(r"^if __name__ == .__main__.:", p.read_text(encoding="utf-8"), re.M)
             and p.stem != "__main__"]
    missing += [f"python -m experiments.{m}" for m in mains if f"python -m experiments.{m}" not in text]
    assert len(mains) >= 9 and not missing, missing

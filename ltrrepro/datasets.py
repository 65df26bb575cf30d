"""Registry of learning-to-rank datasets in their official layouts, plus synthetic stand-ins.

Real data is never downloaded: it is read from the user's directory, given as
``data_dir`` (``--data-dir``) or the environment variable ``LTRREPRO_DATA_DIR``. The
directory may be the dataset folder itself or a parent holding it under its usual name
(e.g. ``MSLR-WEB30K/``). Every file may also be ``.gz`` or ``.bz2`` compressed.

Two protocols:

* ``pooled`` — all queries of the dataset in one :class:`RankingDataset`, to be split at
  random per trial (Bruch §5.1). For MSLR and LETOR this is Fold1's train + vali + test
  (the five folds partition the same queries); for Yahoo, set1's train + valid + test; for
  Istella, its train + test.
* ``folds`` — the official train/valid/test files of one fold (Xia et al.); a layout with
  one official split is its fold 1 (Yahoo, Istella-S). Full Istella has no validation file
  (its spec's ``files`` lack ``"valid"``, :attr:`DatasetSpec.parts`): a study that needs one
  draws it from the training part (:func:`ltrrepro.splits.drawn_validation`).

**One copy on disk.** The pooled dataset is parsed once (without per-file reader caches) and
stored as one content-addressed entry, ``CACHE/datasets/<content hash>`` — the entry the
runner's workers memory-map (:func:`ltrrepro.runner.materialize` finds it and writes nothing)
— with a small index ``CACHE/pooled/<key>.json`` from the files' signatures to it, so a
second load memory-maps the entry without parsing. Fold layouts read (and cache) only the
parts asked for.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .data import RankingDataset, content_hash, load_npy_dir, npy_dir_ok, save_npy_dir
from .fileio import atomic_write_text, default_cache_dir
from .svmlight import SVMLightFormatError, read_svmlight, scan_svmlight, source_signature
from .svmlight.reader import check_inferred_width
from .synthetic import PROFILES, make_synthetic

__all__ = ["DatasetSpec", "REGISTRY", "SYNTHETIC", "synthetic_profile", "is_synthetic", "base_dataset", "has_folds",
           "DatasetNotFoundError", "load_dataset", "load_fold", "user_files",
           "resolve_data_dir", "locate_fold", "DATA_DIR_ENV"]

DATA_DIR_ENV = "LTRREPRO_DATA_DIR"
_PARTS = ("train", "valid", "test")


class DatasetNotFoundError(FileNotFoundError):
    """The dataset's files are not where they were looked for."""


@dataclass(frozen=True)
class DatasetSpec:
    """A registered layout: ``files`` its official parts (``train``, ``valid``, ``test``; a
    layout without a validation file leaves ``valid`` out), ``instead`` a registered layout of
    the same publisher that a user may hold in its place (named when this one is missing)."""

    name: str
    title: str
    url: str
    dirnames: tuple            # usual folder names under a parent data directory
    files: dict                # part -> relative path, with {fold} for fold layouts
    n_folds: int
    n_features: int
    synthetic: str | None = None
    instead: str | None = None

    @property
    def parts(self) -> tuple:
        """The official parts the layout has, in the order train, valid, test."""
        return tuple(p for p in _PARTS if p in self.files)

    def layout(self, fold: int = 1) -> str:
        """The layout's files, comma-separated (``full/train.txt, full/test.txt``)."""
        return ", ".join(self.files[p].format(fold=fold) for p in self.parts)

    def paths(self, root: Path, fold: int = 1) -> dict[str, Path]:
        return {part: root / rel.format(fold=fold) for part, rel in self.files.items()}


_FOLD_FILES = {"train": "Fold{fold}/train.txt", "valid": "Fold{fold}/vali.txt",
               "test": "Fold{fold}/test.txt"}

REGISTRY: dict[str, DatasetSpec] = {
    "web30k": DatasetSpec("web30k", "MSLR-WEB30K", "https://www.microsoft.com/en-us/research/project/mslr/",
                          ("MSLR-WEB30K", "mslr-web30k", "web30k"), _FOLD_FILES, 5, 136, "web30k"),
    "web10k": DatasetSpec("web10k", "MSLR-WEB10K", "https://www.microsoft.com/en-us/research/project/mslr/",
                          ("MSLR-WEB10K", "mslr-web10k", "web10k"), _FOLD_FILES, 5, 136, "web30k"),
    "yahoo": DatasetSpec("yahoo", "Yahoo! Learning to Rank Challenge, Set 1",
                         "https://webscope.sandbox.yahoo.com/catalog.php?datatype=c (dataset C14)",
                         ("yahoo", "ltrc_yahoo", "Yahoo"),
                         {"train": "set1.train.txt", "valid": "set1.valid.txt", "test": "set1.test.txt"},
                         1, 700, "yahoo"),
    # the full Istella LETOR (Lyzhin et al.'s "Istella"): train and test only, no validation file
    "istella": DatasetSpec("istella", "Istella LETOR (full)", "https://istella.ai/datasets/letor-dataset/",
                           ("istella-letor", "istella", "ISTELLA"),
                           {"train": "full/train.txt", "test": "full/test.txt"}, 1, 220, None, instead="istella-s"),
    "istella-s": DatasetSpec("istella-s", "Istella-S LETOR", "https://istella.ai/datasets/letor-dataset/",
                             ("istella-s-letor", "istella-s", "ISTELLA-S", "istella"),
                             {"train": "sample/train.txt", "valid": "sample/vali.txt", "test": "sample/test.txt"},
                             1, 220, None),
    "mq2007": DatasetSpec("mq2007", "LETOR 4.0 MQ2007",
                          "https://www.microsoft.com/en-us/research/project/letor-learning-rank-information-retrieval/",
                          ("MQ2007", "mq2007"), _FOLD_FILES, 5, 46, None),
    "mq2008": DatasetSpec("mq2008", "LETOR 4.0 MQ2008",
                          "https://www.microsoft.com/en-us/research/project/letor-learning-rank-information-retrieval/",
                          ("MQ2008", "mq2008"), _FOLD_FILES, 5, 46, None),
}


#: the synthetic datasets by name -> the profile each draws (:data:`ltrrepro.synthetic.PROFILES`,
#: calibrated to the real dataset of the same name)
SYNTHETIC: dict[str, str] = {f"synthetic-{p}": p for p in PROFILES}


def synthetic_profile(name: str) -> str | None:
    """The synthetic profile a dataset name draws (``synthetic`` alone: ``web30k``), None for
    any other data: the one answer to "is this dataset synthetic".

    >>> synthetic_profile("synthetic-yahoo"), synthetic_profile("synthetic"), synthetic_profile("yahoo")
    ('yahoo', 'web30k', None)
    """
    if not name.startswith("synthetic"):
        return None
    return name.split("-", 1)[1] if "-" in name else "web30k"


def is_synthetic(name: str) -> bool:
    """The dataset is drawn, not read (:func:`synthetic_profile`)."""
    return synthetic_profile(name) is not None


def base_dataset(name: str) -> str:
    """The real dataset a name stands for: a synthetic profile's (``synthetic-yahoo`` ->
    ``yahoo``), else the name itself."""
    return synthetic_profile(name) or name


def has_folds(name: str) -> bool:
    """The dataset comes in official folds (MSLR, LETOR: five), so a study can train and test
    on them instead of random splits."""
    return name in REGISTRY and REGISTRY[name].n_folds > 1


def resolve_data_dir(data_dir=None) -> Path | None:
    """``data_dir`` if given, else ``$LTRREPRO_DATA_DIR``, else None."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env).expanduser() if env else None


def _find(path: Path) -> Path | None:
    for cand in (path, path.with_name(path.name + ".gz"), path.with_name(path.name + ".bz2")):
        if cand.exists():
            return cand
    return None


def _dataset_root(spec: DatasetSpec, root: Path, fold: int) -> Path:
    """The folder that holds the layout: ``root`` itself or ``root/<usual name>``."""
    for cand in (root, *[root / d for d in spec.dirnames]):
        if all(_find(p) for p in spec.paths(cand, fold).values()):
            return cand
    return root


def _holds(spec: DatasetSpec, root: Path, fold: int = 1) -> bool:
    """Every file of ``spec``'s layout is under ``root`` (or its usual sub-folder)."""
    return all(_find(p) for p in spec.paths(_dataset_root(spec, root, fold), fold).values())


def _locate(spec: DatasetSpec, data_dir, fold: int) -> dict[str, Path]:
    root = resolve_data_dir(data_dir)
    if root is None:
        raise DatasetNotFoundError(
            f"{spec.title}: no data directory given. Pass --data-dir DIR or set {DATA_DIR_ENV}; "
            f"DIR must hold {spec.layout(fold)} "
            f"(or a sub-folder {spec.dirnames[0]}/ with them). Get the data from {spec.url}.")
    base = _dataset_root(spec, root, fold)
    paths = spec.paths(base, fold)
    found = {part: _find(p) for part, p in paths.items()}
    missing = [str(paths[p]) for p in spec.parts if found[p] is None]
    if missing and spec.instead is not None and _holds(REGISTRY[spec.instead], root):
        other = REGISTRY[spec.instead]       # e.g. the Istella-S sample where the full Istella was named: one line
        raise DatasetNotFoundError(
            f"{spec.title}: missing {', '.join(missing)}; {root} holds {other.title} ({other.layout()}) instead: "
            f"for it use --dataset {other.name} ({spec.name} is the full dataset, {spec.layout(fold)}, {spec.url})")
    if missing:
        raise DatasetNotFoundError(
            f"{spec.title}: missing file(s) under {root}:\n  " + "\n  ".join(missing)
            + f"\nExpected layout: {spec.layout(fold)}"
            f" (plain, .gz or .bz2), either directly in {root} or in {root}/{spec.dirnames[0]}/."
            f"\nThe dataset is published at {spec.url}; it cannot be downloaded by ltrrepro.")
    return found  # type: ignore[return-value]


def locate_fold(name: str, data_dir=None, fold: int = 1) -> dict[str, Path]:
    """The files of fold ``fold`` (1-based) of a registered fold layout, or a
    :class:`DatasetNotFoundError` naming what is missing and where to get it (nothing is read)."""
    spec = REGISTRY[name]
    if not 1 <= fold <= spec.n_folds:
        raise ValueError(f"{spec.title} has folds 1..{spec.n_folds}")
    return _locate(spec, data_dir, fold)


def load_fold(name: str, data_dir=None, fold: int = 1, missing: str = "zero",
              cache_dir=None, parts=None) -> dict[str, RankingDataset]:
    """The official ``parts`` (default: every part the layout has, :attr:`DatasetSpec.parts`)
    of fold ``fold`` (1-based); only the parts asked for are read (and cached by the reader).
    A part the layout lacks (Istella's validation part) is a :class:`ValueError`."""
    spec = REGISTRY[name]
    parts = spec.parts if parts is None else tuple(parts)
    if not 1 <= fold <= spec.n_folds:
        raise ValueError(f"{spec.title} has folds 1..{spec.n_folds}")
    unknown = [p for p in parts if p not in spec.parts]
    if unknown:
        raise ValueError(f"{spec.title} has no part(s) {unknown}; its parts are {', '.join(spec.parts)}")
    paths = _locate(spec, data_dir, fold)
    return {part: read_svmlight(paths[part], n_features=spec.n_features, missing=missing, cache_dir=cache_dir,
                                name=f"{name}-fold{fold}-{part}")
            for part in parts}


_USER_PARTS = {"train": ("train", "training"), "valid": ("vali", "valid", "validation"), "test": ("test",)}
_USER_EXTS = ("", ".txt", ".svm", ".svmlight", ".libsvm", ".dat")


def _not_readable(p: Path) -> str | None:
    """Why ``p`` (known to exist, perhaps as a dangling link) is not a regular readable file,
    or None when it is one."""
    try:
        st = p.stat()
    except FileNotFoundError:
        return "is a symbolic link to a missing file"
    except OSError as err:
        return f"cannot be opened ({err.strerror or err})"
    if stat.S_ISDIR(st.st_mode):
        return "is a directory"
    if not stat.S_ISREG(st.st_mode):
        return ("is a FIFO / named pipe" if stat.S_ISFIFO(st.st_mode) else "is a socket" if stat.S_ISSOCK(st.st_mode)
                else "is a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "is a special file")
    if not os.access(p, os.R_OK):
        return "is not readable (permissions)"
    return None


def user_files(where) -> list[Path]:
    """The data files of a user's SVMlight/LETOR (or LightGBM-layout) dataset at ``where``:
    the file itself, or a directory's ``train``/``vali``/``test`` files (any of the usual
    extensions, plain, ``.gz`` or ``.bz2``; those present, in that order), or its only data
    file. Every candidate name that exists must be a regular readable file (through links): a
    directory, FIFO, socket, device, dangling link or link loop under such a name is an error
    naming it, never skipped (skipping ``train.txt`` would run on vali and test alone).
    Anything else is a :class:`DatasetNotFoundError` saying what was expected."""
    where = Path(where)
    if os.path.lexists(where) and not where.is_dir():
        why = _not_readable(where)
        if why is None:
            return [where]
        raise DatasetNotFoundError(f"{where}: {why}, not a regular readable file; ltrrepro reads a data file twice "
                                   f"(count, then parse): give a regular file or a directory of them")
    if not where.is_dir():
        raise DatasetNotFoundError(f"{where}: no such file or directory (your SVMlight/LETOR data)")
    found = []
    for names in _USER_PARTS.values():
        cands = [where / (n + e + c) for n in names for e in _USER_EXTS for c in ("", ".gz", ".bz2")]
        there = [p for p in cands if os.path.lexists(p)]
        for p in there:
            why = _not_readable(p)
            if why is not None:
                raise DatasetNotFoundError(
                    f"{p}: {why}, not a regular readable file, under a {p.name.split('.')[0]} data file's name "
                    f"(it is never skipped); make it one, move it away, or pass the files themselves "
                    f"(--dataset FILE, paths=...)")
        if there:
            found.append(there[0])
    if found:
        return found
    data = [f for f in sorted(where.iterdir()) if f.is_file() and not f.name.startswith(".")
            and not f.name.endswith((".query", ".group", ".md"))]
    if len(data) == 1:
        return data
    raise DatasetNotFoundError(
        f"{where}: expected train/vali/test files (e.g. train.txt, vali.txt, test.txt; .gz/.bz2 too) or a single "
        f"data file, found {', '.join(f.name for f in data) or 'no file'}; or pass one file as --dataset PATH")


def _pooled(name: str, data_dir, missing: str, cache_dir, paths=None, n_features=None) -> RankingDataset:
    """All queries of a registered dataset (or of the user's ``paths``), stored once as a
    content-addressed entry (see the module docstring) and returned memory-mapped from it."""
    if paths is None:
        spec = REGISTRY[name]
        located = _locate(spec, data_dir, 1)
        paths = [located[p] for p in spec.parts]
        n_features, title = spec.n_features, spec.title
    else:
        paths = [Path(p) for p in paths]
        title = f"the files {', '.join(map(str, paths))}"
        if n_features is None:      # one width for all parts: the largest index over the files
            widths = [scan_svmlight(p, cache_dir=cache_dir)["max_index"] for p in paths]
            n_features = max(widths)
            # inferred, not declared: the reader's bound applies (one mistyped index would
            # otherwise allocate rows x index floats and cache them), naming the line
            check_inferred_width(paths[int(np.argmax(widths))], n_features)
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    sigs = [source_signature(p) for p in paths]           # a sidecar's edits count as the file's
    key = hashlib.sha1(json.dumps({"signatures": sigs, "n_features": n_features, "missing": missing, "v": 2},
                                  sort_keys=True).encode()).hexdigest()[:20]
    index = root / "pooled" / f"{key}.json"
    try:
        known = json.loads(index.read_text())
        entry = root / "datasets" / known["entry"]
        if known["signatures"] == sigs and npy_dir_ok(entry, verify=True):
            if known.get("keyed"):
                _say(known["keyed"])
            return load_npy_dir(entry, name=name)
    except (OSError, ValueError, KeyError, TypeError):
        pass                                   # absent, damaged, edited or stale: parse again
    parts = [read_svmlight(p, n_features=n_features, missing=missing, use_cache=False, name=f"{name}-{p.name}")
             for p in paths]
    keyed = _key_parts(parts, paths)
    try:
        ds = parts[0] if len(parts) == 1 else RankingDataset.concat(parts, name=name)
    except ValueError as err:
        raise SVMLightFormatError(f"{title}: cannot pool them: {err}") from None
    del parts
    if keyed:
        ds.meta["qid_keying"] = keyed
        _say(keyed)
    entry = root / "datasets" / content_hash(ds)
    try:
        if not npy_dir_ok(entry, verify=True):
            save_npy_dir(ds, entry, {"name": name})
        atomic_write_text(index, json.dumps({"entry": entry.name, "signatures": sigs, "keyed": keyed}))
    except OSError:
        return ds                              # an unwritable cache: the runner falls back to the run directory
    out = load_npy_dir(entry, name=name)
    if keyed:
        out.meta["qid_keying"] = keyed
    return out


def _say(text: str) -> None:
    import sys
    print(f"note: {text}", file=sys.stderr)


def _key_parts(parts: list, paths: list) -> str | None:
    """Key each query by (part, qid) when the parts reuse query ids, in place.

    Each part of a user's dataset (train/vali/test) is its own set of queries; LightGBM's
    layout numbers every part's queries from 0, and other tools reuse ids too. When two parts
    share a qid, the pooled qid becomes ``part × B + qid`` with ``B`` the power of ten above
    every qid (part 0 keeps its ids; with ``B = 1000``, qid 17 of the third part reads 2017).
    Returns the sentence that says so (None when the ids are already distinct)."""
    if len(parts) < 2:
        return None
    allq = np.concatenate([p.query_ids for p in parts])
    if np.unique(allq).size == allq.size:
        return None
    low = int(allq.min())
    if low < 0:
        raise SVMLightFormatError(f"{', '.join(map(str, paths))}: the parts reuse query ids and some are "
                                  f"negative (qid {low}); give every query a distinct non-negative qid")
    base = 10 ** len(str(int(allq.max())))
    if base * len(parts) > 2**62:
        raise SVMLightFormatError(f"{', '.join(map(str, paths))}: the parts reuse query ids too large to key by "
                                  f"part; renumber the queries")
    for k, p in enumerate(parts):
        p.qid = p.qid + np.int64(k) * base
    names = ", ".join(f"{Path(q).name} {k}" for k, q in enumerate(paths))
    return (f"the parts reuse query ids, so each query is keyed by (part, qid): pooled qid = part × {base:,} + qid "
            f"(parts: {names})")


def load_dataset(name: str, data_dir=None, missing: str = "zero", cache_dir=None,
                 n_queries: int | None = None, seed: int = 0, paths=None,
                 n_features: int | None = None) -> RankingDataset:
    """All queries of a dataset in one :class:`RankingDataset` (the pooled protocol).

    ``name`` is a registry key (``web30k``, ``web10k``, ``yahoo``, ``istella`` (full: its train
    and test files), ``istella-s``, ``mq2007``, ``mq2008``), ``synthetic-web30k`` / ``synthetic-yahoo`` (drawn with
    ``n_queries`` and ``seed``), ``svmlight`` with explicit ``paths`` or a ``data_dir``
    (:func:`user_files`), or the path of a file or directory of the user's (their shared
    feature count is the largest index over the files unless ``n_features`` is given;
    LightGBM's layout with ``.query`` sidecars is read too).
    """
    profile = synthetic_profile(name)
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"unknown synthetic profile {profile!r}; known: {', '.join(PROFILES)}")
        return make_synthetic(profile, n_queries=n_queries, seed=seed)
    if name == "svmlight" or (name not in REGISTRY and Path(name).exists()):
        if not paths:
            where = data_dir if name == "svmlight" else name
            if where is None:
                raise DatasetNotFoundError("dataset 'svmlight': give the files (paths=...) or their directory "
                                           "(data_dir=..., --data-dir)")
            paths = user_files(where)
        label = "svmlight" if name == "svmlight" else Path(name).name
        return _pooled(label, None, missing, cache_dir, paths=paths, n_features=n_features)
    if name not in REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(REGISTRY)}, svmlight, {', '.join(SYNTHETIC)}")
    return _pooled(name, data_dir, missing, cache_dir)

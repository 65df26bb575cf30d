"""Stored runs across versions: the schema version of manifests and unit records, and the one
place where an older stored run is read as the current one.

Every manifest and unit record the store writes carries ``"schema": SCHEMA``; one written
before the version existed is schema 0. :func:`manifest` and :func:`record` bring a stored dict
to :data:`SCHEMA` by applying each step in turn (:data:`MANIFEST_STEPS`, :data:`RECORD_STEPS`:
step *i* reads schema *i* and returns schema *i* + 1), on read, in memory — a stored file is
rewritten only by the run that owns it, so a results directory copied from elsewhere is read
as it is. A run resumes a store of any older schema with nothing recomputed: a record is
*this configuration's* when its hash is the configuration's, or one the configuration had
before (:func:`accepted_hashes`), and the store then re-stamps it with the current hash.

Adding a field to a record or a manifest, or renaming one, is one step here (and
``SCHEMA`` + 1); no reader anywhere else guesses at older layouts.

Schema 2 records no machine path and no user name: a manifest's ``argv`` is the command as
typed, in module form (``python -m`` and the study's module, ``--out runs/q``), where schema 1 stored ``sys.argv``
(the script's absolute path first). :func:`manifest_1` rewrites an older ``argv`` (and those
of its ``history``) so; an argument that is an absolute path (``--out /tmp/run``) cannot be
given back as typed and becomes ``…/`` and its last component (``--out …/run``). The one
place a stored manifest is rewritten in place is a report rebuilt from the stored units (the
harness's ``report`` tool): it writes its run's manifest back at the current schema, which is
how the committed ``results/`` were brought to schema 2.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePosixPath

from .fileio import to_jsonable

__all__ = ["SCHEMA", "manifest", "record", "typed_command", "manifest_1", "accepted_hashes", "hashed_config",
           "config_hash", "UNHASHED"]

#: the schema of what the store writes now
SCHEMA = 2

#: configuration entries written to the manifest for readers but left out of the hash: the
#: protocol notes (deviations, choices, settings as the paper) are prose computed from the
#: fields, so re-wording a sentence, or moving it between columns, recomputes nothing
UNHASHED = ("deviations", "choices", "as_paper")


def config_hash(config: dict) -> str:
    blob = json.dumps(to_jsonable(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


def hashed_config(config: dict) -> dict:
    """The entries of a stored configuration that decide its hash (the prose left out)."""
    return {k: v for k, v in config.items() if k not in UNHASHED}


# ---------------------------------------------------------------------------------- steps 0 -> 1
def _manifest_0(man: dict) -> dict:
    """Schema 0 -> 1: Zheng's ``qbrank_params`` (``gbt-tuned`` | ``paper``) is ``shared_params``
    (``tuned`` | ``paper``) since the flag was renamed."""
    cfg = man.get("config")
    if isinstance(cfg, dict) and "qbrank_params" in cfg:
        cfg = dict(cfg)
        old = cfg.pop("qbrank_params")
        cfg.setdefault("shared_params", "paper" if old == "paper" else "tuned")
        man = {**man, "config": cfg}
    return man


def _record_0(rec: dict) -> dict:
    """Schema 0 -> 1: the system's identity (``family``, ``variant``) as the unit stores it now,
    from the registered system of its model where the record has none; Zheng's tree runs'
    ``info["shared_params"]`` from their own ``eta``/``leaves`` where it is missing."""
    out = dict(rec)
    unit = rec.get("unit")
    if not isinstance(rec.get("system"), dict) and isinstance(unit, dict) and "model" in unit:
        from .fit import SYSTEMS

        system = SYSTEMS.get(unit["model"])
        if system is not None:
            out["system"] = {"family": system.family, "variant": system.variant}
    info = rec.get("info")
    if isinstance(info, dict) and "shared_params" not in info and "leaves" in info and "eta" in info:
        out["info"] = {**info, "shared_params": {"eta": info["eta"], "leaves": info["leaves"]}}
    return out


# ---------------------------------------------------------------------------------- steps 1 -> 2
_ABSOLUTE = re.compile(r"^(/|[A-Za-z]:[\\/]|\\\\)")       # POSIX, a Windows drive, a UNC share


#: the package of the studies' commands (named here as a string: the library never imports it)
STUDIES = "experiments"


def _unplaced(arg: str) -> str:
    """An argument that is an absolute path (or ``--flag=/abs/path``) as ``…/`` and its last
    component; any other as it is.

    >>> _unplaced("/tmp/h40-default/run"), _unplaced("--out=/tmp/x/"), _unplaced("results/q")
    ('…/run', '--out=…/x', 'results/q')
    """
    flag, eq, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
    if not _ABSOLUTE.match(value):
        return arg
    name = PurePosixPath(value.replace("\\", "/").rstrip("/")).name
    return f"{flag}{eq}…/{name}"


def typed_command(argv):
    """A schema-1 ``argv`` (``sys.argv``) as the command typed: a study's script (``quality.py``
    in the studies' package, :data:`STUDIES`) as ``python -m`` and that package's module, the
    package's ``__main__.py`` as ``python -m`` and the package, another program by its name;
    absolute paths among the arguments as :func:`_unplaced`. One already in module form
    (``python -m …``) is kept.

    >>> typed = typed_command([f"/work/wt/h40/{STUDIES}/quality.py", "--tune", "20", "--out", "/tmp/h40/run"])
    >>> typed[:2], typed[2] == f"{STUDIES}.quality", typed[3:]
    (['python', '-m'], True, ['--tune', '20', '--out', '…/run'])
    >>> typed_command(["/usr/lib/python3/bin/pytest", "-q"]), typed_command(None)
    (['pytest', '-q'], None)
    """
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return argv
    if argv[0] == "python" and argv[1:2] == ["-m"]:
        return [*argv[:3], *map(_unplaced, argv[3:])]
    script = PurePosixPath(argv[0].replace("\\", "/"))
    if script.suffix == ".py" and script.parent.name == STUDIES:
        head = ["python", "-m", STUDIES if script.stem == "__main__" else f"{STUDIES}.{script.stem}"]
    else:
        head = [script.name]
    return [*head, *map(_unplaced, argv[1:])]


def manifest_1(man: dict) -> dict:
    """Schema 1 -> 2: ``argv`` and each ``history`` entry's as the command typed
    (:func:`typed_command`); the machine's ``user`` left out."""
    out = {**man, "argv": typed_command(man.get("argv"))}
    if isinstance(man.get("history"), list):
        out["history"] = [{**h, "argv": typed_command(h.get("argv"))} if isinstance(h, dict) else h
                          for h in man["history"]]
    if isinstance(man.get("machine"), dict):
        out["machine"] = {k: v for k, v in man["machine"].items() if k != "user"}
    return out


def _record_1(rec: dict) -> dict:
    """Schema 1 -> 2: a unit record holds no path nor user name; nothing changes."""
    return rec


#: step i brings a manifest of schema i to schema i + 1
MANIFEST_STEPS = (_manifest_0, manifest_1)
#: step i brings a unit record of schema i to schema i + 1
RECORD_STEPS = (_record_0, _record_1)
assert len(MANIFEST_STEPS) == len(RECORD_STEPS) == SCHEMA


def _migrate(d: dict, steps) -> dict:
    version = d.get("schema", 0)
    if not isinstance(version, int) or version > SCHEMA:
        return d                     # a newer harness wrote it: read as it is (the store warns on resume)
    for step in steps[version:]:
        d = step(d)
    return {**d, "schema": SCHEMA}


def manifest(man: dict) -> dict:
    """A stored manifest at the current schema."""
    return _migrate(man, MANIFEST_STEPS)


def record(rec: dict) -> dict:
    """A stored unit record at the current schema."""
    return _migrate(rec, RECORD_STEPS)


def accepted_hashes(config: dict, stored_manifest: dict | None) -> set:
    """The hashes other than the current one under which ``config``'s records may be stored:
    the hash it had when the prose was hashed too (stores written before :data:`UNHASHED`),
    and the hash a stored manifest recorded when its configuration, brought to the current
    schema, is this one but for the prose (a renamed field, re-worded notes)."""
    if not any(k in config for k in UNHASHED):
        return set()
    out = {config_hash(config)}
    man = manifest(stored_manifest) if isinstance(stored_manifest, dict) else {}
    cfg, h = man.get("config"), man.get("config_hash")
    if isinstance(cfg, dict) and isinstance(h, str) and config_hash(hashed_config(cfg)) == \
            config_hash(hashed_config(config)):
        out.add(h)
    return out

"""The child process of an isolated unit (:func:`ltrrepro.runner._run_isolated`).

    python -m ltrrepro.isolated JOB.pickle

The job file holds two pickles: the parent's ``sys.path`` (read first, because the unit
function and the plug-in are unpickled by reference and only that path finds them), then
the job (parent pid, unit function, unit, context, result path). The child runs the unit and
writes ``("ok", (record, arrays))`` or ``("failed", (error, traceback))`` to the result path,
atomically; a process that dies (a segfault, ``os._exit``) writes nothing, and the parent
names how it ended. The child exits when its parent is gone.
"""
from __future__ import annotations

import os
import pickle
import sys
import traceback


def main(job_path: str) -> int:
    with open(job_path, "rb") as fh:
        sys.path[:] = pickle.load(fh)
        job = pickle.load(fh)
    from ltrrepro.runner import _set_threads, _watch_parent, seed_globals

    _watch_parent(int(job["parent_pid"]))
    _set_threads(int(job["ctx"].get("threads", 1)))
    try:
        with seed_globals(job["unit"]):          # the unit's global random state, whatever --jobs
            out = ("ok", job["fn"](job["unit"], job["ctx"]))
    except SystemExit as err:
        out = ("failed", (f"SystemExit: the unit called sys.exit({err.code!r}); a unit must return or raise",
                          traceback.format_exc()))
    except BaseException as err:  # noqa: BLE001 - sent to the parent, which records it
        out = ("failed", (f"{type(err).__name__}: {err}", traceback.format_exc()))
    tmp = job["result"] + ".tmp"
    with open(tmp, "wb") as fh:
        pickle.dump(out, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, job["result"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""The results store (ltrrepro.store): atomic records, the configuration kept, failures recorded."""
import json

import numpy as np

from ltrrepro.store import ResultStore


def test_store_atomic_records_config_and_failures(tmp_path):
    st_ = ResultStore(tmp_path / "run", {"a": 1})
    st_.start("demo", argv=["x"])
    st_.write("d/t000/base/m", {"means": {"ndcg@5": 0.5}}, {"v": np.arange(3.0)})
    assert st_.is_done("d/t000/base/m") and not st_.is_done("d/t001/base/m")
    np.testing.assert_array_equal(st_.arrays("d/t000/base/m")["v"], [0, 1, 2])
    assert not list((tmp_path / "run" / "units").glob(".*"))           # no temporary file left
    other = ResultStore(tmp_path / "run", {"a": 2})
    assert not other.is_done("d/t000/base/m") and other.stale(["d/t000/base/m"]) == ["d/t000/base/m"]
    st_.write_failure("d/t001/base/m", {"error": "boom", "traceback": "tb"})
    assert st_.failures()[0]["error"] == "boom"
    st_.write("d/t001/base/m", {"means": {}})
    assert st_.failures() == []                                         # cleared once it succeeds
    st_.finish("ok")
    man = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert man["status"] == "ok" and man["versions"]["lightgbm"] and man["config"] == {"a": 1}
    assert ResultStore.open(tmp_path / "run").config_hash == st_.config_hash

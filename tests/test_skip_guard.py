"""The suite fails when a test skips without saying why it may (tests/conftest.py): a skipped
test is a test that did not run, so it must never pass unnoticed."""
from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).resolve().parent / "conftest.py").read_text(encoding="utf-8")


def test_an_unmarked_skip_fails_the_run(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_x="""
        import pytest
        def test_runs():
            assert True
        def test_skips():
            pytest.skip("data not available")
    """)
    res = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1, skipped=1)
    assert res.ret == 1
    res.stdout.fnmatch_lines(["*skipped tests without an allowed_skip marker*", "*test_skips*data not available*"])


def test_a_marked_skip_is_allowed(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_y="""
        import pytest
        def test_runs():
            assert True
        @pytest.mark.allowed_skip(reason="needs a GPU, which CI never has")
        def test_gpu():
            pytest.skip("no GPU")
    """)
    res = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=1, skipped=1)
    assert res.ret == 0

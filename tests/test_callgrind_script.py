"""``benchmarks/callgrind.py``: its reading of callgrind's report, and its error without
valgrind (the count itself takes minutes under valgrind: run by hand, see the README)."""

import pytest
from tests.benchmark_scripts import load_benchmark_script

# callgrind_annotate's rows for one PokeJAX run (64 envs x 16 steps), abridged.
REPORT = """\
--------------------------------------------------------------------------------
74,462,787 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
47,641,069 (63.98%)  ???:0x000000007b666000 [???]
 6,979,011 ( 9.37%)  ???:Eigen::ThreadPoolTempl<tsl::thread::EigenEnvironment>::GlobalSteal() [/x/libjax_common.so]
 5,949,347 ( 7.99%)  ./string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:__memcpy_avx_unaligned_erms [/usr/lib/x86_64-linux-gnu/libc.so.6]
 2,001,920 ( 2.69%)  ./string/../sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S:__memset_avx2_unaligned_erms [/usr/lib/x86_64-linux-gnu/libc.so.6]
 1,844,288 ( 2.48%)  ???:0x000000007bf95000 [???]
"""


@pytest.fixture(scope="module")
def callgrind():
    return load_benchmark_script("callgrind")


def test_the_report_splits_into_kernel_jit_code_copies_and_runtime(callgrind):
    counts = callgrind.parse_annotation(REPORT)
    assert counts.total == 74_462_787
    assert counts.kernel == 47_641_069
    assert counts.jit_code == 47_641_069 + 1_844_288
    assert counts.memcpy == 5_949_347
    assert counts.memset == 2_001_920
    assert counts.runtime == 74_462_787 - 47_641_069 - 1_844_288 - 5_949_347 - 2_001_920


def test_text_that_is_not_a_report_is_refused(callgrind):
    with pytest.raises(ValueError, match="PROGRAM TOTALS"):
        callgrind.parse_annotation("valgrind: command not found\n")


def test_without_valgrind_it_says_what_to_install(callgrind, monkeypatch, capsys):
    monkeypatch.delenv(callgrind._INNER, raising=False)
    monkeypatch.setattr(callgrind.shutil, "which", lambda tool: None)
    with pytest.raises(SystemExit):
        callgrind.main(["--env", "PokeJAX"])
    assert "install valgrind" in capsys.readouterr().err

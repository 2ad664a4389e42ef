"""``fast_path_only``: a test of what the XLA:CPU fast path compiles, skipped where the gate
keeps it off (``JAXENVS_CPU_KERNELS=0``, an untested jax, no CPU backend)."""

import pytest

from jaxenvs._src import gate

fast_path_only = pytest.mark.skipif(not gate.enabled(),
                                    reason="the XLA:CPU fast path does not run here")

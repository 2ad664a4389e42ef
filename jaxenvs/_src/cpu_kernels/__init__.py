"""The XLA:CPU fast path: the environments' batched forms as plain compiled loops on a CPU.

It reaches into JAX's internals (README.md beside this file says where, and the versions it is
tested with), so nothing imports it but the gate (``jaxenvs._src.gate``), and only where that
lets it run; the modules beside the gate call it through their plain-JAX fronts.
"""

from jaxenvs._src.cpu_kernels import (barrier, branches, kernel, kernel_rewrite, lazy_vmap,
                                      loop_vmap, rounds, threefry)

__all__ = ["barrier", "branches", "kernel", "kernel_rewrite", "lazy_vmap", "loop_vmap",
           "rounds", "threefry"]

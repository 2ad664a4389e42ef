"""Machinery shared by the environments (private).

The rules of the game engines and the physics stages are written with the control flow of the
front modules here (``branches``, ``barrier``, ``rounds``, ``loop_vmap``, ``kernel``,
``keys``, ``batching``): each gives the XLA:CPU fast path (``cpu_kernels``) where the one gate
(``gate``) lets it run, and plain JAX everywhere else, with the same results.
"""

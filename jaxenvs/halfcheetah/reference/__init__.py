"""HalfCheetah against its reference, MuJoCo's C library running gymnasium's HalfCheetah-v5.

The adapter, the comparisons (L2-L4) and ``jaxenvs verify HalfCheetah`` are the planar
bodies' (``jaxenvs.planar_reference``). Importing this package registers the suite and the references of ``jaxenvs bench
HalfCheetah`` (MuJoCo C, MJX, Brax); MuJoCo and gymnasium are imported when they are used
(``pip install jaxenvs[mujoco]``). The env never imports any of it.
"""

from jaxenvs.planar_reference.registration import register_body

register_body("HalfCheetah")

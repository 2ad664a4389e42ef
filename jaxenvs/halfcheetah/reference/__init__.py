"""HalfCheetah against its reference, MuJoCo's C library running gymnasium's HalfCheetah-v5.

The adapter, the one-step (L2) and rollout (L3) comparisons and ``jaxenvs verify`` are the
planar bodies' (``jaxenvs.planar_reference``); ``transfer`` plays a trained policy in both
engines (L4). Importing this package registers the suite and the references of ``jaxenvs bench
HalfCheetah`` (MuJoCo C, MJX, Brax); MuJoCo and gymnasium are imported when they are used
(``pip install jaxenvs[halfcheetah]``). The env never imports any of it.
"""

from jaxenvs.planar_reference.registration import register_body

register_body("HalfCheetah")

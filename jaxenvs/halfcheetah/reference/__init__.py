"""HalfCheetah against its reference, MuJoCo's C library running gymnasium's HalfCheetah-v5.

``mujoco_c`` is the adapter (a state injected into ``MjData``, what each stage gives back);
``agreement`` compares one env step from MuJoCo's states (L2), ``horizons`` whole rollouts
(L3), ``transfer`` a trained policy in both (L4); ``verification`` is ``jaxenvs verify
HalfCheetah``. Importing this package registers it and the references of ``jaxenvs bench
HalfCheetah`` (MuJoCo C, MJX, Brax: ``jaxenvs.planar_reference.speed``); MuJoCo and gymnasium are imported when they are
used (``pip install jaxenvs[halfcheetah]``). The env never imports any of it.
"""

from jaxenvs.halfcheetah.reference import mujoco_c
from jaxenvs.planar_reference.speed import register_speed_references
from jaxenvs.verify.suite import ReferenceInfo, register_suite

register_speed_references("HalfCheetah")
# by name: the suite imports this package's modules
register_suite("HalfCheetah", "jaxenvs.halfcheetah.reference.verification:halfcheetah_suite",
               reference=ReferenceInfo("MuJoCo's C library running gymnasium's HalfCheetah-v5",
                                       mujoco_c.versions))

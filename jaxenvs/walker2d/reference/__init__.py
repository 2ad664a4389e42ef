"""Walker2d against its reference, MuJoCo's C library running gymnasium's Walker2d-v5.

The adapter, the comparisons and ``jaxenvs verify Walker2d`` are the planar bodies'
(``jaxenvs.planar_reference``). Importing this package registers the suite and the references
of ``jaxenvs bench Walker2d`` (MuJoCo C, MJX, Brax); MuJoCo and gymnasium are imported when
they are used (``pip install jaxenvs[mujoco]``). The env never imports any of it.
"""

from jaxenvs.planar_reference.registration import register_body

register_body("Walker2d")

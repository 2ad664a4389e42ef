"""The MuJoCo side the planar bodies' references share: which XML each body is (``bodies``),
the adapter to MuJoCo's C library (``mujoco_c``), one env step from many states (``agreement``,
L2), rollout horizons (``horizons``, L3), ``jaxenvs verify`` (``verification``) and the MuJoCo
C, MJX and Brax rows of ``jaxenvs bench`` (``speed``); ``registration`` registers a body's
suite and rows. MuJoCo, gymnasium, MJX and Brax are imported only where used; no env imports
this package.
"""

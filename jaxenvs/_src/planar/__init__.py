"""A planar port of MuJoCo's pipeline, stage by stage, for bodies that move in the x-z plane
(a slide-slide-hinge root, hinge joints, capsules against a floor plane).

Every stage takes the body's ``model.PlanarModel`` first, as MJX's functions take an
``mjx.Model``; each body's model comes from a table that ``tools/planar_model.py`` generates
from MuJoCo's compiled model. Read in this order: ``model``, ``kinematics``, ``dynamics``
(mass matrix, bias, passive and actuator forces), ``contact`` (capsule-floor contacts and joint
limits), ``constraint`` (rows, impedance, regularisers), ``solver`` (Newton on MuJoCo's primal
cost) and ``integrator`` (``forward`` and ``step``); ``linalg`` holds the fixed-order sums and
solves, ``batching`` the bitwise batch invariance.
"""

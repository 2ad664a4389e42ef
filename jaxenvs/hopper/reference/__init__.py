"""Hopper against its reference, MuJoCo's C library running gymnasium's Hopper-v5.

Importing this package registers the references of ``jaxenvs bench Hopper`` (MuJoCo C, MJX,
Brax: ``jaxenvs.planar_reference.speed``); MuJoCo and gymnasium are imported when they are
used (``pip install jaxenvs[halfcheetah]``). The env never imports any of it.
"""

from jaxenvs.planar_reference.speed import register_speed_references

register_speed_references("Hopper")

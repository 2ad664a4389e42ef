"""The MuJoCo side the planar bodies' references share: which XML each body is (``bodies``)
and the MuJoCo C, MJX and Brax rows of ``jaxenvs bench`` (``speed``). MuJoCo, gymnasium,
MJX and Brax are imported only where used; no env imports this package.
"""

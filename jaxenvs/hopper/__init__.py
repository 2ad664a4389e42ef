"""Hopper: gymnasium's Hopper-v5 body on the planar physics (``jaxenvs._src.planar``). The
package holds its model (``_src``), which the stages are checked against MuJoCo on
(``tests/planar``)."""

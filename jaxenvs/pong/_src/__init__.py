"""Pong's rules (``rules``): reset, the deterministic step and the observation, as in the C."""

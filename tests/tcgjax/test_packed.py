"""``jaxenvs.tcgjax._src.packed``: packed fields read and written by name, as plain fields were."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.tcgjax._src import packed
from jaxenvs.tcgjax._src.state import PLAYER_COUNTERS, SLOT_FACTS, PlayerState, empty_player


def _player() -> tuple[PlayerState, dict]:
    """A player whose every packed value differs from every other, and its values by name."""
    fields = {name: np.asarray(getattr(empty_player(), name))
              for name in packed.field_names(PlayerState)}
    for k, name in enumerate(PLAYER_COUNTERS.names):
        fields[name] = np.bool_(k % 2) if name in PLAYER_COUNTERS.flags else np.int32(10 + k)
    for k, name in enumerate(SLOT_FACTS.names):
        fields[name] = np.arange(4, dtype=np.int32) + 100 * (k + 1)
    return PlayerState.from_fields(**fields), fields


def test_names_read_back_what_was_built():
    me, fields = _player()
    assert isinstance(me.counters, np.ndarray)  # numpy in, numpy out
    for name, value in fields.items():
        np.testing.assert_array_equal(getattr(me, name), value, err_msg=name)
    assert me.supporter_played.dtype == bool and me.retreated.dtype == bool
    assert set(packed.field_names(PlayerState)) == set(fields)


def test_replace_by_name_changes_that_value_only():
    me, fields = _player()
    new = jax.jit(lambda me: me.replace(deck_size=7, retreated=True,
                                        damage=jnp.array([1, 2, 3, 4])))(me)
    changed = {"deck_size": 7, "retreated": True, "damage": [1, 2, 3, 4]}
    for name, value in fields.items():
        np.testing.assert_array_equal(getattr(new, name), changed.get(name, value),
                                      err_msg=name)


def test_replace_on_stacked_players_writes_each_player():
    me, _ = _player()
    both = jax.tree.map(lambda x: np.stack([x, x]), me)
    new = both.replace(points=jnp.array([1, 2]), entered_turn=jnp.zeros((2, 4), jnp.int32))
    np.testing.assert_array_equal(new.points, [1, 2])
    np.testing.assert_array_equal(new.entered_turn, np.zeros((2, 4)))
    np.testing.assert_array_equal(new.hand_size, both.hand_size)


def test_unknown_name_is_refused():
    me, _ = _player()
    with pytest.raises(TypeError):
        me.replace(deck_sise=3)
    with pytest.raises(TypeError):
        dataclasses.replace(me, deck_size=3)  # the packed names are not dataclass fields

"""Named int32 values packed into one array of a state pytree, read and written by name.

A game state has many small fields: a player's deck size, points and Energy Zone, each slot's
damage and turns. Kept as a leaf each, they cost twice in a compiled step
(``docs/game-engines-on-cpu.md``): every ``switch`` and loop builds a table of one pointer per
leaf it passes on (TCGJax's step switch builds one per branch at every decision), and each env's
state is copied in and out of the batch leaf by leaf, element by element. Packed along the last
axis of one array, they are one leaf, and the code still reads ``me.deck_size`` and writes
``me.replace(deck_size=...)``.

``packs(*groups)`` decorates a ``flax.struct.dataclass`` whose field ``group.leaf`` holds the
values ``group.names`` (in that order along its last axis, any leading axes before: a batch, or
``GameState.players``' two players): a property per name (a flag reads as bool), ``replace``
taking the names (the array rebuilt from its columns: a fused write then computes each
entry from its own column alone, where a select per name computed every new value for every
entry, the plain ``vmap`` form's largest cost) and
``from_fields`` building the dataclass from every name (numpy in, numpy out). ``field_names``
lists every name of such a class.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, NamedTuple

import jax.numpy as jnp
import numpy as np


class Group(NamedTuple):
    """Values packed along the last axis of the field ``leaf``."""

    leaf: str
    names: dict[str, str]
    """Each value's name and docstring, in order along the axis."""
    flags: tuple[str, ...] = ()
    """Names that read as bool (stored 0/1)."""


def packs(*groups: Group) -> Callable[[type], type]:
    """Class decorator (module docstring); apply it over ``struct.dataclass``."""

    def decorate(cls: type) -> type:
        for group in groups:
            for k, (name, doc) in enumerate(group.names.items()):
                setattr(cls, name, property(_reader(group.leaf, k, name in group.flags),
                                            doc=doc))
        cls.replace = _replace  # flax's dataclass had set it to ``dataclasses.replace``
        cls.from_fields = classmethod(_from_fields)
        cls._packed_groups = groups
        return cls

    return decorate


def field_names(cls: type) -> tuple[str, ...]:
    """Every field of ``cls`` by name: its own fields, each packed leaf replaced by its
    names."""
    groups = {group.leaf: tuple(group.names) for group in cls._packed_groups}
    return tuple(name for field in dataclasses.fields(cls)
                 for name in groups.get(field.name, (field.name,)))


def _reader(leaf: str, k: int, flag: bool) -> Callable:
    def read(self):
        value = getattr(self, leaf)[..., k]
        return value > 0 if flag else value

    return read


def _replace(self, **changes):
    """``dataclasses.replace`` that also takes the packed names."""
    for group in self._packed_groups:
        named = {name: changes.pop(name) for name in group.names if name in changes}
        if named:
            array = changes.get(group.leaf, getattr(self, group.leaf))
            columns = [jnp.broadcast_to(jnp.asarray(named[name]).astype(array.dtype),
                                        array.shape[:-1]) if name in named else array[..., k]
                       for k, name in enumerate(group.names)]
            changes[group.leaf] = jnp.stack(columns, axis=-1)
    return dataclasses.replace(self, **changes)


def _from_fields(cls, **fields):
    """An instance from every field by name (``field_names``); each packed leaf numpy if its
    values are."""
    for group in cls._packed_groups:
        values = [fields.pop(name) for name in group.names]
        xp = np if all(isinstance(v, (np.ndarray, np.generic)) for v in values) else jnp
        fields[group.leaf] = xp.stack([xp.asarray(v).astype(np.int32) for v in values], axis=-1)
    return cls(**fields)

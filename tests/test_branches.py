"""``jaxenvs._src.cpu_kernels.branches``: ``switch`` and ``cond`` give ``lax.switch``'s and
``lax.cond``'s results in every form, and their batched form leaves the operands the batch
shares (a closed-over table among them) unbroadcast; ``first_rows`` through the gate."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src import branches as gated
from jaxenvs._src import gate
from jaxenvs._src.cpu_kernels import branches
from tests.fast_path import fast_path_only

TABLE = jnp.arange(1000 * 13, dtype=jnp.int32).reshape(1000, 13)


def _look_up(row, col):
    return TABLE[row, col]


def _negate(row, col):
    return -row


def _square(row, col):
    return row * row


BRANCHES = (_look_up, _negate, _square)


def _expected(index, row, col):
    return jax.lax.switch(index, BRANCHES, row, col)


def _table_sized_broadcasts(jaxpr, batch):
    """The broadcasts in ``jaxpr`` (and the jaxprs inside it) to ``(batch, *TABLE.shape)``."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "broadcast_in_dim" and \
                tuple(eqn.outvars[0].aval.shape) == (batch, *TABLE.shape):
            found.append(eqn)
        for param in eqn.params.values():
            for inner in (param if isinstance(param, (list, tuple)) else [param]):
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    found += _table_sized_broadcasts(inner, batch)
    return found


def test_unbatched_calls_are_lax_switch_with_the_index_clamped():
    for index in (-3, 0, 1, 2, 7):
        for call in (branches.switch, jax.jit(branches.switch, static_argnums=1)):
            got = call(jnp.int32(index), BRANCHES, jnp.int32(5), jnp.int32(3))
            assert int(got) == int(_expected(index, jnp.int32(5), jnp.int32(3)))


def _assert_batched_switch_exact_without_table_copies(switch):
    """``switch`` (a ``branches.switch``) under ``vmap`` with a batched index gives
    ``lax.switch``'s results, and its jaxpr holds no broadcast of ``TABLE`` to the batch."""
    index = jnp.asarray([0, 1, 2, 0, 5, -1], jnp.int32)
    rows = jnp.asarray([3, 4, 5, 999, 7, 8], jnp.int32)
    cols = jnp.asarray([0, 12, 1, 12, 2, 3], jnp.int32)
    ours = jax.vmap(lambda i, r, c: switch(i, BRANCHES, r, c))
    np.testing.assert_array_equal(jax.jit(ours)(index, rows, cols),
                                  jax.vmap(_expected)(index, rows, cols))
    assert not _table_sized_broadcasts(jax.make_jaxpr(ours)(index, rows, cols).jaxpr, 6)
    # the failure this module exists for: jax's batched cond copies the table per element
    assert _table_sized_broadcasts(jax.make_jaxpr(jax.vmap(_expected))(index, rows, cols).jaxpr,
                                   6)


def test_a_batched_index_selects_each_elements_branch_without_broadcasting_the_table():
    _assert_batched_switch_exact_without_table_copies(branches.switch)


def test_the_plain_form_gives_lax_switchs_results_without_broadcasting_the_table(monkeypatch):
    monkeypatch.setenv(gate.ENV_VAR, "0")
    _assert_batched_switch_exact_without_table_copies(gated.switch)
    state = _counts_and_table()
    for pred in (True, False):
        jax.tree.map(np.testing.assert_array_equal,
                     jax.jit(gated.when, static_argnums=1)(jnp.bool_(pred), _add_row, state, 1),
                     _add_row(state, 1) if pred else state)
    preds = jnp.asarray([True, False, True])
    got = jax.jit(jax.vmap(lambda p, r: gated.when(p, _add_row, state, r)))(
        preds, jnp.asarray([1, 2, 3], jnp.int32))
    np.testing.assert_array_equal(got["counts"], np.arange(4) + np.asarray([[1], [0], [3]]))
    indices = jnp.asarray([2, 0, 1, 0], jnp.int32)
    rows = jnp.asarray([1, 2, 3, 4], jnp.int32)
    want = jax.vmap(lambda i, r: jax.lax.switch(i, UPDATES, state, r))(indices, rows)
    jax.tree.map(np.testing.assert_array_equal, jax.jit(jax.vmap(
        lambda i, r: gated.switch_in_place(i, UPDATES, state, r)))(indices, rows), want)


def test_a_shared_index_runs_one_branch_over_the_batched_operands():
    rows = jnp.asarray([3, 4, 5], jnp.int32)
    for index in (0, 1, 2):
        ours = jax.vmap(lambda r, c: branches.switch(jnp.int32(index), BRANCHES, r, c),
                        in_axes=(0, None))
        np.testing.assert_array_equal(ours(rows, jnp.int32(4)),
                                      jax.vmap(_expected, (None, 0, None))(index, rows, 4))
        jaxpr = jax.make_jaxpr(ours)(rows, jnp.int32(4)).jaxpr
        assert [e.primitive.name for e in jaxpr.eqns].count("cond") == 1


def test_a_shared_setting_runs_one_branch_in_the_plain_form(monkeypatch):
    monkeypatch.setenv(gate.ENV_VAR, "0")
    rows = jnp.asarray([3, 4, 5], jnp.int32)
    for index in (1, 0):
        ours = jax.vmap(lambda r, i: gated.switch_on_setting(i, (_negate, _look_up), r, 2),
                        in_axes=(0, None))
        np.testing.assert_array_equal(jax.jit(ours)(rows, jnp.int32(index)),
                                      TABLE[rows, 2] if index else -rows)
        names = [e.primitive.name for e in jax.make_jaxpr(ours)(rows, jnp.int32(index)).eqns]
        assert names.count("cond") == 1 and "select_n" not in names
    batched = jax.vmap(lambda r, i: gated.switch_on_setting(i, (_negate, _look_up), r, 2))
    np.testing.assert_array_equal(batched(rows, jnp.asarray([1, 0, 1])),
                                  jnp.asarray([TABLE[3, 2], -4, TABLE[5, 2]]))


def test_cond_takes_pytrees_and_result_shapes_as_declared():
    def true_fun(state, x):
        return {"a": state["a"] + x, "b": state["b"]}, x > 0

    def false_fun(state, x):
        return {"a": state["a"] - x, "b": ~state["b"]}, x < 0

    def ours(pred, state, x):
        return branches.cond(pred, true_fun, false_fun, state, x,
                             result_shapes=(state, jnp.bool_(False)))

    def jaxs(pred, state, x):
        return jax.lax.cond(pred, true_fun, false_fun, state, x)

    preds = jnp.asarray([True, False, True, False])
    state = {"a": jnp.arange(4, dtype=jnp.int32), "b": jnp.asarray([True, False, False, True])}
    xs = jnp.asarray([1, -2, 0, 3], jnp.int32)
    for got, want in ((jax.vmap(ours)(preds, state, xs), jax.vmap(jaxs)(preds, state, xs)),
                      (jax.jit(ours)(True, jax.tree.map(lambda v: v[0], state), xs[0]),
                       jaxs(True, jax.tree.map(lambda v: v[0], state), xs[0]))):
        jax.tree.map(np.testing.assert_array_equal, got, want)


def _add_row(state, row):
    return {"counts": state["counts"] + row, "table": state["table"]}


def _counts_and_table():
    """A state for ``when``: what it updates and what it passes through."""
    return {"counts": jnp.arange(4, dtype=jnp.int32), "table": TABLE[:3]}


def test_when_runs_fun_where_pred_holds_else_returns_the_state_in_every_form():
    state = _counts_and_table()
    row = jnp.int32(10)
    for pred in (True, False):
        for call in (branches.when, jax.jit(branches.when, static_argnums=1)):
            got = call(jnp.bool_(pred), _add_row, state, row)
            want = _add_row(state, row) if pred else state
            jax.tree.map(np.testing.assert_array_equal, got, want)
    preds = jnp.asarray([True, False, True])
    rows = jnp.asarray([1, 2, 3], jnp.int32)
    batched = jax.jit(jax.vmap(lambda p, r: branches.when(p, _add_row, state, r)))(preds, rows)
    np.testing.assert_array_equal(batched["counts"],
                                  np.arange(4) + np.asarray([[1], [0], [3]]))
    np.testing.assert_array_equal(batched["table"], np.broadcast_to(TABLE[:3], (3, 3, 13)))


def test_an_unbatched_when_is_a_loop_that_updates_the_state_in_place_not_a_conditional():
    state = _counts_and_table()
    text = jax.jit(lambda p, s: branches.when(p, _add_row, s, jnp.int32(1))).lower(
        jnp.bool_(True), state).as_text()
    assert "stablehlo.while" in text and "stablehlo.case" not in text


def _double_counts(state, row):
    return {"counts": state["counts"] * 2, "table": state["table"]}


def _count_table_rows(state, row):
    return {"counts": state["counts"] + jnp.sum(state["table"][:, 0]) + row,
            "table": state["table"]}


UPDATES = (_add_row, _double_counts, _count_table_rows)


def test_switch_in_place_gives_lax_switchs_result_in_every_form():
    state = _counts_and_table()
    row = jnp.int32(10)
    for index in (-1, 0, 1, 2, 3):  # clamped, as lax.switch
        want = jax.lax.switch(index, UPDATES, state, row)
        for call in (branches.switch_in_place,
                     jax.jit(branches.switch_in_place, static_argnums=1)):
            jax.tree.map(np.testing.assert_array_equal,
                         call(jnp.int32(index), UPDATES, state, row), want)
    indices = jnp.asarray([2, 0, 1, 0], jnp.int32)
    rows = jnp.asarray([1, 2, 3, 4], jnp.int32)
    want = jax.vmap(lambda i, r: jax.lax.switch(i, UPDATES, state, r))(indices, rows)
    batched = jax.jit(jax.vmap(
        lambda i, r: branches.switch_in_place(i, UPDATES, state, r)))(indices, rows)
    jax.tree.map(np.testing.assert_array_equal, batched, want)
    shared = jax.jit(jax.vmap(lambda r: branches.switch_in_place(
        jnp.int32(1), UPDATES, state, r)))(rows)
    jax.tree.map(np.testing.assert_array_equal, shared,
                 jax.vmap(lambda r: _double_counts(state, r))(rows))


def test_an_unbatched_switch_in_place_is_loops_that_update_the_state_not_a_conditional():
    text = jax.jit(lambda i, s: branches.switch_in_place(i, UPDATES, s, jnp.int32(1))).lower(
        jnp.int32(1), _counts_and_table()).as_text()
    assert text.count("stablehlo.while") == len(UPDATES) and "stablehlo.case" not in text


def _row_of(i, base):
    """Row ``i`` of a table: ``base + i`` and the table's entry there."""
    return jnp.stack([base + i, TABLE[i, 0]])


def _rows_expected(count, base):
    rows = np.stack([[base + i, int(TABLE[i, 0])] for i in range(6)])
    return np.where((np.arange(6) < count)[:, None], rows, 0)


def test_first_rows_computes_the_rows_below_count_and_zeros_after_in_every_form():
    counts = jnp.asarray([0, 2, 6, 9], jnp.int32)  # 9: past the table, all rows
    bases = jnp.asarray([5, 7, 1, 3], jnp.int32)
    want = np.stack([_rows_expected(c, b) for c, b in zip([0, 2, 6, 9], [5, 7, 1, 3])])

    def table(count, base):
        return gated.first_rows(_row_of, 6, count, base)

    alone = [jax.jit(table)(c, b) for c, b in zip(counts, bases)]
    np.testing.assert_array_equal(np.stack(alone), want)
    np.testing.assert_array_equal(jax.jit(jax.vmap(table))(counts, bases), want)
    # a shared count, batched bases
    np.testing.assert_array_equal(jax.jit(jax.vmap(table, in_axes=(None, 0)))(jnp.int32(2), bases),
                                  np.stack([_rows_expected(2, b) for b in [5, 7, 1, 3]]))


@fast_path_only
def test_first_rows_is_a_loop_unbatched_and_vectorized_batched():
    def table(count, base):
        return gated.first_rows(_row_of, 6, count, base)

    unbatched = jax.jit(table).lower(jnp.int32(2), jnp.int32(0)).as_text()
    batched = jax.jit(jax.vmap(table)).lower(jnp.zeros(3, jnp.int32),
                                             jnp.zeros(3, jnp.int32)).as_text()
    assert "stablehlo.while" in unbatched
    assert "stablehlo.while" not in batched


def test_by_batching_runs_the_alone_form_unbatched_and_the_vectorized_form_batched():
    # two forms that differ, to see which one ran (real uses give the same result)
    def alone(x):
        return x + 1

    def vectorized(x):
        return x + 2

    def call(x):
        return branches.by_batching(alone, vectorized, x,
                                    result_shapes=jax.ShapeDtypeStruct((), jnp.int32))

    assert int(jax.jit(call)(jnp.int32(0))) == 1
    np.testing.assert_array_equal(jax.jit(jax.vmap(call))(jnp.zeros(3, jnp.int32)), [2, 2, 2])


def _sines(jaxpr):
    """The shapes of every ``sin`` in ``jaxpr`` and the jaxprs inside it."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "sin":
            found.append(tuple(eqn.outvars[0].aval.shape))
        for param in eqn.params.values():
            for inner in (param if isinstance(param, (list, tuple)) else [param]):
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    found += _sines(inner)
    return found


def test_rarely_is_when_and_its_plain_form_computes_only_where_pred_holds(monkeypatch):
    """``rarely`` gives ``when``'s results in every form, unbatched and under ``vmap`` at
    batch sizes below, at and past its chunk size, with none, some or all envs selected and a
    shared operand; the plain batched form computes ``fun`` on chunks of a sixteenth of the
    batch, never on the whole batch."""
    def fun(state, key, scale):
        return {"a": state["a"] + jnp.sin(jax.random.uniform(key) * scale),
                "b": state["b"] * 2}

    def both(pred, state, key, scale):
        return (gated.rarely(pred, fun, state, key, scale),
                gated.selected(pred, [state, fun(state, key, scale)]))

    for plain in (False, True):
        if plain:
            monkeypatch.setenv(gate.ENV_VAR, "0")
        for pred in (True, False):
            got, want = jax.jit(both)(jnp.bool_(pred), {"a": 1.0, "b": 2}, jax.random.key(0),
                                      3.0)
            jax.tree.map(np.testing.assert_array_equal, got, want)
        for size in (1, 5, 16, 17, 100):
            for share in (0.0, 0.1, 1.0):
                preds = jax.random.bernoulli(jax.random.key(size), share, (size,))
                state = {"a": jnp.arange(size, dtype=jnp.float32), "b": jnp.arange(size)}
                keys = jax.random.split(jax.random.key(1), size)
                got, want = jax.jit(jax.vmap(both, (0, 0, 0, None)))(preds, state, keys, 3.0)
                jax.tree.map(np.testing.assert_array_equal, got, want)
    batch = 100
    args = (jnp.zeros(batch, bool), {"a": jnp.zeros(batch), "b": jnp.zeros(batch, jnp.int32)},
            jax.random.split(jax.random.key(1), batch), 3.0)
    rare = jax.vmap(lambda *a: gated.rarely(a[0], fun, *a[1:]), (0, 0, 0, None))
    assert _sines(jax.make_jaxpr(rare)(*args).jaxpr) == [(7,)]  # ceil(100 / 16)

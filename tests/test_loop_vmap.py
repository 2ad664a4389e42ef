"""``loop_vmap``: batched on a CPU, a loop over the batch in one kernel whose branches are
real branches, with the results of ``vmap`` bit for bit; elsewhere, ``vmap``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src.cpu_kernels.kernel import ATTRIBUTES
from jaxenvs._src import loop_vmap as gated
from jaxenvs._src.cpu_kernels.loop_vmap import loop_vmap


def _turn(board, move, table):
    """A small game step: an indexed update, a branch on the data, a loop, a shared table."""
    board = board.at[move % board.shape[0]].add(table[move % table.shape[0]])

    def cascade(board):
        return jax.lax.fori_loop(0, 3, lambda k, b: b.at[(move + k) % b.shape[0]].set(k), board)

    board = jax.lax.cond(jnp.sum(board) % 2 == 0, cascade, lambda b: b * 2, board)
    return {"board": board, "score": jnp.sum(board * table[:board.shape[0]])}


TABLE = jnp.arange(7, dtype=jnp.int32) * 3 - 5


def _batch(size, seed=0):
    rng = np.random.default_rng(seed)
    return (jnp.asarray(rng.integers(-9, 9, (size, 5)), jnp.int32),
            jnp.asarray(rng.integers(0, 20, size), jnp.int32))


def _assert_equal(a, b):
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


def test_batched_results_are_vmaps_at_every_batch_size():
    looped = loop_vmap(_turn)
    for size in (1, 2, 7, 64):
        boards, moves = _batch(size)
        want = jax.jit(jax.vmap(_turn, (0, 0, None)))(boards, moves, TABLE)
        _assert_equal(jax.jit(jax.vmap(looped, (0, 0, None)))(boards, moves, TABLE), want)
        # a batched table too, and an unbatched move
        tables = jnp.stack([TABLE + k for k in range(size)])
        _assert_equal(jax.jit(jax.vmap(looped, (0, None, 0)))(boards, moves[0], tables),
                      jax.jit(jax.vmap(_turn, (0, None, 0)))(boards, moves[0], tables))


def test_unbatched_eager_and_jitted_calls_are_the_function():
    boards, moves = _batch(3)
    for i in range(3):
        _assert_equal(loop_vmap(_turn)(boards[i], moves[i], TABLE),
                      _turn(boards[i], moves[i], TABLE))
        _assert_equal(jax.jit(loop_vmap(_turn))(boards[i], moves[i], TABLE),
                      jax.jit(_turn)(boards[i], moves[i], TABLE))


def test_nested_vmaps_are_loops_over_loops():
    boards, moves = _batch(12)
    boards, moves = boards.reshape(3, 4, 5), moves.reshape(3, 4)
    nested = jax.vmap(jax.vmap(loop_vmap(_turn), (0, 0, None)), (0, 0, None))
    want = jax.vmap(jax.vmap(_turn, (0, 0, None)), (0, 0, None))(boards, moves, TABLE)
    _assert_equal(jax.jit(nested)(boards, moves, TABLE), want)
    text = jax.jit(nested).lower(boards, moves, TABLE).compile().as_text()
    assert text.count('inlineable="false"') == 1


def test_in_a_scan_the_batch_is_one_kernel_holding_a_loop_and_a_real_branch():
    boards, moves = _batch(16)

    def rollout(step):
        def body(boards, _):
            out = jax.vmap(step, (0, 0, None))(boards, moves, TABLE)
            return out["board"], out["score"]
        return jax.jit(lambda b: jax.lax.scan(body, b, None, length=4))

    _assert_equal(rollout(loop_vmap(_turn))(boards), rollout(_turn)(boards))
    text = rollout(loop_vmap(_turn)).lower(boards).compile().as_text()
    marked = [line for line in text.splitlines()  # (XLA makes small calls of its own)
              if " call(" in line and 'inlineable="{}"'.format(ATTRIBUTES["inlineable"]) in line]
    assert len(marked) == 1
    kernel = marked[0].split("to_apply=")[1].split(",")[0]
    body = text.split(f"\n{kernel} (")[1].split("\n}")[0]
    assert " while(" in body or "while." in body  # the loop over the batch is in the kernel
    assert " conditional(" in text  # and the branch is one, not a select of both sides


def test_through_the_gate_on_an_accelerator_the_batched_form_is_vmap(monkeypatch):
    boards, moves = _batch(4)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    looped = jax.jit(jax.vmap(gated.loop_vmap(_turn), (0, 0, None)))
    assert "xla_cpu_small_call" not in looped.lower(boards, moves, TABLE).as_text()
    _assert_equal(looped(boards, moves, TABLE),
                  jax.vmap(_turn, (0, 0, None))(boards, moves, TABLE))


def test_a_function_reading_part_of_its_arguments_compiles():
    """XLA's emitter aborted the process on a kernel parameter that nothing inside reads: the
    loop's reads of the fields the function ignores are dead, and the kernel must not take
    those fields (``kernel._used_inputs`` follows the loop's body)."""
    state = {"board": _batch(8)[0], "moves": _batch(8)[1], "unused": jnp.zeros((8, 3))}

    def legal(state):
        return jax.lax.cond(state["board"][0] > 0, lambda b: b > 0, lambda b: b < 0,
                            state["board"])

    got = jax.jit(jax.vmap(loop_vmap(legal)))(state)
    np.testing.assert_array_equal(got, jax.vmap(legal)(state))


def test_results_nobody_reads_are_not_written():
    """JAX's dead-code elimination prunes the loop's element function (``loop_vmap._parts``):
    XLA cannot look inside a kernel, which would otherwise write every result of every
    element, read or not (a step's ``info["final_observation"]`` in a rollout ignoring it)."""
    boards, moves = _batch(16)
    looped = jax.vmap(loop_vmap(_turn), (0, 0, None))
    want = jax.vmap(_turn, (0, 0, None))(boards, moves, TABLE)

    def kernel_results(fn):
        text = jax.jit(fn).lower(boards, moves).compile().as_text()
        marked = [line for line in text.splitlines()
                  if " call(" in line and 'inlineable="false"' in line]
        assert len(marked) == 1
        return marked[0].split(" call(")[0].split(" = ")[1]

    def score(b, m):
        return looped(b, m, TABLE)["score"]

    def both(b, m):
        return looped(b, m, TABLE)

    np.testing.assert_array_equal(jax.jit(score)(boards, moves), want["score"])
    _assert_equal(jax.jit(both)(boards, moves), want)
    assert "s32[16,5]" in kernel_results(both)  # the board, written when read
    assert "s32[16,5]" not in kernel_results(score)
    assert "s32[16]" in kernel_results(score)


def _step(board, move, table):
    """``_turn`` as a step: the board updated (argument 0 in, result 0 out) and a score."""
    out = _turn(board, move, table)
    return out["board"], out["score"]


def test_an_updated_argument_gives_the_same_results_and_is_left_intact_for_other_readers():
    boards, moves = _batch(16)
    looped = loop_vmap(_step, updates={0: 0})
    want = jax.vmap(_step, (0, 0, None))(boards, moves, TABLE)
    # the old boards read again after the step: XLA must keep them, not the loop's writes
    got, old = jax.jit(lambda b, m: (jax.vmap(looped, (0, 0, None))(b, m, TABLE), b + 0))(
        boards, moves)
    _assert_equal(got, want)
    np.testing.assert_array_equal(old, boards)
    _assert_equal(jax.jit(jax.vmap(jax.vmap(looped, (0, 0, None)), (0, 0, None)))(
        boards.reshape(4, 4, 5), moves.reshape(4, 4), TABLE),
        jax.tree.map(lambda x: x.reshape(4, 4, *x.shape[1:]), want))
    # an unbatched board (one board, many moves) is not written in place: it has no batch
    _assert_equal(jax.jit(jax.vmap(looped, (None, 0, None)))(boards[0], moves, TABLE),
                  jax.vmap(_step, (None, 0, None))(boards[0], moves, TABLE))
    _assert_equal(looped(boards[0], moves[0], TABLE), _step(boards[0], moves[0], TABLE))


def test_a_scan_carrying_the_updated_argument_copies_nothing_between_steps():
    """XLA gives a kernel's results buffers of their own, so a scan carrying them copied each
    into the carry after every step; written where the argument was, they stay there."""
    boards, moves = _batch(16)

    def rollout(step):
        def body(boards, _):
            boards, score = jax.vmap(step, (0, 0, None))(boards, moves, TABLE)
            return boards, score
        return jax.jit(lambda b: jax.lax.scan(body, b, None, length=4))

    def board_copies(step):
        text = rollout(step).lower(boards).compile().as_text()
        return [line for line in text.splitlines() if "s32[16,5]{1,0} copy(" in line]

    _assert_equal(rollout(loop_vmap(_step, updates={0: 0}))(boards), rollout(_step)(boards))
    # the argument's copy into the scan (XLA may not write the caller's buffer), then one
    # of the kernel's result at every step, unless the loop writes it in place
    assert len(board_copies(loop_vmap(_step))) == 2
    (entry,) = board_copies(loop_vmap(_step, updates={0: 0}))
    assert "copy(%b" in entry


def test_a_result_read_from_the_argument_as_it_was_copies_nothing_inside_the_loop():
    """A result computed from an element's argument as it was (a step's truncation flag from
    its old step count) was fused into an operation that XLA could run after the element's
    update, so XLA copied the whole batch's argument for every element (TCGJax, 1024 envs:
    8 KB per env step); read before any write, it copies nothing."""
    boards, moves = _batch(16)

    def step(board, move, table):
        out = _turn(board, move, table)
        return out["board"], out["score"], board[0] + move > 3

    def rollout(step):
        def body(boards, _):
            boards, score, flag = jax.vmap(step, (0, 0, None))(boards, moves, TABLE)
            return boards, (score, flag)
        return jax.jit(lambda b: jax.lax.scan(body, b, None, length=4))

    looped = rollout(loop_vmap(step, updates={0: 0}))
    _assert_equal(looped(boards), rollout(step)(boards))
    text = looped.lower(boards).compile().as_text()
    (entry,) = [line for line in text.splitlines() if "s32[16,5]{1,0} copy(" in line]
    assert "copy(%b" in entry


def _cube_step(cube, move, table):
    """A step on a multi-axis state, for ``rows``: shifted rows of an indexed plane."""
    plane = cube[move % cube.shape[0]]
    plane = jax.lax.cond(move % 3 == 0, lambda p: p[::-1] + table[:p.shape[-1]],
                         lambda p: p * 2 - move, plane)
    cube = cube.at[move % cube.shape[0]].set(plane)
    return cube, {"sum": jnp.sum(cube, axis=(1, 2)), "flag": cube[0, 0] > move}


def test_results_written_as_rows_are_vmaps_and_stay_in_place():
    rng = np.random.default_rng(3)
    cubes = jnp.asarray(rng.integers(-9, 9, (16, 2, 3, 4)), jnp.int32)
    moves = jnp.asarray(rng.integers(0, 20, 16), jnp.int32)
    want = jax.vmap(_cube_step, (0, 0, None))(cubes, moves, TABLE)
    for updates in (None, {0: 0}):
        looped = loop_vmap(_cube_step, updates=updates, rows=True)
        _assert_equal(jax.jit(jax.vmap(looped, (0, 0, None)))(cubes, moves, TABLE), want)
        _assert_equal(jax.jit(jax.vmap(jax.vmap(looped, (0, 0, None)), (0, 0, None)))(
            cubes.reshape(4, 4, 2, 3, 4), moves.reshape(4, 4), TABLE),
            jax.tree.map(lambda x: x.reshape(4, 4, *x.shape[1:]), want))
    _assert_equal(loop_vmap(_cube_step, rows=True)(cubes[0], moves[0], TABLE),
                  _cube_step(cubes[0], moves[0], TABLE))

    def rollout(step):
        def body(cubes, _):
            cubes, out = jax.vmap(step, (0, 0, None))(cubes, moves, TABLE)
            return cubes, out
        return jax.jit(lambda c: jax.lax.scan(body, c, None, length=4))

    looped = rollout(loop_vmap(_cube_step, updates={0: 0}, rows=True))
    _assert_equal(looped(cubes), rollout(_cube_step)(cubes))
    text = looped.lower(cubes).compile().as_text()
    # only the argument's copy into the scan: none per step, none per element
    (entry,) = [line for line in text.splitlines()
                if "s32[16,2,3,4]" in line.split("copy(")[0] and "copy(" in line
                or "s32[16,24]" in line.split("copy(")[0] and "copy(" in line]
    assert "copy(%c" in entry


def test_updates_that_do_not_fit_are_refused():
    boards, moves = _batch(4)
    with pytest.raises(ValueError, match="result 1 is not argument 0 updated"):
        jax.vmap(loop_vmap(_step, updates={1: 0}), (0, 0, None))(boards, moves, TABLE)
    with pytest.raises(ValueError, match="two results update one argument"):
        jax.vmap(loop_vmap(lambda b, m: (b + m, b - m), updates={0: 0, 1: 0}))(boards, boards)

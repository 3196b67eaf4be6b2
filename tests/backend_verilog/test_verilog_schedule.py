"""Scheduling and delay balancing: constraints hold, the LP finds the optimum."""
import itertools

import pytest
from spgen.backend.verilog import _schedule
from spgen.backend.verilog._schedule import SINK, Schedule, latency_of, schedule
from spgen.ir import Graph, Output, Port, Type


def _graph() -> Graph:
    # ASAP computes t = a + a early and delays it to the select; since a itself is
    # delayed to the output anyway, the minimised schedule computes t late instead.
    g = Graph("sched")
    g.inputs += [Port("a", Type.F32, "main", 0), Port("b", Type.F32, "main", 1)]
    a = g.add("input", Type.F32, stream="main", port="a", index=0)
    b = g.add("input", Type.F32, stream="main", port="b", index=1)
    c = g.add("flt", Type.BOOL, (a, b))
    q = g.add("fdiv", Type.F32, (a, b))
    r = g.add("fsqrt", Type.F32, (q,))
    t = g.add("fadd", Type.F32, (a, a))
    s = g.add("select", Type.F32, (c, r, t))
    w = g.add("shift", Type.F32, (s,), offset=-3, fill=0)
    g.outputs.append(Output(Port("y", Type.F32, "main", 0), w))
    g.outputs.append(Output(Port("z", Type.F32, "main", 1), a))
    g.verify()
    return g


def _check(g: Graph, sched) -> None:
    tau = sched.tau
    for n in g.nodes:
        for x in n.args:
            if n.op == "proj":
                assert tau[n.id] == tau[x.id]
            elif n.op == "shift":
                assert tau[n.id] - tau[x.id] >= 1 - n.attrs["offset"]
            else:
                assert tau[n.id] - tau[x.id] >= latency_of(n)
    for o in g.outputs:
        assert tau[SINK] >= tau[o.node.id]


def _select_graph() -> Graph:
    # the bool c = x < x is needed only at the select, after a long square root: the
    # optimum computes it late (x waits anyway), ASAP computes it early and delays 1 bit
    g = Graph("late_bool")
    g.inputs.append(Port("x", Type.F32, "main", 0))
    x = g.add("input", Type.F32, stream="main", port="x", index=0)
    c = g.add("flt", Type.BOOL, (x, x))
    r = g.add("fsqrt", Type.F32, (x,))
    s = g.add("select", Type.F32, (c, r, x))
    g.outputs.append(Output(Port("y", Type.F32, "main", 0), s))
    g.verify()
    return g


def _chain_graph() -> Graph:
    # two outputs of different latency and width: the short one waits at the sink; no
    # choice of ticks changes the bits, so the LP must match ASAP exactly
    g = Graph("chain")
    g.inputs.append(Port("x", Type.F32, "main", 0))
    x = g.add("input", Type.F32, stream="main", port="x", index=0)
    q = g.add("fdiv", Type.F32, (x, x))
    k = g.add("flt", Type.BOOL, (x, q))
    g.outputs.append(Output(Port("y", Type.F32, "main", 0), q))
    g.outputs.append(Output(Port("k", Type.BOOL, "main", 1), k))
    g.outputs.append(Output(Port("z", Type.F32, "main", 2), x))
    g.verify()
    return g


def _brute_force_bits(g: Graph) -> int:
    """Fewest delay bits over every integer schedule of ASAP's latency (small graphs)."""
    static = _schedule._static_nodes(g)
    edges, equal, lower = _schedule._edges(g, static)
    assert not equal  # the enumeration below has no proj = extern ties
    widths = {n.id: _schedule._width(n) for n in g.nodes}
    asap = _schedule._asap(g, edges, equal, lower, static)
    alap = {SINK: asap[SINK]}
    for n in reversed(g.nodes):
        succ = [alap[v] - w for u, v, w in edges if u == n.id]
        if n.id not in static and n.op != "input":
            alap[n.id] = min(succ)
    free = [n.id for n in g.nodes if n.id in alap and n.id != SINK]
    best = None
    for ticks in itertools.product(*(range(asap[v], alap[v] + 1) for v in free)):
        tau = dict(asap) | dict(zip(free, ticks))
        if all(tau[v] - tau[u] >= w for u, v, w in edges):
            bits = Schedule(tau, tau[SINK], _schedule._taps(edges, tau), static, widths).delay_bits()
            best = bits if best is None else min(best, bits)
    return best


@pytest.mark.parametrize("build", [_graph, _select_graph, _chain_graph])
def test_lp_finds_the_optimum(build):
    # the LP's own result (not the better of LP and ASAP that `schedule` returns) is
    # valid, keeps ASAP's latency and has the fewest delay bits an exhaustive search finds
    g = build()
    static = _schedule._static_nodes(g)
    edges, equal, lower = _schedule._edges(g, static)
    widths = {n.id: _schedule._width(n) for n in g.nodes}
    tau = _schedule._min_bits(g, edges, equal, lower, static, widths)
    assert tau is not None
    lp = Schedule(tau, tau[SINK], _schedule._taps(edges, tau), static, widths)
    _check(g, lp)
    _, asap = schedule(g)
    assert lp.sink == asap.sink
    assert lp.delay_bits() == _brute_force_bits(g)


def test_known_optimum_of_the_late_bool():
    # by hand: x waits for the square root (32 bits x its latency), nothing else waits
    g = _select_graph()
    best, asap = schedule(g)
    sqrt = g.nodes[2]
    assert best.delay_bits() == 32 * latency_of(sqrt)
    assert asap.delay_bits() == best.delay_bits() + latency_of(sqrt) - latency_of(g.nodes[1])


def test_minimised_schedule_is_valid_and_not_worse():
    g = _graph()
    best, asap = schedule(g)
    _check(g, best)
    _check(g, asap)
    assert best.delay_bits() <= asap.delay_bits()
    assert best.sink == asap.sink  # same latency: only where the delays sit changes


def test_minimisation_moves_delay_to_narrow_signals():
    g = _graph()
    best, asap = schedule(g)
    assert best.delay_bits() < asap.delay_bits()


def test_negative_shift_adds_look_ahead():
    g = _graph()
    best, _ = schedule(g)
    w = g.nodes[-1]
    s = g.nodes[-2]
    assert best.tau[w.id] - best.tau[s.id] >= 4  # 3 elements of look-ahead + the fill register


def test_lbm_core_minimisation_saves_bits():
    from pathlib import Path

    import spgen

    root = Path(__file__).resolve().parents[2]
    rep = spgen.compile(root / "cores" / "lbm" / "lbm_d2q9.spd").verilog.report
    db = rep["delay_bits"]
    assert db["minimised"]["total"] < db["asap"]["total"]
    assert db["minimised"]["ram"] > 0 and rep["ring_buffers"] > 0  # long lines in RAM
    assert rep["latency_cycles"] <= db["asap"]["latency_cycles"]


def test_long_shifts_use_ring_buffers_short_ones_do_not():
    from pathlib import Path

    import spgen

    progs = Path(__file__).parent / "programs"
    long_rep = spgen.compile(progs / "shift_long.spd").verilog.report
    short_rep = spgen.compile(progs / "shift_pos.spd").verilog.report
    assert long_rep["ring_buffers"] >= 2 and long_rep["delay_bits"]["minimised"]["ram"] > 0
    assert short_rep["ring_buffers"] == 0

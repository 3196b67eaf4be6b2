"""Scheduling and delay balancing: constraints hold, the LP never loses to ASAP."""
from spgen.backend.verilog._schedule import SINK, latency_of, schedule
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

"""The RTL core, fast model, shell cascade and harness render one stream interface."""
import spgen
from spgen.backend._stream_iface import (
    StreamControl,
    StreamInterface,
    clog2,
    obuf_module,
    port_map,
)
from spgen.backend.fast import wrapper_verilog
from spgen.backend.verilog import _sim
from spgen.shellgen import core_interface, cores_wrapper
from verilog_suite import HERE


def _core(name: str):
    return spgen.compile(HERE / "programs" / f"{name}.spd").verilog


def test_core_and_fast_model_share_ports_control_and_buffer():
    core = _core("regs")
    iface = StreamInterface.from_report(core.report)
    assert iface.regs and iface.brch_in_words == 0
    s = core.report["latency_cycles"]
    ctl = StreamControl(s, s)
    fast = wrapper_verilog(core.report)
    for text in (core.text, fast):
        assert "\n".join(iface.module_header()) in text
        assert "\n".join(ctl.handshake()) in text
        assert "\n".join(ctl.reset(12)) in text
    assert obuf_module(core.name) in core.text


def test_branch_streams_in_lock_step():
    core = _core("brch")
    iface = StreamInterface.from_report(core.report)
    assert [p for p, _, _ in iface.streams()] == ["s", "s_brch", "m", "m_brch"]
    header = "\n".join(iface.module_header())
    assert header in core.text
    assert "s_brch" not in "\n".join(StreamInterface.from_report(core.report, branches=False)
                                     .module_header())
    ctl = StreamControl(core.report["latency_cycles"], 0, brch_in=True)
    assert "    assign s_brch_ready = in_open && s_valid;" in ctl.handshake()
    assert "\n".join(ctl.handshake()) in core.text
    # the shell and the harness connect every port the core declares
    wrapper = cores_wrapper(core_interface(core.report), 1)
    harness = _sim._wrapper([core])
    for prefix in ("s", "s_brch", "m", "m_brch"):
        for conn in port_map(prefix, "x_{}"):
            port = conn.split("(")[0]
            assert port + " (" in wrapper and port + "(" in harness


def test_port_map_and_counter_widths():
    assert port_map("m", "c1_{}", " ") == [".m_valid (c1_valid)", ".m_ready (c1_ready)",
                                           ".m_data (c1_data)", ".m_last (c1_last)"]
    assert port_map("s", {"valid": "v", "ready": "r", "data": "d", "last": "l"}) == \
        [".s_valid(v)", ".s_ready(r)", ".s_data(d)", ".s_last(l)"]
    assert [clog2(x) for x in (0, 1, 2, 3, 4, 5, 8, 9)] == [1, 1, 1, 2, 2, 3, 3, 4]
    ctl = StreamControl(drain=0, horizon=0)
    assert "    wire stream_end = s_fire && s_last;" in ctl.handshake()
    assert not any("t_cnt <= t_cnt" in line for line in ctl.advance(12))
    ctl = StreamControl(drain=9, horizon=12)
    assert (ctl.tw, ctl.jw) == (4, 4)
    assert "    wire stream_end = draining_reg && t_cnt == 4'd8;" in ctl.handshake()

"""`spgen bench rdma`: card-to-card RDMA ping-pong, pipelined reduction and goodput under faults vs CIRCUS."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .._diagnostics import SpgenError

__all__ = ["CIRCUS", "HELP", "add_arguments", "run"]

HELP = "RDMA between simulated cards: ping-pong latency/throughput over 1..7 hops, reduction, faults (vs CIRCUS)."
# Published CIRCUS figures (Cygnus, Stratix 10, 100 Gb/s QSFP28, 64 B packets + 4 B header).
CIRCUS = {"line_gbps": 100.0, "min_latency_us": 0.5, "per_hop_us": 0.25, "latency_7hops_us": 1.87,
          "throughput_1hop_gbps": 90.2, "throughput_7hops_gbps": 88.7, "header_limited_gbps": 90.762}
_KEY = ["test", "line_gbps", "hops", "bytes", "cards", "per"]
_ADDR = 0x1000


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rates", nargs="+", type=float, default=[100.0, 40.0], metavar="GBPS",
                   help="link line rates to measure (default 100 40)")
    p.add_argument("--max-hops", type=int, default=7, help="ping-pong over 1..N hops (default 7)")
    p.add_argument("--max-size", type=int, default=1 << 20, help="largest ping-pong size in bytes (default 1 MiB)")
    p.add_argument("--latency-ns", type=float, default=200.0, help="link latency (PHY + cable), ns (default 200)")
    p.add_argument("--quick", action="store_true", help="a few points only, seconds not minutes")
    p.add_argument("--json", type=Path, help="write the results as JSON")
    p.add_argument("--plot", type=Path, help="write latency and throughput plots (PNG)")
    p.add_argument("--rtl", type=Path, nargs="+", metavar="CARD",
                   help="also run on RTL cards built with `spgen build --links 2` (or more) in each CARD, "
                        "at the card's --link-gbps line rate with bulk and 64-byte packets, beside the model")
    p.add_argument("--stream", type=Path, nargs="+", metavar="CARD",
                   help="stream throughput over 1 and 3 hops on RTL cards built from a core with `spgen build "
                        "PROG.spd --links 2` (or more) in each CARD (records of the core's width, the card's "
                        "--link-gbps), beside puts on the same cards and CIRCUS; needs OpenMPI's mpirun")


def _line(rate: float, lat: float, faults: dict | None = None) -> dict:
    spec: dict = {"topology": "mesh", "dims": [8], "line_rate_gbps": rate, "latency_ns": lat}
    if faults:
        spec["faults"] = faults
    return spec


def _rec(test: str, rate: float, hops: int = 0, nbytes: int = 0, cards: int = 0, per: float = 0.0, **kw) -> dict:
    return {"test": test, "line_gbps": rate, "hops": hops, "bytes": nbytes, "cards": cards, "per": per, **kw}


def pingpong(rdma, rate: float, lat: float, sizes: list[int], hops: list[int]) -> list[dict]:
    """Half the round trip of a hardware ping-pong between card 0 and card `hops` of a line."""
    out = []
    rng = np.random.default_rng(1)
    for h in hops:
        cl = rdma.cluster(_line(rate, lat))
        for n in sizes:
            data = rng.integers(0, 1 << 32, n // 4, dtype=np.uint32).tobytes()
            cl[0].write(_ADDR, data)
            iters = 4 if n <= 65536 else 1
            ends = cl.sim.pingpong(0, h, _ADDR, n, iters, 1 << 30)
            if len(ends) != iters:
                raise SpgenError(f"ping-pong {n} B over {h} hops did not finish")
            one_way = cl.ns(ends[-1]) / (2 * iters)
            bad = int(cl[h].read(_ADDR, n) != data) + int(cl[0].read(_ADDR, n) != data)
            out.append(_rec("pingpong", rate, h, n, 2, latency_us=one_way / 1000,
                            gbps=n * 8 / one_way, integrity_errors=bad))
    return out


def reduction(rdma, rate: float, lat: float, nbytes: int, counts: list[int]) -> list[dict]:
    """Pipelined uint32 sum along a chain of cards; the sum lands at the last card."""
    out = []
    rng = np.random.default_rng(2)
    for k in counts:
        cl = rdma.cluster(_line(rate, lat))
        vecs = [rng.integers(0, 1 << 32, nbytes // 4, dtype=np.uint32) for _ in range(k)]
        for i, v in enumerate(vecs):
            cl[i].write(_ADDR, v)
        t = rdma.Transfer(cl, cl.sim.reduce(list(range(k)), _ADDR, nbytes))
        cycles = t.wait()
        want = np.sum(np.stack(vecs), axis=0, dtype=np.uint32)
        got = np.frombuffer(cl[k - 1].read(_ADDR, nbytes), dtype=np.uint32)
        ns = cl.ns(cycles)
        out.append(_rec("reduce", rate, k - 1, nbytes, k, time_us=ns / 1000, gbps=nbytes * 8 / ns,
                        integrity_errors=int(not np.array_equal(got, want))))
    return out


def faults(rdma, rate: float, lat: float, nbytes: int, pers: list[float], hops: list[int]) -> list[dict]:
    """Goodput of one put under a packet error rate on every link (and one link-down case)."""
    out = []
    rng = np.random.default_rng(3)
    cases = [(p, None) for p in pers] + [(0.0, [[2000.0, 12000.0]])]
    for h in hops:
        for per, down in cases:
            f = {"per": per} if per else {}
            if down:
                f["down"] = down
            cl = rdma.cluster(dict(_line(rate, lat, f), seed=11))
            data = rng.integers(0, 1 << 32, nbytes // 4, dtype=np.uint32).tobytes()
            cl[0].write(_ADDR, data)
            cycles = cl[0].put(h, _ADDR, 2 * _ADDR, nbytes)
            ns = cl.ns(cycles)
            st = cl.stats()
            out.append(_rec("faults" if not down else "link_down_10us", rate, h, nbytes, 2, per,
                            gbps=nbytes * 8 / ns, time_us=ns / 1000, replays=st["replays"],
                            corrupted=st["packets_corrupted"], dropped=st["packets_dropped"],
                            integrity_errors=int(cl[h].read(2 * _ADDR, nbytes) != data)))
    return out


def _table(records: list[dict]) -> str:
    lines = []
    pp = [r for r in records if r["test"] == "pingpong"]
    for rate in sorted({r["line_gbps"] for r in pp}, reverse=True):
        rs = [r for r in pp if r["line_gbps"] == rate]
        hops = sorted({r["hops"] for r in rs})
        by = {(r["hops"], r["bytes"]): r for r in rs}
        lines.append(f"ping-pong at {rate:g} Gb/s: one-way latency [us] / throughput [Gb/s]")
        lines.append(f"{'bytes':>9} " + " ".join(f"{f'{h} hop' + ('s' if h > 1 else ''):>14}" for h in hops))
        for n in sorted({r["bytes"] for r in rs}):
            cells = [f"{by[(h, n)]['latency_us']:6.3f}/{by[(h, n)]['gbps']:6.2f}"
                     + ("!" if by[(h, n)]["integrity_errors"] else " ") for h in hops]
            lines.append(f"{n:>9} " + " ".join(f"{c:>14}" for c in cells))
        lines.append("")
    red = [r for r in records if r["test"] == "reduce"]
    if red:
        lines.append("pipelined uint32 sum along a chain (result at the last card)")
        for r in red:
            lines.append(f"  {r['cards']} cards, {r['bytes']} B at {r['line_gbps']:g} Gb/s: "
                         f"{r['time_us']:.2f} us, {r['gbps']:.2f} Gb/s" + (" CORRUPT" if r["integrity_errors"] else ""))
        lines.append("")
    fl = [r for r in records if r["test"] in ("faults", "link_down_10us")]
    if fl:
        lines.append("goodput of one put under faults on every link")
        for r in fl:
            what = "link down 10 us" if r["test"] != "faults" else f"PER {r['per']:g}"
            lines.append(f"  {what:>16}, {r['hops']} hop(s), {r['bytes']} B at {r['line_gbps']:g} Gb/s: "
                         f"{r['gbps']:6.2f} Gb/s  (replays {r['replays']}, corrupted {r['corrupted']}, "
                         f"dropped {r['dropped']})" + (" CORRUPT" if r["integrity_errors"] else ""))
        lines.append("")
    return "\n".join(lines)


def _compare(records: list[dict]) -> str:
    pp = {(r["hops"], r["bytes"]): r for r in records if r["test"] == "pingpong" and r["line_gbps"] == 100}
    if not pp:
        return ""
    small, big = min(b for _, b in pp), max(b for _, b in pp)
    hops = sorted({h for h, _ in pp})
    l1, lh = pp[(hops[0], small)]["latency_us"], pp[(hops[-1], small)]["latency_us"]
    per_hop = (lh - l1) / (hops[-1] - hops[0]) if len(hops) > 1 else 0.0
    t1, th = pp[(hops[0], big)]["gbps"], pp[(hops[-1], big)]["gbps"]
    c = CIRCUS
    lat_c = f"{c['latency_7hops_us']:8.2f}" if hops[-1] == 7 else f"{'-':>8}"
    thr_c = f"{c['throughput_7hops_gbps']:8.1f}" if hops[-1] == 7 and big == 1 << 20 else f"{'-':>8}"
    thr1_c = f"{c['throughput_1hop_gbps']:8.1f}" if big == 1 << 20 else f"{'-':>8}"
    return "\n".join([
        f"vs CIRCUS at 100 Gb/s                 {'this model':>12} {'CIRCUS':>8}",
        f"min latency ({small} B, {hops[0]} hop) [us]      {l1:12.3f} {c['min_latency_us']:8.2f}",
        f"per extra hop [us]                    {per_hop:12.3f} {c['per_hop_us']:8.2f}",
        f"latency {hops[-1]} hops [us]                  {lh:12.3f} {lat_c}",
        f"throughput {big} B, {hops[0]} hop [Gb/s]   {t1:10.2f} {thr1_c}",
        f"throughput {big} B, {hops[-1]} hops [Gb/s]  {th:10.2f} {thr_c}",
        f"payload efficiency of a full packet   {64 / 72:12.3f} {64 / 68:8.3f}  (64 B / wire bytes)",
    ])


def _plot(records: list[dict], path: Path, rtl: list[dict] | None = None) -> None:
    """Model latency and throughput over message size; with `rtl`, a third panel: RTL cards
    beside the model, put goodput over message size per line rate, and a fourth: sums and
    allreduces over the chain's length, RTL cards beside the model at the RTL port's rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4 if rtl else 2, figsize=(21 if rtl else 11, 4.2))
    a1, a2 = axes[0], axes[1]
    if rtl:
        _plot_rtl(axes[2], rtl)
        _plot_reduce(axes[3], rtl)
    pp = [r for r in records if r["test"] == "pingpong"]
    for rate in sorted({r["line_gbps"] for r in pp}, reverse=True):
        for h in sorted({r["hops"] for r in pp}):
            rs = sorted((r for r in pp if r["line_gbps"] == rate and r["hops"] == h), key=lambda r: r["bytes"])
            if not rs:
                continue
            ls = "-" if rate == 100 else ":"
            a1.plot([r["bytes"] for r in rs], [r["latency_us"] for r in rs], ls, marker="o", ms=2,
                    label=f"{rate:g}G {h} hop")
            a2.plot([r["bytes"] for r in rs], [r["gbps"] for r in rs], ls, marker="o", ms=2,
                    label=f"{rate:g}G {h} hop")
    a2.axhline(CIRCUS["throughput_1hop_gbps"], color="k", ls="--", lw=0.8, label="CIRCUS 90.2 Gb/s")
    for a, yl in ((a1, "one-way latency [us]"), (a2, "throughput [Gb/s]")):
        a.set_xscale("log", base=2)
        a.set_xlabel("message size [bytes]")
        a.set_ylabel(yl)
        a.grid(True, which="both", alpha=0.3)
    a1.set_yscale("log")
    a2.legend(fontsize=6, ncol=2)
    fig.suptitle("RDMA between simulated cards (line of 8 cards)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _who(r: dict) -> str:
    b = r.get("packet_bytes", 64)
    return f"{'RTL cards' if r['backend'] == 'rtl' else 'model'}, {b if b < 1024 else b >> 10}{' KiB' if b >= 1024 else ' B'}"


def _plot_rtl(ax, rtl: list[dict]) -> None:
    """Put goodput over message size, RTL cards with bulk packets (solid) and 64-byte packets
    (dashed) beside the model (dotted), a colour per line rate, the line rates as references."""
    for i, rate in enumerate(sorted({r["line_gbps"] for r in rtl})):
        for r in (r for r in rtl if r["line_gbps"] == rate):
            sizes = sorted(r["put_gbps"], key=int)
            ls = ":" if r["backend"] == "model" else "-" if r.get("packet_bytes", 64) > 64 else "--"
            ax.plot([int(n) for n in sizes], [r["put_gbps"][n] for n in sizes], ls, color=f"C{i}", marker="o", ms=3,
                    label=f"{_who(r)}, {rate:g} Gb/s line")
        ax.axhline(rate, color=f"C{i}", lw=0.6, alpha=0.5)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("put size [bytes], 1 hop")
    ax.set_ylabel("goodput, host call to completion [Gb/s]")
    ax.set_title("RTL cards vs model", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)


def _plot_reduce(ax, rtl: list[dict]) -> None:
    """Sum (solid) and allreduce (dashed) throughput over the chain's length: RTL cards and the
    model at the first card's line rate."""
    rate = rtl[0]["line_gbps"]
    for i, r in enumerate(r for r in rtl if r["line_gbps"] == rate and r.get("reduce_gbps")):
        for key, ls, what in (("reduce_gbps", "-", "sum"), ("allreduce_gbps", "--", "allreduce")):
            cards = sorted(r.get(key, {}), key=int)
            ax.plot([int(k) for k in cards], [r[key][k] for k in cards], ls, color=f"C{i}", marker="o", ms=3,
                    label=f"{'RTL cards' if r['backend'] == 'rtl' else 'model'}, {what}")
    ax.axhline(rate, color="k", ls=":", lw=0.8, label=f"{rate:g} Gb/s line")
    ax.set_xlabel("cards in the chain (a ring)")
    ax.set_ylabel("vector bits / (host call to completion) [Gb/s]")
    ax.set_ylim(bottom=0)
    n = rtl[0]["bytes"]
    ax.set_title(f"u32 reductions of {f'{n >> 20} MiB' if n >= 1 << 20 else f'{n >> 10} KiB'}: RTL cards vs model",
                 fontsize=9)
    ax.set_xticks(sorted({int(k) for r in rtl for k in r.get("reduce_gbps", {})}))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def run(args: argparse.Namespace) -> int:
    from spgen.runtime import rdma

    if args.max_hops < 1 or args.max_hops > 7:
        raise SpgenError("--max-hops must be 1..7 (a line of 8 cards)")
    if args.max_size < 16 or args.max_size % 4:
        raise SpgenError("--max-size must be a multiple of 4, at least 16")
    if any(r <= 0 for r in args.rates):
        raise SpgenError("--rates must be positive")
    t0 = time.monotonic()
    if args.quick:
        rates, sizes, hops = [100.0], [16, 4096, 65536], [1, 4]
        red_bytes, red_counts, f_bytes, pers, f_hops = 16384, [2, 4], 65536, [0.0, 1e-4, 1e-2], [1]
    else:
        rates = args.rates
        sizes = [16 << i for i in range(40) if (16 << i) <= args.max_size]
        hops = list(range(1, args.max_hops + 1))
        red_bytes, red_counts = 1 << 20, [2, 4, 8]
        f_bytes, pers, f_hops = 1 << 20, [0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2], [1, 4]
    records: list[dict] = []
    for rate in rates:
        records += pingpong(rdma, rate, args.latency_ns, sizes, hops)
    records += reduction(rdma, 100.0, args.latency_ns, red_bytes, red_counts)
    records += faults(rdma, 100.0, args.latency_ns, f_bytes, pers, f_hops)
    rtl = []
    if args.rtl:
        from ._bench_rdma_rtl import rtl_records

        rtl = rtl_records(rdma, args.rtl, args.quick)
    streams = []
    if args.stream:
        from ._bench_rdma_stream import stream_records

        streams = stream_records(rdma, args.stream, args.quick, CIRCUS)
    wall = time.monotonic() - t0
    params = rdma.cluster(_line(100.0, args.latency_ns)).sim.params()
    print(_table(records))
    print(_compare(records))
    print(f"\nmodel: clock {params['clock_mhz']} MHz, router {params['router_latency']} cycles, link latency "
          f"{args.latency_ns:g} ns, engine issue {params['engine_latency']} + DDR read {params['mem_read_latency']}"
          f" + write {params['mem_write_latency']} cycles; wall {wall:.1f} s")
    if rtl:
        from ._bench_rdma_rtl import rtl_table

        print("\nRTL cards vs the model at each card's line rate (latency: host call to completion, and on the "
              "card from its CMD write to its completion interrupt; goodput: payload bits over the time from the "
              "host's call to the completion it sees):")
        print(rtl_table(rtl))
    if streams:
        from ._bench_rdma_stream import stream_table

        print("\nStreams between RTL cards (payload rate from the difference of two sizes; memory A of the "
              "first card through both cards' cascades to memory B of the last) beside puts on the same cards:")
        print(stream_table(streams))
    errors = sum(r["integrity_errors"] for r in records)
    if args.json:
        doc = {"benchmark": "rdma", "key": _KEY, "records": records, "circus": CIRCUS, "model_params": params,
               "rtl_cards": rtl, "streams": streams,
               "link_latency_ns": args.latency_ns, "payload_efficiency": 64 / 72, "quick": args.quick,
               "wall_s": wall}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    if args.plot:
        _plot(records, args.plot, rtl)
    if errors:
        print(f"spgen bench rdma: error: {errors} transfers arrived corrupted", file=sys.stderr)
        return 1
    return 0

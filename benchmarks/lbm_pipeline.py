"""LBM in pipeline mode across simulated cards (docs/lbm.md, "Pipeline across cards"):
one pass of a grid through 2 and 4 cards of C LBM cores each, over 40 Gb/s-class links
(the RTL link of today: one 32-bit word per cycle), clean and with link faults. Prints
the stall rate at every card's first core, link and payload utilisation, cell updates
per second at the 200 MHz card clock, and the link rate a stall-free pipeline needs;
checks every run against the emulator bit for bit.

    python benchmarks/lbm_pipeline.py [--width 64 --height 205 --cascade 2 --cards 2,4]
        [--json benchmarks/results/lbm_pipeline.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from machine import cpu_name  # this folder's: how every benchmark names the CPU
from spgen import lbm
from spgen.lbm._cards_pipeline import needed_link_gbps, pipeline_card
from tqdm import tqdm


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=205, help="205 x 64 cells = 524,800 B per pass")
    p.add_argument("--cascade", type=int, default=2)
    p.add_argument("--cards", default="2,4")
    p.add_argument("--json", type=Path)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    cards_list = [int(c) for c in args.cards.split(",")]
    attr = lbm.cavity(args.width, args.height)
    f = lbm.initial_f(attr)
    design = lbm.compile_core(args.width)
    build = pipeline_card(args.width, args.cascade)
    cases = [(n, faults) for n in cards_list for faults in (None, {"per": 1e-3, "drop": 1e-3})]
    rows = []
    for n, faults in tqdm(cases, unit="run", disable=args.no_progress, file=sys.stderr, desc="lbm pipeline"):
        steps = n * args.cascade
        t0 = time.perf_counter()
        r = lbm.run_cards(build, f, attr, steps, cards=n, mode="pipeline", omega=1.0, uw=(0.05, 0.0),
                          faults=faults)
        wall = time.perf_counter() - t0
        ref = lbm.run_emulator(design, f, attr, steps=steps, omega=1.0, uw=(0.05, 0.0))
        rows.append({**r.details, "cards_n": n, "mcell_steps_per_s": r.cell_steps_per_s / 1e6, "faults": faults,
                     "wall_s": wall, "bit_exact": bool(np.array_equal(r.f.view(np.uint32), ref.view(np.uint32))),
                     "bytes_per_card": attr.size * lbm.RECORD_BYTES})
    need = needed_link_gbps()
    head = (f"LBM pipeline across cards: {args.width} x {args.height} cavity ({attr.size * lbm.RECORD_BYTES:,} B per pass), "
            f"{args.cascade} cores per card, one pass; machine: {cpu_name()}; {time.strftime('%Y-%m-%d')}")
    print(head)
    print("| cards | faults | cycles | M cell-steps/s | first-core stall per card | link use | payload use | "
          "bit-exact |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        stalls = " / ".join(f"{s:.1%}" for s in r["stall_rates"])
        links = " / ".join(f"{u:.2f}" for u in r["link_utilisation"])
        pay = " / ".join(f"{u:.2f}" for u in r["payload_utilisation"])
        print(f"| {r['cards_n']} | {'1e-3 flips + drops' if r['faults'] else 'none'} | {r['cycles']:,} | "
              f"{r['mcell_steps_per_s']:.1f} | {stalls} | {links} | {pay} | {r['bit_exact']} |")
    print(f"one record per cycle at 200 MHz needs {need['payload']:.0f} Gb/s of payload per link "
          f"({need['payload'] / 8:.0f} GB/s), {need['on_link']:.0f} Gb/s with the STREAM packet format; "
          f"the RTL link moves 32 bits per cycle = 6.4 Gb/s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"title": head, "needed_link_gbps": need, "rows": rows}, indent=1) + "\n")
    return 0 if all(r["bit_exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""`spgen cluster status CLUSTER.json [--traffic BYTES]`: open a cluster and print the state of
every card's RDMA engine and link counters (read through the CSRs on RTL cards)."""
from __future__ import annotations

import argparse

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["status"], help="status: open the cluster, print every card and link")
    parser.add_argument("file", metavar="CLUSTER.json", help="cluster file (docs/rdma.md)")
    parser.add_argument("--traffic", type=int, default=0, metavar="BYTES",
                        help="first put BYTES from every card to every other card, all at once, and wait")


def run(args: argparse.Namespace) -> int:
    from ..runtime import rdma

    cl = rdma.cluster(args.file)
    n = len(cl)
    present = [c for c in range(n) if cl.sim.present(c)] if cl.rtl else list(range(n))
    if args.traffic:
        xfers = [cl[a].put_async(b, 0, 0x100000 + 0x10000 * a, args.traffic)
                 for a in present for b in present if a != b]
        cl.wait_all(xfers)
        print(f"{len(xfers)} puts of {args.traffic} B done at cycle {cl.now}")
    if cl.rtl:
        for c in present:  # each card's build and what its stream endpoints carry
            print(f"card {c}: {cl.card_summary(c)}")
        print(cl.dump())
    else:
        print(f"network model, {n} cards, cycle {cl.now}: {cl.stats()}")
    return 0

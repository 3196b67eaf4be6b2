"""`spgen conf BUILD...`: reprogram a simulated card's AFU slot, as OPAE's fpgaconf does."""
from __future__ import annotations

import argparse
import json
import uuid
from pathlib import Path

from .._diagnostics import SpgenError

__all__ = ["PUBLISHED", "add_arguments", "run"]

# docs/reference.md: the published platform's partial reconfiguration of the AFU
PUBLISHED = "published fpgaconf: 1.39 s for a 95.5 MB bitstream, DDR cleared"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("builds", nargs="+", metavar="BUILD",
                        help="spgen build directories (or 'loopback') loaded one after the other")
    parser.add_argument("--card", default="loopback", metavar="BUILD",
                        help="what the card holds when it is opened (default: the loop-back AFU)")
    parser.add_argument("--keep-ddr", action="store_true",
                        help="keep the card's DDR contents (fpgaconf clears them)")
    parser.add_argument("--afu-id", metavar="UUID",
                        help="the AFU ID every load must give (default: each build's afu.json "
                             "accelerator-type-uuid)")
    parser.add_argument("--reconf-s", type=float, metavar="S",
                        help="simulated time of one reconfiguration (model parameter reconf_s, "
                             "default 1.39 s, the published figure)")
    parser.epilog = ("A simulated card lives in one process: the tool opens one, loads each BUILD "
                     "into its AFU slot in turn and reports each load's simulated time beside the "
                     f"published one ({PUBLISHED}). Programs reconfigure their own card with "
                     "card.reconfigure(BUILD) or afuShellReconfigure (docs/reconf.md).")


def _describe(build: str) -> str:
    meta = Path(build) / "hw" / "afu.json"
    if not meta.is_file():
        return "loop-back AFU" if build == "loopback" else build
    spg = json.loads(meta.read_text()).get("spgen", {})
    core = spg.get("core")
    return f"{spg.get('n-cores', '?')} x {core}" if core else "loop-back AFU"


def run(args: argparse.Namespace) -> int:
    from .. import runtime

    if args.reconf_s is not None and not args.reconf_s >= 0:
        raise SpgenError(f"--reconf-s needs a time >= 0 in seconds, got {args.reconf_s}")
    params = {"reconf_s": args.reconf_s} if args.reconf_s is not None else None
    for build in (args.card, *args.builds):  # before the card is opened
        if build != "loopback" and not Path(build).is_dir():
            raise SpgenError(f"no such directory: {build} (a card holds a spgen build directory "
                             "or 'loopback')")
    with runtime.open(args.card, params=params) as card:
        print(f"card opened holding {_describe(args.card)} ({args.card})")
        for build in args.builds:
            ns = card.reconfigure(build, keep_ddr=args.keep_ddr, afu_id=args.afu_id)
            info = card.info
            afu = uuid.UUID(int=card.read_reg_bits("AFU_ID_H") << 64 | card.read_reg_bits("AFU_ID_L"))
            ddr = "DDR kept" if args.keep_ddr else "DDR cleared"
            print(f"loaded {build}: {_describe(build)}, AFU ID {afu}, {info['in_record_words']}-word "
                  f"records in, {info['out_record_words']}-word out; {ns / 1e9:.3f} s simulated, "
                  f"{ddr} (reconf_s={card.sim_params()['reconf_s']:g}; {PUBLISHED})")
    return 0

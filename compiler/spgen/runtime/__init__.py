"""The afushell runtime from Python: open a (simulated) card, DMA, registers, core runs."""
from ._build import build_card, build_runtime, loopback_card, shell_sources
from ._card import KINDS, AfuError, Card, Request, RunResult, open
from ._peer import CardDmaResult, PeerBuffer

__all__ = [
           "KINDS",
           "AfuError",
           "Card",
           "CardDmaResult",
           "PeerBuffer",
           "Request",
           "RunResult",
           "build_card",
           "build_runtime",
           "loopback_card",
           "open",
           "shell_sources",
]

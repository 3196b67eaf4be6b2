"""What the lowering of expressions, calls and HDL blocks shares: types, the error
marker, untyped integer constants, source positions."""
from __future__ import annotations

from ..ir import SourceLoc, Type
from . import _ast as A

__all__ = ["ARITY", "ERR", "TYPES", "IntC", "expr_loc", "sloc"]

TYPES = {"f32": Type.F32, "i32": Type.I32, "u32": Type.U32, "bool": Type.BOOL}
ARITY = {"sqrt": (1, 1), "abs": (1, 1), "min": (2, 2), "max": (2, 2), "sel": (3, 3),
          "f32": (1, 1), "i32": (1, 1), "u32": (1, 1), "bits": (1, 1), "fbits": (1, 1),
          "shift": (2, 3)}



class _Err:
    """An expression that already has an error: absorbs further checks silently."""

    def __repr__(self) -> str:
        return "<error>"


ERR = _Err()


class IntC:
    """An untyped integer constant: exact until it meets a typed operand (SPD.md: a literal
    takes the type of the other operand)."""

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value


def sloc(loc: A.Loc | None) -> SourceLoc | None:
    return SourceLoc(loc.file, loc.line, loc.col) if loc else None


def expr_loc(e: A.Expr) -> A.Loc:
    """Leftmost position of an expression (where a reader's eye starts)."""
    while True:
        t = type(e)
        if t is A.Binary:
            e = e.lhs
        elif t is A.Cond:
            e = e.cond
        else:
            return e.loc

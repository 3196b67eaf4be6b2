"""The one table of IR operations: operand and result types, and what each op means."""
from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["FLOP_KINDS", "OPS", "IRError", "OpInfo", "Type"]


class IRError(Exception):
    """An IR invariant does not hold (a compiler bug, never a user error)."""


class Type(enum.Enum):
    """Value types of SPD (SPD.md "Declarations")."""

    F32 = "f32"
    I32 = "i32"
    U32 = "u32"
    BOOL = "bool"

    @property
    def width(self) -> int:
        return 1 if self is Type.BOOL else 32

    def __str__(self) -> str:  # printed IR uses the SPD spelling
        return self.value


@dataclass(frozen=True)
class OpInfo:
    """Static facts about one operation kind, for every back end.

    ``arity`` is the operand count (``None`` = variable, for instances).
    ``kind`` groups ops for reports: ``add``/``mul``/``div``/``sqrt`` count as FLOPs
    (``FLOP_KINDS``), ``fcmp``, ``fother``, ``int``, ``logic``, ``conv``, ``stream``,
    ``source``, ``inst``.
    ``float``: an f32 operand or result (``bitcast`` excluded: it moves bits); the
    operator-library module of a float op has the ``FTZ`` parameter.
    ``flush``: what ``--ftz`` (the Arria 10 hard FP behaviour) does to the op: ``"in"``
    reads subnormal operands as zero of the same sign, ``"inout"`` also flushes a
    subnormal result; ``""`` never flushes (bit operations, integer conversions in).
    ``width``: the op works on any width (bool or 32 bits); its library module has the
    ``WIDTH`` parameter.
    """

    name: str
    arity: int | None
    kind: str
    doc: str
    float: bool = False
    flush: str = ""
    width: bool = False


_FLUSH = {"fadd": "inout", "fsub": "inout", "fmul": "inout", "fdiv": "inout", "fsqrt": "inout",
          # fmin/fmax return a flushed operand: no flush of the result needed
          "fmin": "in", "fmax": "in", "flt": "in", "fle": "in", "fgt": "in", "fge": "in",
          "feq": "in", "fne": "in", "fptosi": "in", "fptoui": "in"}
_FLOAT = {*_FLUSH, "fneg", "fabs", "sitofp", "uitofp"}
_WIDTH = {"and", "or", "xor", "not", "select"}


def _t(*rows: tuple[str, int | None, str, str]) -> dict[str, OpInfo]:
    return {r[0]: OpInfo(*r, float=r[0] in _FLOAT, flush=_FLUSH.get(r[0], ""),
                         width=r[0] in _WIDTH) for r in rows}


# Semantics follow SPD.md exactly; every backend implements every op below bit for bit.
# Integer ops take their signedness from the op name, never from a flag.
OPS: dict[str, OpInfo] = _t(
    # sources
    ("input", 0, "source", "stream input port; attrs: stream ('main'|'brch'), port (name), index"),
    ("reg", 0, "source", "run-time register (CSR); attrs: name, default (32-bit pattern)"),
    ("const", 0, "source", "constant; attrs: bits (32-bit pattern as int; bool is 0/1)"),
    # f32 arithmetic, IEEE-754 binary32, round-to-nearest-even (subnormals flushed under ftz)
    ("fadd", 2, "add", "a + b"),
    ("fsub", 2, "add", "a - b"),
    ("fmul", 2, "mul", "a * b"),
    ("fdiv", 2, "div", "a / b"),
    ("fsqrt", 1, "sqrt", "correctly rounded square root"),
    ("fneg", 1, "fother", "flip the sign bit (also of NaN)"),
    ("fabs", 1, "fother", "clear the sign bit"),
    ("fmin", 2, "fother", "a < b ? a : b (so a NaN operand gives b)"),
    ("fmax", 2, "fother", "a > b ? a : b"),
    # f32 comparisons -> bool (IEEE: any comparison with NaN false except fne)
    ("flt", 2, "fcmp", "a < b"),
    ("fle", 2, "fcmp", "a <= b"),
    ("fgt", 2, "fcmp", "a > b"),
    ("fge", 2, "fcmp", "a >= b"),
    ("feq", 2, "fcmp", "a == b"),
    ("fne", 2, "fcmp", "a != b"),
    # integer arithmetic on i32/u32, two's-complement wrap-around
    ("add", 2, "int", "a + b mod 2^32"),
    ("sub", 2, "int", "a - b mod 2^32"),
    ("mul", 2, "int", "a * b mod 2^32 (low word)"),
    ("neg", 1, "int", "-a mod 2^32"),
    ("sdiv", 2, "int", "signed a / b toward zero; b == 0 gives 0; INT_MIN/-1 gives INT_MIN"),
    ("udiv", 2, "int", "unsigned a / b; b == 0 gives 0"),
    ("srem", 2, "int", "signed a % b, sign of a; b == 0 gives 0; INT_MIN % -1 gives 0"),
    ("urem", 2, "int", "unsigned a % b; b == 0 gives 0"),
    ("shl", 2, "int", "a << b; b >= 32 (b as unsigned) gives 0"),
    ("lshr", 2, "int", "logical a >> b (u32); b >= 32 gives 0"),
    ("ashr", 2, "int", "arithmetic a >> b (i32); b >= 32 gives the sign fill"),
    ("smin", 2, "int", "signed min"),
    ("smax", 2, "int", "signed max"),
    ("umin", 2, "int", "unsigned min"),
    ("umax", 2, "int", "unsigned max"),
    ("iabs", 1, "int", "a < 0 ? -a : a (i32, wrap-around: abs(INT_MIN) = INT_MIN)"),
    # integer comparisons -> bool
    ("ieq", 2, "int", "a == b"),
    ("ine", 2, "int", "a != b"),
    ("slt", 2, "int", "signed a < b"),
    ("sle", 2, "int", "signed a <= b"),
    ("sgt", 2, "int", "signed a > b"),
    ("sge", 2, "int", "signed a >= b"),
    ("ult", 2, "int", "unsigned a < b"),
    ("ule", 2, "int", "unsigned a <= b"),
    ("ugt", 2, "int", "unsigned a > b"),
    ("uge", 2, "int", "unsigned a >= b"),
    # bitwise on i32/u32, logical on bool (result type = operand type)
    ("and", 2, "logic", "a & b (bool: a && b)"),
    ("or", 2, "logic", "a | b (bool: a || b)"),
    ("xor", 2, "logic", "a ^ b"),
    ("not", 1, "logic", "~a (bool: !a)"),
    # select, any type: c ? a : b
    ("select", 3, "logic", "args (c:bool, a, b): c ? a : b"),
    # conversions
    ("sitofp", 1, "conv", "i32 -> f32, round-to-nearest-even"),
    ("uitofp", 1, "conv", "u32 -> f32, round-to-nearest-even"),
    ("fptosi", 1, "conv", "f32 -> i32 toward zero, saturating, NaN -> 0"),
    ("fptoui", 1, "conv", "f32 -> u32 toward zero, saturating (negative -> 0), NaN -> 0"),
    ("bitcast", 1, "conv", "same 32 bits, new type (bits(), fbits(), i32<->u32)"),
    ("booltoint", 1, "conv", "bool -> i32/u32 0 or 1"),
    # streams
    ("shift", 1, "stream", "element k gets a[k - offset]; outside the stream: fill. attrs: offset, fill"),
    # hierarchy: instance results are read through 'proj' nodes
    ("inst", None, "inst", "SPD module instance (before inlining); attrs: module, params, label"),
    ("extern", None, "inst", "external Verilog module; attrs: module, file, latency, label, out_types"),
    ("proj", 1, "inst", "output attrs.index of an inst/extern node"),
)

# Op kinds that count as floating-point operations in reports (FLOPs per element).
FLOP_KINDS = ("add", "mul", "div", "sqrt")

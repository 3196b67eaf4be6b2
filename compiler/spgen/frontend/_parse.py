"""Parse SPD text into the syntax tree: ANTLR (SLL first, full LL on failure) plus a tree builder."""
from __future__ import annotations

import re
import time

from antlr4.atn.PredictionMode import PredictionMode
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import ParseCancellationException
from antlr4.error.ErrorStrategy import BailErrorStrategy, DefaultErrorStrategy
from antlr4.tree.Tree import TerminalNode

from .._diagnostics import Diagnostics
from . import _ast as A
from ._generated.SPDLexer import SPDLexer
from ._generated.SPDParser import SPDParser
from ._lexer import FastTokenStream, tokenize

__all__ = ["parse_stream", "parse_text", "too_deep"]

P = SPDParser
_KIND = {P.MAIN_IN: "Main_In", P.MAIN_OUT: "Main_Out", P.BRCH_IN: "Brch_In",
         P.BRCH_OUT: "Brch_Out"}


def _describe(tok) -> str:
    if tok is None or tok.type == -1:
        return "end of file"
    return repr(tok.text)


_FRIENDLY = {"ID": "identifier", "INT": "integer", "REAL": "real number", "STRING": "string",
             "NAME": "'Name'", "MAIN_IN": "'Main_In'", "MAIN_OUT": "'Main_Out'",
             "BRCH_IN": "'Brch_In'", "BRCH_OUT": "'Brch_Out'", "PARAM": "'Param'",
             "REG": "'Reg'", "EQU": "'EQU'", "HDL": "'HDL'", "DRCT": "'DRCT'",
             "INCLUDE": "'Include'"}
_NAMES = re.compile(r"(?<!')\b(" + "|".join(_FRIENDLY) + r")\b(?!')")


class _Listener(ErrorListener):
    """Turns ANTLR syntax errors into diagnostics (never printed by the runtime)."""

    def __init__(self, diags: Diagnostics, file: str):
        self.diags = diags
        self.file = file
        self.seen: set[tuple[int, int]] = set()

    def syntaxError(self, recognizer, offendingSymbol, line, column, msg, e):
        if (line, column) in self.seen:  # one error per position: recovery repeats itself
            return
        self.seen.add((line, column))
        msg = msg.replace("'<EOF>'", "end of file").replace("<EOF>", "end of file")
        msg = _NAMES.sub(lambda m: _FRIENDLY[m.group(0)], msg)
        if msg.startswith("missing "):
            # Point just after the previous token, where the missing text belongs.
            prev = recognizer.getTokenStream().LT(-1)
            if prev is not None and prev.type != -1:
                msg = msg[:msg.rindex(" at ")] if " at " in msg else msg
                line, column = prev.line, prev.column + len(prev.text)
        self.diags.error(f"syntax error: {msg}", self.file, line, column + 1)


def _tokens(text: str, file: str, diags: Diagnostics) -> FastTokenStream:
    tokens = tokenize(text)
    if any(t.type == SPDLexer.BAD_CHAR for t in tokens):
        for tok in tokens:
            if tok.type == SPDLexer.BAD_CHAR:
                msg = ("unterminated string literal" if tok.text == '"'
                       else f"unexpected character {tok.text!r}")
                diags.error(msg, file, tok.line, tok.column + 1)
        # Dropped, so the parser reports no second error for the same character.
        tokens = [t for t in tokens if t.type != SPDLexer.BAD_CHAR]
    return FastTokenStream(tokens)


# Deepest expression nesting accepted. The ANTLR runtime recurses per level and its
# error recovery costs grow with the square of the depth, so deeper input is refused
# with a diagnostic before parsing rather than risking a crash or a minutes-long run.
MAX_NESTING = 256

_PREFIX_AFTER = {"(", ",", "=", "?", ":", "+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">",
                 ">=", "==", "!=", "&", "^", "|", "&&", "||", "!", "~", "["}
_BINARY = {"+", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|",
           "&&", "||"}
_STMT_START = {SPDLexer.NAME, SPDLexer.MAIN_IN, SPDLexer.MAIN_OUT, SPDLexer.BRCH_IN,
               SPDLexer.BRCH_OUT, SPDLexer.PARAM, SPDLexer.REG, SPDLexer.EQU, SPDLexer.HDL,
               SPDLexer.DRCT, SPDLexer.INCLUDE}


def _too_deep(tokens) -> object | None:
    """The first token at which the parser's recursion would exceed MAX_NESTING.

    A conservative estimate from the tokens alone: each open parenthesis, each `?`
    of a (right-nested) conditional chain and each pending prefix operator is a level.
    """
    frames = [[0, 0]]  # per parenthesis level: '?' count, pending prefix operators
    depth = 0
    prev = ";"
    for tok in tokens:
        if tok.channel != 0 or tok.type == -1:
            continue
        text = tok.text
        if tok.type in _STMT_START or text == ";":
            frames = [[0, 0]]
            depth = 0
        elif text == "(":
            frames.append([0, 0])
            depth += 1
        elif text == ")":
            if len(frames) > 1:
                q, p = frames.pop()
                depth -= 1 + q + p
        elif text == "?":
            frames[-1][0] += 1
            depth += 1 - frames[-1][1]
            frames[-1][1] = 0
        elif text in (",", ":"):
            f = frames[-1]
            depth -= f[1] + (f[0] if text == "," else 0)
            f[1] = 0
            if text == ",":
                f[0] = 0
        elif text in ("!", "~") or (text == "-" and prev in _PREFIX_AFTER):
            frames[-1][1] += 1
            depth += 1
        elif text in _BINARY or text == "-":
            depth -= frames[-1][1]
            frames[-1][1] = 0
        if depth > MAX_NESTING:
            return tok
        prev = text
    return None


def too_deep(tokens, file: str, diags: Diagnostics) -> bool:
    """Report the first token nested more than MAX_NESTING levels deep, if any."""
    deep = _too_deep(tokens)
    if deep is not None:
        diags.error(f"expression nested too deeply (more than {MAX_NESTING} levels of "
                    "parentheses, prefix operators or conditionals)", file, deep.line,
                    deep.column + 1)
    return deep is not None


def parse_stream(stream: FastTokenStream, file: str, diags: Diagnostics):
    """The parse tree of ``stream``; syntax errors go to ``diags``."""
    parser = SPDParser(stream)
    parser.removeErrorListeners()
    # Two-stage parsing: SLL is much faster and exact for correct input; only a
    # failure is re-parsed with full LL to get the real error and recovery.
    parser._interp.predictionMode = PredictionMode.SLL
    parser._errHandler = BailErrorStrategy()
    try:
        return parser.file_()
    except ParseCancellationException:
        stream.seek(0)
        parser.reset()
        parser.addErrorListener(_Listener(diags, file))
        parser._errHandler = DefaultErrorStrategy()
        parser._interp.predictionMode = PredictionMode.LL
        return parser.file_()


def parse_text(text: str, file: str, diags: Diagnostics,
               timings: dict[str, float] | None = None) -> A.SourceFile | None:
    """Parse one file; syntax errors go to ``diags`` and give ``None``.

    ``timings`` (optional) accumulates seconds spent in "lex", "parse" and "ast".
    """
    timings = {} if timings is None else timings
    t0 = time.thread_time()
    n_before = len(diags.errors)
    stream = _tokens(text, file, diags)
    if too_deep(stream.tokens, file, diags):
        return None
    t1 = time.thread_time()
    timings["lex"] = timings.get("lex", 0.0) + t1 - t0
    tree = parse_stream(stream, file, diags)
    t2 = time.thread_time()
    timings["parse"] = timings.get("parse", 0.0) + t2 - t1
    if len(diags.errors) > n_before:
        return None
    ast = _Builder(file).file(tree)
    timings["ast"] = timings.get("ast", 0.0) + time.thread_time() - t2
    return ast


class _Builder:
    """Parse tree -> syntax tree. Only called on trees without syntax errors."""

    def __init__(self, file: str):
        self.f = file

    def loc(self, tok) -> A.Loc:
        return A.Loc(self.f, tok.line, tok.column + 1)

    def file(self, ctx) -> A.SourceFile:
        includes, modules = [], []
        for c in ctx.children:
            if isinstance(c, P.IncludeContext):
                s = c.STRING().symbol
                includes.append(A.Include(s.text[1:-1], self.loc(s)))
            elif isinstance(c, P.ModuleContext):
                modules.append(self.module(c))
        return A.SourceFile(self.f, includes, modules)

    def module(self, ctx) -> A.Module:
        name = ctx.ID().symbol
        m = A.Module(name.text, self.loc(name))
        for st in ctx.children[3:]:
            s = st.children[0]
            t = type(s)
            if t is P.EquContext:
                m.stmts.append(A.Equ(s.label.text, s.target.text, self.expr(s.children[5]),
                                     self.loc(s.label), self.loc(s.target)))
            elif t is P.StreamDeclContext:
                ports = [self.port(p) for p in s.children if isinstance(p, P.PortDeclContext)]
                sid = s.children[2].symbol
                m.streams.append(A.StreamDecl(_KIND[s.kind.type], sid.text, ports,
                                              self.loc(s.kind)))
            elif t is P.ParamDeclContext:
                tok = s.children[1].symbol
                m.params.append(A.ParamDecl(tok.text, self.expr(s.children[3]), self.loc(tok)))
            elif t is P.RegDeclContext:
                tok = s.children[1].symbol
                ty = s.typeName
                m.regs.append(A.RegDeclStmt(tok.text, ty.text if ty else None,
                                            self.expr(s.children[-2]), self.loc(tok),
                                            self.loc(ty) if ty else None))
            elif t is P.HdlContext:
                m.stmts.append(self.hdl(s))
            elif t is P.DrctContext:
                m.stmts.append(self.drct(s))
        return m

    def port(self, ctx) -> A.PortDecl:
        tok = ctx.children[0].symbol
        ty = ctx.typeName
        return A.PortDecl(tok.text, ty.text if ty else None, self.loc(tok),
                          self.loc(ty) if ty else None)

    def hdl(self, s) -> A.Hdl:
        outs = [self.port(p) for p in s.portDecl()]
        args = [self.expr(e) for e in s.expr()]
        params = []
        for hp in s.getTypedRuleContexts(P.HdlParamContext):
            tok = hp.children[0].symbol
            v = hp.children[2]
            if isinstance(v, TerminalNode):
                params.append(A.HdlParam(tok.text, None, v.symbol.text[1:-1], self.loc(tok)))
            else:
                params.append(A.HdlParam(tok.text, self.expr(v), None, self.loc(tok)))
        return A.Hdl(s.label.text, s.latency.text, outs, s.callee.text, args, params,
                     self.loc(s.label), self.loc(s.latency), self.loc(s.callee))

    def drct(self, s) -> A.Drct:
        ids = [c.symbol for c in s.children if isinstance(c, TerminalNode)
               and c.symbol.type == P.ID]
        eq = next(i for i, c in enumerate(s.children)
                  if isinstance(c, TerminalNode) and c.symbol.text == "=")
        left = [(t.text, self.loc(t)) for t in ids if t.tokenIndex < s.children[eq].symbol.tokenIndex]
        right = [(t.text, self.loc(t)) for t in ids if t.tokenIndex > s.children[eq].symbol.tokenIndex]
        return A.Drct(left, right, self.loc(s.start))

    def expr(self, ctx) -> A.Expr:
        ch = ctx.children
        n = len(ch)
        cond = None
        if n >= 5 and isinstance(ch[-4], TerminalNode) and ch[-4].symbol.text == "?":
            cond = ch[-4].symbol
            n -= 4
        # Shunting-yard over the flat `operand (op operand)*` list: precedence and
        # left associativity of SPD.md, without recursion on long chains.
        out = [self.operand(ch[0])]
        ops: list = []
        for i in range(1, n, 2):
            tok = ch[i].symbol
            prec = PRECEDENCE[tok.text]
            while ops and PRECEDENCE[ops[-1].text] >= prec:
                o = ops.pop()
                rhs = out.pop()
                out.append(A.Binary(o.text, out.pop(), rhs, self.loc(o)))
            ops.append(tok)
            out.append(self.operand(ch[i + 1]))
        while ops:
            o = ops.pop()
            rhs = out.pop()
            out.append(A.Binary(o.text, out.pop(), rhs, self.loc(o)))
        node = out[0]
        if cond is not None:
            node = A.Cond(node, self.expr(ch[-3]), self.expr(ch[-1]), self.loc(cond))
        return node

    def operand(self, ctx) -> A.Expr:
        ch = ctx.children
        k = 0
        while ch[k].symbol.type in _PREFIX_TYPES:
            k += 1
        tok = ch[k].symbol
        t = tok.type
        if t == P.ID:
            if len(ch) == k + 1:
                node = A.NameRef(tok.text, self.loc(tok))
            else:
                node = A.Call(tok.text, [self.expr(c) for c in ch[k + 2:-1:2]], self.loc(tok))
        elif t == P.INT:
            node = A.IntLit(_int_value(tok.text), tok.text, self.loc(tok))
        elif t == P.REAL:
            node = A.RealLit(tok.text, self.loc(tok))
        else:  # '(' expr ')'
            node = self.expr(ch[k + 1])
        for c in reversed(ch[:k]):
            node = A.Unary(c.symbol.text, node, self.loc(c.symbol))
        return node


_PREFIX_TYPES = {SPDLexer.literalNames.index(f"'{op}'") for op in ("-", "!", "~")}

# Binary operators, higher binds tighter (SPD.md "Expressions"); all associate left.
PRECEDENCE = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7,
              ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def _int_value(text: str) -> int | None:
    """The literal's value, or None when it is absurdly long (reported by the checker)."""
    if len(text) > 40:
        return None
    return int(text, 16) if text[:2] in ("0x", "0X") else int(text, 10)

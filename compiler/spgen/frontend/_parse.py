"""Parse SPD text into the syntax tree: ANTLR (SLL first, full LL on failure) plus a tree builder."""
from __future__ import annotations

from antlr4 import CommonTokenStream, InputStream
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.ErrorStrategy import BailErrorStrategy, DefaultErrorStrategy
from antlr4.error.Errors import ParseCancellationException
from antlr4.tree.Tree import TerminalNode

from .._diagnostics import Diagnostics
from . import _ast as A
from ._generated.SPDLexer import SPDLexer
from ._generated.SPDParser import SPDParser

__all__ = ["parse_text"]

P = SPDParser
_KIND = {P.MAIN_IN: "Main_In", P.MAIN_OUT: "Main_Out", P.BRCH_IN: "Brch_In",
         P.BRCH_OUT: "Brch_Out"}


def _describe(tok) -> str:
    if tok is None or tok.type == -1:
        return "end of file"
    return repr(tok.text)


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
        self.diags.error(f"syntax error: {msg}", self.file, line, column + 1)


def _tokens(text: str, file: str, diags: Diagnostics) -> CommonTokenStream:
    lexer = SPDLexer(InputStream(text))
    lexer.removeErrorListeners()
    stream = CommonTokenStream(lexer)
    stream.fill()
    for tok in stream.tokens:
        if tok.type == SPDLexer.BAD_CHAR:
            if tok.text == '"':
                msg = "unterminated string literal"
            else:
                msg = f"unexpected character {tok.text!r}"
            diags.error(msg, file, tok.line, tok.column + 1)
            tok.channel = 1  # hidden: the parser never sees it, so no second error
    return stream


def parse_text(text: str, file: str, diags: Diagnostics) -> A.SourceFile | None:
    """Parse one file; syntax errors go to ``diags`` and give ``None``."""
    n_before = len(diags.errors)
    stream = _tokens(text, file, diags)
    parser = SPDParser(stream)
    parser.removeErrorListeners()
    # Two-stage parsing: SLL is much faster and exact for correct input; only a
    # failure is re-parsed with full LL to get the real error and recovery.
    parser._interp.predictionMode = PredictionMode.SLL
    parser._errHandler = BailErrorStrategy()
    try:
        tree = parser.file_()
    except ParseCancellationException:
        stream.seek(0)
        parser.reset()
        parser.addErrorListener(_Listener(diags, file))
        parser._errHandler = DefaultErrorStrategy()
        parser._interp.predictionMode = PredictionMode.LL
        tree = parser.file_()
    if len(diags.errors) > n_before:
        return None
    return _Builder(file).file(tree)


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
        t = type(ctx)
        if t is P.BinaryExprContext:
            # Walk the left spine iteratively: long `a + b + c + ...` chains are
            # left-deep and would otherwise recurse once per operand.
            spine = []
            while type(ctx) is P.BinaryExprContext:
                spine.append(ctx)
                ctx = ctx.children[0]
            node = self.expr(ctx)
            for c in reversed(spine):
                op = c.children[1].symbol
                node = A.Binary(op.text, node, self.expr(c.children[2]), self.loc(op))
            return node
        if t is P.PrimaryExprContext:
            return self.primary(ctx.children[0])
        if t is P.UnaryExprContext:
            op = ctx.children[0].symbol
            return A.Unary(op.text, self.expr(ctx.children[1]), self.loc(op))
        if t is P.CondExprContext:
            q = ctx.children[1].symbol
            return A.Cond(self.expr(ctx.children[0]), self.expr(ctx.children[2]),
                          self.expr(ctx.children[4]), self.loc(q))
        raise AssertionError(f"unexpected parse node {t.__name__}")

    def primary(self, ctx) -> A.Expr:
        t = type(ctx)
        if t is P.NameRefContext:
            tok = ctx.children[0].symbol
            return A.NameRef(tok.text, self.loc(tok))
        if t is P.IntLitContext:
            tok = ctx.children[0].symbol
            return A.IntLit(_int_value(tok.text), tok.text, self.loc(tok))
        if t is P.RealLitContext:
            tok = ctx.children[0].symbol
            return A.RealLit(tok.text, self.loc(tok))
        if t is P.CallExprContext:
            tok = ctx.children[0].symbol
            args = [self.expr(c) for c in ctx.children[2:-1:2]]
            return A.Call(tok.text, args, self.loc(tok))
        if t is P.ParenExprContext:
            return self.expr(ctx.children[1])
        raise AssertionError(f"unexpected parse node {t.__name__}")


def _int_value(text: str) -> int | None:
    """The literal's value, or None when it is absurdly long (reported by the checker)."""
    if len(text) > 40:
        return None
    return int(text[2:], 16) if text[:2] in ("0x", "0X") else int(text, 10)

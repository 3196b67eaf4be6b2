"""A regular-expression lexer producing exactly the tokens of the generated ANTLR lexer.

The ANTLR Python lexer costs about as much as parsing itself; this one is several
times faster. tests/frontend/test_frontend_lexer.py checks token-for-token agreement
with ``SPDLexer`` on valid and fuzzed input.
"""
from __future__ import annotations

import re

from antlr4.CommonTokenFactory import CommonTokenFactory
from antlr4.CommonTokenStream import CommonTokenStream
from antlr4.error.Errors import IllegalStateException
from antlr4.ListTokenSource import ListTokenSource
from antlr4.Token import CommonToken, Token

from ._generated.SPDLexer import SPDLexer

__all__ = ["FastTokenStream", "tokenize"]

L = SPDLexer
_LITERAL = {name[1:-1]: i for i, name in enumerate(SPDLexer.literalNames) if name.startswith("'")}
_KEYWORDS = {k: v for k, v in _LITERAL.items() if k[0].isalpha()}

_TOKEN = re.compile(r"""
   (?P<ws>[ \t\r\n\f]+)
 | (?P<comment>(?:\#|//)[^\r\n]*)
 | (?P<hex>0[xX][0-9a-fA-F]+)
 | (?P<real>[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
 | (?P<int>[0-9]+)
 | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
 | (?P<string>"[^"\r\n]*")
 | (?P<op>::|<<|>>|<=|>=|==|!=|&&|\|\||[;{},:=()\[\]*/%+\-<>&^|?!~])
 | (?P<bad>.)
""", re.VERBOSE | re.DOTALL)

_NO_SOURCE = (None, None)


class _Token(CommonToken):
    """A CommonToken filled in one call (the generic constructor is a hot spot)."""

    __slots__ = ()

    def __init__(self, type: int, start: int, stop: int, text: str, line: int, column: int):
        self.source = _NO_SOURCE
        self.type = type
        self.channel = 0
        self.start = start
        self.stop = stop
        self.tokenIndex = -1
        self.line = line
        self.column = column
        self._text = text


_KINDS = {"hex": L.INT, "real": L.REAL, "int": L.INT, "string": L.STRING, "bad": L.BAD_CHAR}


def tokenize(text: str) -> list[CommonToken]:
    """Tokens of ``text`` (comments and whitespace skipped), ending with EOF."""
    out: list[CommonToken] = []
    append = out.append
    line, line_start = 1, 0
    keywords, literal, kinds, ident = _KEYWORDS, _LITERAL, _KINDS, L.ID
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "comment":
            continue
        s = m.group()
        start = m.start()
        if kind == "ws":
            nl = s.count("\n")
            if nl:
                line += nl
                line_start = start + s.rindex("\n") + 1
            continue
        if kind == "id":
            t = keywords.get(s, ident)
        elif kind == "op":
            t = literal[s]
        else:
            t = kinds[kind]
        append(_Token(t, start, start + len(s) - 1, s, line, start - line_start))
    n = len(text)
    append(_Token(Token.EOF, n, n - 1, "<EOF>", line, n - line_start))
    return out


class FastTokenStream(CommonTokenStream):
    """A pre-lexed stream with every token on the default channel.

    ``CommonTokenStream`` scans for on-channel tokens on every lookahead (about five
    per token); with no hidden tokens plain index arithmetic gives the same answers.
    """

    def __init__(self, tokens: list[CommonToken]):
        src = ListTokenSource(tokens)
        src._factory = CommonTokenFactory.DEFAULT
        super().__init__(src)
        for i, t in enumerate(tokens):
            t.tokenIndex = i
        self.tokens = tokens
        self.fetchedEOF = True
        self.index = 0
        self._last = len(tokens) - 1

    def lazyInit(self):
        pass

    def LT(self, k: int):
        if k == 0:
            return None
        i = self.index + k - 1 if k > 0 else self.index + k
        if i < 0:
            return None
        return self.tokens[min(self._last, i)]

    def LB(self, k: int):
        i = self.index - k
        return self.tokens[i] if i >= 0 else None

    def LA(self, i: int) -> int:
        return self.LT(i).type

    def consume(self):
        if self.index >= self._last:
            raise IllegalStateException("cannot consume EOF")
        self.index += 1

    def seek(self, index: int):
        self.index = min(max(index, 0), self._last)

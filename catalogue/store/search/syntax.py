"""The search language's syntax: tokens and the syntax tree (docs/search.md).

A tokenizer and a recursive-descent parser turn the text into a tree of :class:`Node` (keywords
case-insensitive)::

    query      := or_expr
    or_expr    := and_expr (("or" | "||") and_expr)*
    and_expr   := not_expr (("and" | "&&") not_expr)*
    not_expr   := ("not" | "!") not_expr | comparison
    comparison := sum [ CMP sum | "in" sum ]          CMP: = == != <> < <= > >=
    sum        := product (("+" | "-" | "+-") product)*
    product    := unary (("*" | "/") unary)*
    unary      := ("-" | "+" | "+-") unary | primary
    primary    := NUMBER | NAME | NAME "(" [args] ")" | "(" or_expr ("," or_expr)* [","] ")"

Limits keep hostile input harmless: at most :data:`MAX_LENGTH` characters, :data:`MAX_DEPTH` levels of
nesting, numbers of at most :data:`MAX_DIGITS` digits.  The paper's typography is accepted as the ASCII it
stands for (:data:`ASCII`: ``±`` is ``+-``, ``ε₂`` is ``e2``, ``≤`` is ``<=``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from whist_catalogue.errors import SearchSyntaxError

__all__ = ["MAX_LENGTH", "MAX_DEPTH", "MAX_DIGITS", "ASCII", "KEYWORDS", "Token", "tokenize", "Node", "parse"]

MAX_LENGTH = 4000
MAX_DEPTH = 60
MAX_DIGITS = 15

# -- tokens -------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\+-|<=|>=|!=|<>|==|&&|\|\||[=<>()+\-*/,!])
    """,
    re.VERBOSE,
)
ASCII = str.maketrans({"±": "+-", "−": "-", "ε": "e", "≤": "<=", "≥": ">=", "≠": "!=", "₀": "0", "₁": "1", "₂": "2",
                       "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8", "₉": "9"})
"""The paper's typography as the language's ASCII (``str.translate``)."""
KEYWORDS = {"and", "or", "not", "in"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # number, name, op, keyword, end
    text: str
    pos: int


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LENGTH:
        raise SearchSyntaxError(f"search: expression too long ({len(text)} characters, at most {MAX_LENGTH})")
    source = text.translate(ASCII)
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            raise SearchSyntaxError(f"search: unexpected character {source[pos]!r} at position {pos + 1}")
        kind = m.lastgroup
        assert kind is not None
        word = m.group()
        if kind == "number" and len(word.replace(".", "")) > MAX_DIGITS:
            raise SearchSyntaxError(f"search: number too large: {word[:20]}… at position {pos + 1}")
        if kind == "name" and word.lower() in KEYWORDS:
            kind, word = "keyword", word.lower()
        if kind != "space":
            tokens.append(Token(kind, word, pos + 1))
        pos = m.end()
    tokens.append(Token("end", "", len(source) + 1))
    return tokens


# -- syntax tree ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    """or, and, not, cmp, in, num, name, call, neg, add, sub, mul, div, tuple"""
    pos: int
    args: tuple[Any, ...] = ()
    text: str = ""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        t = self.tokens[self.i]
        self.i += 1
        return t

    def accept(self, *texts: str) -> Token | None:
        if self.tok.kind in ("op", "keyword") and self.tok.text in texts:
            return self.advance()
        return None

    def expect(self, text: str) -> Token:
        t = self.accept(text)
        if t is None:
            raise self.error(f"expected {text!r}")
        return t

    def error(self, message: str) -> SearchSyntaxError:
        t = self.tok
        found = "the end of the expression" if t.kind == "end" else repr(t.text)
        return SearchSyntaxError(f"search: {message}, found {found} at position {t.pos}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SearchSyntaxError(
                f"search: expression nested too deeply (more than {MAX_DEPTH} levels of parentheses, operators"
                " and chained + - * /)"
            )

    def parse(self) -> Node:
        if self.tok.kind == "end":
            raise SearchSyntaxError("search: empty expression")
        node = self.or_expr()
        if self.tok.kind != "end":
            raise self.error("expected and, or, or the end of the expression")
        return node

    def or_expr(self) -> Node:
        self.enter()
        items = [self.and_expr()]
        while self.accept("or", "||"):
            items.append(self.and_expr())
        self.depth -= 1
        return items[0] if len(items) == 1 else Node("or", items[0].pos, tuple(items))

    def and_expr(self) -> Node:
        items = [self.not_expr()]
        while self.accept("and", "&&"):
            items.append(self.not_expr())
        return items[0] if len(items) == 1 else Node("and", items[0].pos, tuple(items))

    def not_expr(self) -> Node:
        t = self.accept("not", "!")
        if t is not None:
            self.enter()
            inner = self.not_expr()
            self.depth -= 1
            return Node("not", t.pos, (inner,))
        return self.comparison()

    def comparison(self) -> Node:
        left = self.sum()
        t = self.accept("=", "==", "!=", "<>", "<", "<=", ">", ">=")
        if t is not None:
            op = {"==": "=", "<>": "!="}.get(t.text, t.text)
            return Node("cmp", t.pos, (left, self.sum()), op)
        t = self.accept("in")
        if t is not None:
            return Node("in", t.pos, (left, self.sum()))
        return left

    # A chain a + b + c … is a left-deep tree, as deep as it is long, and compiling it recurses that deep:
    # each operator counts as one level of nesting.
    def sum(self) -> Node:
        return self.chain(self.product, {"+": "add", "-": "sub", "+-": "pm"})

    def product(self) -> Node:
        return self.chain(self.unary, {"*": "mul", "/": "div"})

    def chain(self, operand: Callable[[], Node], kinds: dict[str, str]) -> Node:
        node = operand()
        entered = 0
        while (t := self.accept(*kinds)) is not None:
            self.enter()
            entered += 1
            node = Node(kinds[t.text], t.pos, (node, operand()))
        self.depth -= entered
        return node

    def unary(self) -> Node:
        t = self.accept("-", "+-", "+")
        if t is None:
            return self.primary()
        self.enter()
        inner = self.unary()
        self.depth -= 1
        if t.text == "-":
            return Node("neg", t.pos, (inner,))
        if t.text == "+-":
            return Node("pm", t.pos, (Node("num", t.pos, (), "0"), inner))
        return inner

    def primary(self) -> Node:
        t = self.tok
        if t.kind == "number":
            self.advance()
            return Node("num", t.pos, (), t.text)
        if t.kind == "name":
            self.advance()
            if self.accept("("):
                args: list[Node] = []
                if not self.accept(")"):
                    args.append(self.or_expr())
                    while self.accept(","):
                        args.append(self.or_expr())
                    self.expect(")")
                return Node("call", t.pos, tuple(args), t.text)
            return Node("name", t.pos, (), t.text)
        if self.accept("("):
            items = [self.or_expr()]
            trailing = False
            while self.accept(","):
                if self.tok.kind == "op" and self.tok.text == ")":
                    trailing = True
                    break
                items.append(self.or_expr())
            self.expect(")")
            if len(items) == 1 and not trailing:
                return items[0]
            return Node("tuple", t.pos, tuple(items))
        raise self.error("expected a field, a number or '('")


def parse(text: str) -> Node:
    """The syntax tree of a search expression (:class:`~whist_catalogue.errors.SearchSyntaxError` if malformed)."""
    if not isinstance(text, str):
        raise SearchSyntaxError(f"search: not text: {text!r}")
    return _Parser(text).parse()


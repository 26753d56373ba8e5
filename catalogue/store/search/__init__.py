"""The search language over the catalogue's deals (docs/search.md), by stage:

* :mod:`.syntax` — the tokenizer and the parser: text to a syntax tree, within the limits on length and nesting;
* :mod:`.ir` — the language's fields (from :mod:`whist_catalogue.store.fields`) and the compiler from the syntax
  tree to its own small tree of conditions (:data:`~.ir.Expr`);
* :mod:`.arrays` — the back end: a condition evaluated over whole chunks of the level store, and a search over a
  catalogue (count, which levels it covers, the matches in key order).

User text never reaches a database: names must be fields, and every constant is evaluated by NumPy.  This module
gathers what the command line, the app and the store call.
"""

from whist_catalogue.store.search.arrays import (UNKNOWN, VALUE_COLUMNS, ChunkQuery, LevelProgress, Matches, count,
                                                 coverage, evaluate, levels_asked, matches, narrowing_hint)
from whist_catalogue.store.search.ir import (ALIASES, CHECK_ALIASES, FALSE, FIELDS, MAX_ROWS, TRUE, Arithmetic,
                                             ByValue, Column, Comparison, Constant, Expr, Levels, Logic, check_page,
                                             columns_of, compile_search, condition_of, describe_fields)
from whist_catalogue.store.search.syntax import ASCII, MAX_DEPTH, MAX_DIGITS, MAX_LENGTH, Node, Token, parse, tokenize

__all__ = [
    "ALIASES", "ASCII", "CHECK_ALIASES", "FALSE", "FIELDS", "MAX_DEPTH", "MAX_DIGITS", "MAX_LENGTH", "MAX_ROWS",
    "TRUE", "UNKNOWN", "VALUE_COLUMNS", "Arithmetic", "ByValue", "ChunkQuery", "Column", "Comparison", "Constant",
    "Expr", "LevelProgress", "Levels", "Logic", "Matches", "Node", "Token", "check_page", "columns_of",
    "compile_search", "condition_of", "count", "coverage", "describe_fields", "evaluate",
    "levels_asked", "matches", "narrowing_hint", "parse", "tokenize",
]

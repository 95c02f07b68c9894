"""cel-go's syntax errors (``parser/parser.go``, ``parser/errors.go``): cel-go's own grammar
(``cel_grammar/*.interp``, the ATNs of cel-go's generated lexer and parser) run by the ANTLR 4
Python runtime, the algorithm and messages of the Go runtime cel-go links. Around it what cel-go
adds: its error listener, ``recoveryLimitErrorStrategy``, the recursion listener, the limits.
celpy still parses the expressions this accepts (``dra/cel.py``).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from antlr4 import CommonTokenStream, InputStream, Lexer, Parser, Token
from antlr4.atn.ATN import ATN
from antlr4.atn.ATNDeserializer import ATNDeserializer
from antlr4.atn.ATNState import ATNState, LoopEndState
from antlr4.atn.LexerATNSimulator import LexerATNSimulator
from antlr4.atn.Transition import Transition
from antlr4.dfa.DFA import DFA
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import (
    FailedPredicateException,
    RecognitionException,
    UnsupportedOperationException,
)
from antlr4.error.ErrorStrategy import DefaultErrorStrategy
from antlr4.IntervalSet import IntervalSet
from antlr4.ParserInterpreter import ParserInterpreter
from antlr4.ParserRuleContext import InterpreterRuleContext
from antlr4.PredictionContext import PredictionContextCache
from antlr4.tree.Tree import ErrorNode, ParseTreeListener

#: parser.go NewParser's defaults (the Kubernetes CEL environments keep them)
MAX_RECURSION_DEPTH = 250
ERROR_REPORTING_LIMIT = 100
ERROR_RECOVERY_LIMIT = 30
ERROR_RECOVERY_LOOKAHEAD_LIMIT = 256
EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000
_RESERVED = re.compile(r"no viable alternative at input '.(true|false|null)'")
#: common/errors.go NewErrors
MAX_ERRORS_TO_REPORT = 100


class _Grammar(NamedTuple):
    literal_names: list[str]
    symbolic_names: list[str]
    rule_names: list[str]
    channel_names: list[str]
    mode_names: list[str]
    atn: ATN


@cache
def _grammar(name: str) -> _Grammar:
    """A ``.interp`` file: its sections of names (``null`` for none) and the serialized ATN."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in (Path(__file__).parent / "cel_grammar" / name).read_text().splitlines():
        if line.endswith(":") and " " in line or line == "atn:":
            current = sections.setdefault(line[:-1], [])
        elif line:
            current.append(line)
    atn = ATNDeserializer().deserialize([int(x) for x in sections["atn"][0][1:-1].split(",")])

    def names(section: str) -> list[str]:
        return ["<INVALID>" if n == "null" else n for n in sections.get(section, [])]

    return _Grammar(
        names("token literal names"),
        names("token symbolic names"),
        names("rule names"),
        names("channel names"),
        names("mode names"),
        atn,
    )


class _Lexer(Lexer):
    """cel-go's ``CELLexer`` (``parser/gen/cel_lexer.go``), from its ATN."""

    def __init__(self, text: str) -> None:
        super().__init__(InputStream(text))
        g = _grammar("CELLexer.interp")
        self.atn, self.ruleNames = g.atn, g.rule_names
        self.literalNames, self.symbolicNames = g.literal_names, g.symbolic_names
        self.channelNames, self.modeNames = g.channel_names, g.mode_names
        self.grammarFileName = "CEL.g4"
        self._interp = LexerATNSimulator(self, g.atn, _dfa(g.atn), PredictionContextCache())

    def notifyListeners(self, e: Any) -> None:
        """The Go runtime's wording: the text as it is (the Python runtime escapes ``\\n``)."""
        text = self._input.getText(self._tokenStartCharIndex, self._input.index)
        self.getErrorListenerDispatch().syntaxError(
            self,
            None,
            self._tokenStartLine,
            self._tokenStartColumn,
            f"token recognition error at: '{text}'",
            e,
        )


@lru_cache(maxsize=2)
def _dfa(atn: ATN) -> list[DFA]:
    """The DFA cache of a grammar, shared by its recognizers as generated code shares it."""
    return [DFA(s, i) for i, s in enumerate(atn.decisionToState)]


class _Parent(NamedTuple):
    a: Any  # the name the runtime's ParserInterpreter reads (visitRuleStopState)
    state: int


class _Parser(ParserInterpreter):
    """cel-go's ``CELParser`` (``parser/gen/cel_parser.go``), interpreting its ATN as the
    generated parser runs it. Mended in the Python runtime's ``ParserInterpreter``: ``parse``
    (``len`` of a context), ``visitState`` (an atom's label set matched as a token type, a set
    indexed; and the exit event generated left-recursive rules fire before each new recursion
    context, which cel-go's recursion listener counts), the parent stack's ``.a``, and the
    expected tokens ``sync`` would add to the ATN's cached sets."""

    def __init__(self, tokens: CommonTokenStream) -> None:
        g = _grammar("CEL.interp")
        super().__init__("CEL.g4", g.literal_names, g.rule_names, g.atn, tokens)
        self.literalNames, self.symbolicNames = g.literal_names, g.symbolic_names
        self.decisionToDFA = _dfa(g.atn)
        self._interp.decisionToDFA = self.decisionToDFA

    def enterRecursionRule(
        self, localctx: Any, state: int, ruleIndex: int, precedence: int
    ) -> None:
        self._parentContextStack.append(_Parent(self._ctx, localctx.invokingState))
        Parser.enterRecursionRule(self, localctx, state, ruleIndex, precedence)

    def getExpectedTokens(self) -> IntervalSet:
        """A copy: the Python runtime's ``sync`` adds to the set this returns, which can be
        the ATN state's cached one (later parses would then miss an error)."""
        expected = IntervalSet()
        expected.addSet(super().getExpectedTokens())
        return expected

    def parse(self, rule: int) -> Any:
        """ParserInterpreter.java's ``parse`` (its Python port tests ``len`` of a context)."""
        root = InterpreterRuleContext(None, ATNState.INVALID_STATE_NUMBER, rule)
        self.enterRule(root, self.atn.ruleToStartState[rule].stateNumber, rule)
        while True:
            p: ATNState = self.atn.states[self._stateNumber]
            if p.stateType == ATNState.RULE_STOP:
                if self._ctx.isEmpty():
                    self.exitRule()
                    return root
                self.visitRuleStopState(p)
                continue
            try:
                self.visitState(p)
            except RecognitionException as e:
                self.state = self.atn.ruleToStopState[p.ruleIndex].stateNumber
                self._ctx.exception = e
                self._errHandler.reportError(self, e)
                self._errHandler.recover(self, e)

    def visitState(self, p: ATNState) -> None:
        """ParserInterpreter.java's ``visitState`` (its Python port matches a set for a token
        and indexes a set), for the transitions cel-go's grammar has."""
        edge = 1
        if len(p.transitions) > 1:
            self._errHandler.sync(self)
            edge = self._interp.adaptivePredict(self._input, p.decision, self._ctx)
        t = p.transitions[edge - 1]
        kind = t.serializationType
        if kind == Transition.EPSILON:
            if p.stateNumber in self.pushRecursionContextStates and not isinstance(
                t.target, LoopEndState
            ):
                if self._parseListeners is not None:  # as generated left-recursive rules do
                    self.triggerExitRuleEvent()
                parent = self._parentContextStack[-1]
                ctx = InterpreterRuleContext(parent.a, parent.state, self._ctx.ruleIndex)
                start = self.atn.ruleToStartState[p.ruleIndex].stateNumber
                self.pushNewRecursionContext(ctx, start, self._ctx.ruleIndex)
        elif kind == Transition.ATOM:
            self.match(t.label_)
        elif kind in (Transition.RANGE, Transition.SET, Transition.NOT_SET):
            if not t.matches(self._input.LA(1), Token.MIN_USER_TOKEN_TYPE, Lexer.MAX_CHAR_VALUE):
                self._errHandler.recoverInline(self)
            self.matchWildcard()
        elif kind == Transition.WILDCARD:
            self.matchWildcard()
        elif kind == Transition.RULE:
            rule = t.target.ruleIndex
            ctx = InterpreterRuleContext(self._ctx, p.stateNumber, rule)
            if t.target.isPrecedenceRule:
                self.enterRecursionRule(ctx, t.target.stateNumber, rule, t.precedence)
            else:
                self.enterRule(ctx, t.target.stateNumber, rule)
        elif kind == Transition.PRECEDENCE:
            if not self.precpred(self._ctx, t.precedence):
                raise FailedPredicateException(self, f"precpred(_ctx, {t.precedence})")
        elif kind != Transition.ACTION:  # no actions the generated parser runs
            raise UnsupportedOperationException(f"transition {kind}")
        self.state = t.target.stateNumber


class _Abort(Exception):
    """cel-go's panics that end the parse (``parser.go`` parse's deferred recover)."""


class _Listener(ErrorListener, ParseTreeListener):
    """cel-go's parser as ANTLR's error listener (``SyntaxError``) and ``recursionListener``."""

    def __init__(self) -> None:
        self.errors: list[tuple[int, int, str]] = []  # (line, column from 0, message)
        self.reports = 0
        self.depth: dict[int, int] = {}

    def syntaxError(self, _r: Any, _o: Any, line: int, column: int, msg: str, _e: Any) -> None:
        if "no viable alternative" in msg:
            msg = _reserved(msg)
        if self.reports >= ERROR_REPORTING_LIMIT:
            self.errors.append(
                (line, column, f"Syntax error: More than {ERROR_REPORTING_LIMIT} syntax errors")
            )
            raise _Abort
        self.reports += 1
        self.errors.append((line, column, f"Syntax error: {msg}"))

    def enterEveryRule(self, ctx: Any) -> None:
        depth = self.depth[ctx.ruleIndex] = self.depth.get(ctx.ruleIndex, 0) + 1
        if depth > MAX_RECURSION_DEPTH:
            self.errors.append(
                (-1, -1, f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}")
            )
            raise _Abort

    def exitEveryRule(self, ctx: Any) -> None:
        if self.depth.get(ctx.ruleIndex, 0) > 0:
            self.depth[ctx.ruleIndex] -= 1


def _reserved(msg: str) -> str:
    """parser.go's ``reservedIdentifier`` rewrite of ``no viable alternative at input '.true'``."""
    return _RESERVED.sub(r"mismatched input '\1' expecting IDENTIFIER", msg)


class _Strategy(DefaultErrorStrategy):
    """``recoveryLimitErrorStrategy``: at most ERROR_RECOVERY_LIMIT recoveries, each consuming
    at most ERROR_RECOVERY_LOOKAHEAD_LIMIT tokens (its ``lookaheadConsumer``)."""

    def __init__(self, listener: _Listener) -> None:
        super().__init__()
        self.attempts = 0
        self.listener = listener

    def _check(self, recognizer: Any) -> None:
        if self.attempts == ERROR_RECOVERY_LIMIT:
            self.attempts += 1
            msg = f"error recovery attempt limit exceeded: {ERROR_RECOVERY_LIMIT}"
            recognizer.notifyErrorListeners(msg, None, None)
            raise _Abort
        self.attempts += 1

    def _counted(self, recognizer: Any, recover: Any, *args: Any) -> Any:
        consumed = 0
        consume = recognizer.consume

        def counting() -> Any:
            nonlocal consumed
            if consumed >= ERROR_RECOVERY_LOOKAHEAD_LIMIT:
                limit = ERROR_RECOVERY_LOOKAHEAD_LIMIT
                self.listener.errors.append(
                    (-1, -1, f"error recovery token lookahead limit exceeded: {limit}")
                )
                raise _Abort
            consumed += 1
            return consume()

        recognizer.consume = counting
        try:
            return recover(recognizer, *args)
        finally:
            del recognizer.consume

    def recover(self, recognizer: Any, e: Any) -> None:
        self._check(recognizer)
        self._counted(recognizer, super().recover, e)

    def recoverInline(self, recognizer: Any) -> Any:
        self._check(recognizer)
        return self._counted(recognizer, super().recoverInline)


@lru_cache(maxsize=4096)
def syntax_errors(expression: str) -> tuple[tuple[int, int, str], ...]:
    """cel-go's parse errors of ``expression`` in the order it reports them: (line, column
    counted in runes from 0 or -1 for none, message); empty when its grammar accepts it."""
    if len(expression) > EXPRESSION_SIZE_CODE_POINT_LIMIT:
        size = len(expression)
        limit = EXPRESSION_SIZE_CODE_POINT_LIMIT
        return ((-1, -1, f"expression code point size exceeds limit: size: {size}, limit {limit}"),)
    listener = _Listener()
    lexer = _Lexer(expression)
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = _Parser(CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    parser.addParseListener(listener)
    parser._errHandler = _Strategy(listener)
    try:
        tree = parser.parse(parser.ruleNames.index("start"))
    except _Abort:
        return tuple(listener.errors)
    depth, visited = _visit(tree, parser.ruleNames)
    listener.errors += visited
    if depth > MAX_RECURSION_DEPTH:
        listener.errors.append((-1, -1, "max recursion depth exceeded"))
    if not expression:  # the line offsets of an empty source are [0] (runes/buffer.go), so
        # ast.NewSourceInfo's base line is 1 and ComputeOffset(1, 0) is -1: column -1
        return tuple((line, -1, msg) for line, _, msg in listener.errors)
    return tuple(listener.errors)


def _visit(root: Any, rules: list[str]) -> tuple[int, list[tuple[int, int, str]]]:
    """What cel-go's visitor finds in the tree: how deep it nests
    (``checkAndIncrementRecursionDepth``: conditionals, relations and arithmetic with an
    operator, ``unnest`` skips the others; selects, member calls and indexes, a ``member`` with
    a member), and the identifiers error recovery left empty (``normalizeIdent``: "unsupported
    ident kind", at a select's identifier, or at a message literal's field list)."""
    deepest, errors = 0, []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        kids = getattr(node, "children", None) or []
        rule = rules[node.ruleIndex] if hasattr(node, "ruleIndex") else ""
        if (rule in ("expr", "relation", "calc") and len(kids) > 1) or (
            rule == "member" and kids and getattr(kids[0], "ruleIndex", -1) == node.ruleIndex
        ):
            depth += 1
            deepest = max(deepest, depth)
        if rule == "member":  # VisitSelect
            errors += [
                _unsupported(k) for k in kids if _rule(k, rules) == "escapeIdent" and _empty(k)
            ]
        elif rule == "fieldInitializerList":  # VisitIFieldInitializerList
            fields = [k for k in kids if _rule(k, rules) == "optField"]
            cols = [k for k in kids if _is_token(k, ":")]
            values = [k for k in kids if _rule(k, rules) == "expr"]
            for field in fields[: min(len(cols), len(values))]:
                ident = [k for k in field.children or [] if _rule(k, rules) == "escapeIdent"]
                if not ident or _empty(ident[0]):
                    errors.append(_unsupported(node))
        stack.extend((k, depth) for k in reversed(kids))
    return deepest, errors


def _rule(node: Any, rules: list[str]) -> str:
    return rules[node.ruleIndex] if hasattr(node, "ruleIndex") else ""


def _is_token(node: Any, text: str) -> bool:
    """A token of the tree (one error recovery conjured too), not one it skipped."""
    symbol = getattr(node, "symbol", None)
    return (
        symbol is not None
        and symbol.text == text
        and (not isinstance(node, ErrorNode) or symbol.tokenIndex == -1)
    )


def _empty(ident: Any) -> bool:
    """An ``escapeIdent`` whose alternative failed (no identifier token in it)."""
    return not any(
        getattr(k, "symbol", None) is not None and not isinstance(k, ErrorNode)
        for k in ident.children or []
    )


def _unsupported(ctx: Any) -> tuple[int, int, str]:
    return (ctx.start.line, ctx.start.column, "unsupported ident kind")

#!/usr/bin/env python3
"""Conformance runner: hmo's HLO text parser against XLA's parser test cases.

Reads XLA's parser unit test source (a C++ file, kept outside this repository)
and extracts, statically, the HLO module texts it uses:

  roundtrip_long   entries of the long-form round-trip list (CreateTestCases)
  roundtrip_short  entries of the short-form round-trip list (CreateShortTestCases)
  non_roundtrip    entries of the non-round-trip list (input, expected output)
  error            test bodies whose module text is expected to fail to parse
                   (or to verify); the expected message substring is recorded
  valid            other test bodies whose module text is expected to parse
  single_op        the same two kinds, from the single-instruction tests
                   (text that is one instruction, not a module)

Entries that are built at run time (string concatenation, formatting helpers,
loops) cannot be extracted and are counted as "skipped (not static)".

Each case's text is written to a temporary file and fed to `hmo fmt` (and
`hmo fmt --long`, `hmo verify` where relevant):

  round trip (long)   `hmo fmt --long` must reproduce the text byte for byte
                      (the XLA test compares the long-form printout with the
                      original string exactly, nothing stripped)
  round trip (short)  `hmo fmt` must reproduce the text byte for byte (the
                      XLA test compares the short parsable printout exactly)
  non round trip      `hmo fmt` output, leading/trailing ASCII whitespace
                      stripped, must equal the expected text, likewise stripped
  error               hmo must refuse the text, at `hmo fmt` or at
                      `hmo verify`; the fmt refusal should carry a
                      FILE:LINE:COL: position. Whether hmo's message contains
                      XLA's expected substring is informational only.
  valid               `hmo fmt` must succeed; where XLA parses with its
                      verifier, `hmo verify` is run as well (informational).

A crash (a signal, or an exit status of 128 or more) is always a bug.

Usage:
  scripts/xla_parser_conformance.py --xla-test PATH/hlo_parser_test.cc \
      --hmo build/bin/hmo [--verbose] [--json out.json] [--jobs N]
      [--only REGEX] [--category CAT]

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Optional

TIMEOUT_S = 10

# --------------------------------------------------------------------------
# A small C++ lexer: enough to find string literals (plain and raw, with or
# without prefixes), identifiers, numbers and punctuation, skipping comments.


@dataclass
class Tok:
    kind: str  # 'str', 'id', 'num', 'punct', 'char'
    text: str  # the source spelling (for 'str': the decoded value)
    pos: int
    line: int


_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'",
    '"': '"', "?": "?", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
}


def _decode_plain(body: str) -> str:
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= len(body):
            break
        e = body[i]
        if e == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(body[i + 1:j], 16)))
            i = j
        elif e in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i:j], 8)))
            i = j
        elif e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 1
        elif e == "\n":  # line continuation
            i += 1
        else:
            out.append(e)
            i += 1
    return "".join(out)


_STR_PREFIX = re.compile(r'(?:u8|u|U|L)?R?"')


def lex_cpp(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i = 0
    n = len(src)
    line = 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += src.count("\n", i, j)
            i = j
            continue
        if c == "#" and (not toks or toks[-1].line != line):
            # Preprocessor line (with continuations).
            j = i
            while True:
                k = src.find("\n", j)
                if k < 0:
                    k = n
                    break
                if src[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            line += src.count("\n", i, k)
            i = k
            continue
        m = _STR_PREFIX.match(src, i)
        if m and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            start = i
            raw = m.group(0).endswith('R"')
            j = m.end()
            if raw:
                k = src.find("(", j)
                delim = src[j:k]
                end_marker = ")" + delim + '"'
                e = src.find(end_marker, k + 1)
                if e < 0:
                    raise ValueError(f"unterminated raw string at line {line}")
                value = src[k + 1:e]
                i = e + len(end_marker)
            else:
                k = j
                while k < n and src[k] != '"':
                    if src[k] == "\\":
                        k += 2
                    else:
                        k += 1
                value = _decode_plain(src[j:k])
                i = k + 1
            toks.append(Tok("str", value, start, line))
            line += src.count("\n", start, i)
            continue
        if c == "'":
            k = i + 1
            while k < n and src[k] != "'":
                k += 2 if src[k] == "\\" else 1
            toks.append(Tok("char", src[i:k + 1], i, line))
            i = k + 1
            continue
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            toks.append(Tok("id", src[i:j], i, line))
            i = j
            continue
        if c.isdigit():
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] in "._'"):
                j += 1
            toks.append(Tok("num", src[i:j], i, line))
            i = j
            continue
        for p in ("::", "->", "+=", "==", "!=", "&&", "||", "<<", ">>"):
            if src.startswith(p, i):
                toks.append(Tok("punct", p, i, line))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, line))
            i += 1
    # Adjacent string literals concatenate.
    merged: list[Tok] = []
    for t in toks:
        if t.kind == "str" and merged and merged[-1].kind == "str":
            merged[-1] = Tok("str", merged[-1].text + t.text, merged[-1].pos,
                             merged[-1].line)
        else:
            merged.append(t)
    return merged


_OPEN = {"(": ")", "{": "}", "[": "]"}
_CLOSE = {")", "}", "]"}


def match_close(toks: list[Tok], i: int) -> int:
    """Index of the bracket closing the one at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "punct":
            continue
        if t.text in _OPEN:
            depth += 1
        elif t.text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced bracket from line {toks[i].line}")


def split_top(toks: list[Tok], lo: int, hi: int) -> list[list[Tok]]:
    """Splits toks[lo:hi] at top-level commas."""
    parts: list[list[Tok]] = [[]]
    depth = 0
    for t in toks[lo:hi]:
        if t.kind == "punct" and t.text in _OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in _CLOSE:
            depth -= 1
        if depth == 0 and t.kind == "punct" and t.text == ",":
            parts.append([])
            continue
        parts[-1].append(t)
    if parts and not parts[-1]:
        parts.pop()
    return parts


# --------------------------------------------------------------------------
# Extraction.


@dataclass
class Case:
    category: str
    name: str
    text: Optional[str] = None          # None: not static
    expected: Optional[str] = None      # non-round-trip expected output
    expect_error: Optional[str] = None  # error cases: expected substrings
    verified: bool = False              # XLA parses with its verifier
    replica_count: int = 1
    line: int = 0
    note: str = ""


def find_function_body(toks: list[Tok], fname: str) -> Optional[tuple[int, int]]:
    for i, t in enumerate(toks):
        if (t.kind == "id" and t.text == fname and i + 2 < len(toks)
                and toks[i + 1].text == "(" and toks[i + 2].text == ")"):
            j = i + 3
            while j < len(toks) and toks[j].text not in ("{", ";"):
                j += 1
            if j < len(toks) and toks[j].text == "{":
                return j, match_close(toks, j)
    return None


def static_string(part: list[Tok]) -> Optional[str]:
    if len(part) == 1 and part[0].kind == "str":
        return part[0].text
    return None


def extract_list(toks: list[Tok], fname: str, category: str,
                 nfields: int) -> list[Case]:
    span = find_function_body(toks, fname)
    if span is None:
        return []
    lo, hi = span
    # The list is the outermost '{' inside 'return std::vector<...>(' ... ')'.
    j = lo + 1
    while j < hi and not (toks[j].text == "{" and toks[j - 1].text == "("):
        j += 1
    if j >= hi:
        return []
    list_end = match_close(toks, j)
    cases: list[Case] = []
    for entry in split_top(toks, j + 1, list_end):
        if not entry:
            continue
        line = entry[0].line
        if entry[0].text != "{":
            cases.append(Case(category, f"<line {line}>", line=line,
                              note="entry is not a brace initializer"))
            continue
        fields = split_top(entry, 1, len(entry) - 1)
        name = static_string(fields[0]) if fields else None
        if name is None:
            name = f"<line {line}>"
        # The parameterized tests parse with the verifier.
        c = Case(category, name, line=line, verified=True)
        vals = [static_string(f) for f in fields[1:1 + nfields - 1]]
        if len(vals) < nfields - 1 or any(v is None for v in vals):
            c.note = "not static"
            cases.append(c)
            continue
        c.text = vals[0]
        if nfields == 3:
            c.expected = vals[1]
        rest = fields[nfields:]
        if rest and len(rest[0]) == 1 and rest[0][0].kind == "num":
            c.replica_count = int(rest[0][0].text.replace("'", ""))
        cases.append(c)
    return cases


PARSE_FUNCS = {"ParseAndReturnUnverifiedModule": False,
               "ParseAndReturnVerifiedModule": True,
               "ParseHloModule": False,
               "ParseHloStringAndVerifyModule": True}

OK_MACROS = {"TF_ASSERT_OK_AND_ASSIGN", "ASSERT_OK_AND_ASSIGN", "TF_ASSERT_OK",
             "ASSERT_OK", "TF_EXPECT_OK", "EXPECT_OK", "TF_CHECK_OK", "CHECK_OK"}


def statement_bounds(toks: list[Tok], lo: int, hi: int, i: int) -> tuple[int, int]:
    """The statement around toks[i] inside the block toks[lo..hi]."""
    # Walk back to the previous ';', '{' or '}' at this nesting level.
    depth = 0
    s = i
    while s > lo:
        t = toks[s - 1]
        if t.kind == "punct":
            if t.text in _CLOSE:
                depth += 1
            elif t.text in _OPEN:
                if depth == 0:
                    if t.text == "{":
                        break
                else:
                    depth -= 1
            elif t.text == ";" and depth == 0:
                break
        s -= 1
    depth = 0
    e = i
    while e < hi:
        t = toks[e]
        if t.kind == "punct":
            if t.text in _OPEN:
                depth += 1
            elif t.text in _CLOSE:
                if depth == 0:
                    break
                depth -= 1
            elif t.text == ";" and depth == 0:
                break
        e += 1
    return s, e


def split_statements(toks: list[Tok], lo: int, hi: int) -> list[tuple[int, int]]:
    """Flat list of statements (token spans) in toks[lo:hi], descending
    into nested blocks."""
    out = []
    s = lo
    depth = 0
    for k in range(lo, hi):
        t = toks[k]
        if t.kind != "punct":
            continue
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
        elif depth == 0 and t.text in (";", "{", "}"):
            if k > s:
                out.append((s, k))
            s = k + 1
    if hi > s:
        out.append((s, hi))
    return out


def collect_substrings(stmt: list[Tok]) -> list[str]:
    """Expected message substrings in an assertion statement."""
    subs = []
    for k, t in enumerate(stmt):
        if t.kind == "id" and t.text in ("HasSubstr", "ExpectHasSubstr",
                                         "StrContains"):
            if k + 1 < len(stmt) and stmt[k + 1].text == "(":
                close = match_close(stmt, k + 1)
                parts = split_top(stmt, k + 2, close)
                cand = parts[-1] if parts else []
                v = static_string(cand)
                if v is not None:
                    subs.append(v)
    return subs


def ids(stmt: list[Tok]) -> list[str]:
    return [t.text for t in stmt if t.kind == "id"]


def classify_use(stmt: list[Tok], var: str) -> Optional[str]:
    """'ok', 'error' or None for a statement that uses var."""
    names = ids(stmt)
    if var not in names:
        return None
    first = names[0] if names else ""
    text = " ".join(t.text for t in stmt)
    if first in OK_MACROS:
        return "ok"
    if first in ("EXPECT_TRUE", "ASSERT_TRUE") and re.search(
            rf"\b{re.escape(var)} \. (status \( \) \. )?ok \(", text):
        return "ok"
    if first in ("EXPECT_FALSE", "ASSERT_FALSE") and re.search(
            rf"\b{re.escape(var)} \. (status \( \) \. )?ok \(", text):
        return "error"
    if first in ("EXPECT_NE", "ASSERT_NE") and "OkStatus" in names:
        return "error"
    if first in ("EXPECT_EQ", "ASSERT_EQ") and "OkStatus" in names:
        return "ok"
    if "StatusIs" in names:
        return "error"
    if first in ("EXPECT_THAT", "ASSERT_THAT", "ExpectHasSubstr") and (
            "message" in names or "HasSubstr" in names or "ToString" in names):
        return "error"
    if re.search(rf"\b{re.escape(var)} (\. value \( \)|->|\. ValueOrDie)", text) \
            or re.search(rf"\* {re.escape(var)}\b", text):
        return "ok"
    return None


def resolve_arg(arg: list[Tok], env: dict[str, Optional[str]]) -> tuple[Optional[str], str]:
    """Static value of a parse call's first argument, or (None, why)."""
    v = static_string(arg)
    if v is not None:
        return v, ""
    # `x`, `x.c_str()`, `std::string(x)`, `absl::string_view(x)`
    names = [t for t in arg if t.kind == "id"]
    if len(arg) == 1 and arg[0].kind == "id":
        name = arg[0].text
    elif (len(arg) >= 3 and arg[0].kind == "id" and arg[1].text == "."
          and len(names) == 2 and names[1].text in ("c_str", "data")):
        name = arg[0].text
    else:
        return None, "not static"
    if name in env:
        val = env[name]
        return (val, "") if val is not None else (None, "not static")
    return None, "not static"


def scan_env(toks: list[Tok], lo: int, hi: int,
             env: dict[str, Optional[str]]) -> None:
    """Records `NAME = "literal";` style definitions in toks[lo:hi]."""
    for s, e in split_statements(toks, lo, hi):
        st = toks[s:e]
        for k, t in enumerate(st):
            if t.kind != "id" or k + 1 >= len(st):
                continue
            nxt = st[k + 1].text
            # NAME = value ;  |  NAME[] = value ;  |  NAME(value) ; NAME{value}
            if nxt == "=" and k + 2 < len(st) and (k == 0 or st[k - 1].text != "."):
                val = st[k + 2:]
                env[t.text] = static_string(val)
                break
            if nxt == "[" and k + 3 < len(st) and st[k + 2].text == "]" \
                    and st[k + 3].text == "=":
                env[t.text] = static_string(st[k + 4:])
                break
            if nxt == "+=":
                env[t.text] = None
                break
        # Passing &NAME to a mutating helper makes it dynamic.
        for k in range(len(st) - 1):
            if st[k].text == "&" and st[k + 1].kind == "id" and st[k + 1].text in env:
                if k == 0 or st[k - 1].kind == "punct":
                    env[st[k + 1].text] = None


def extract_tests(toks: list[Tok], global_env: dict[str, Optional[str]]) -> list[Case]:
    cases: list[Case] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if not (t.kind == "id" and t.text in ("TEST_F", "TEST")
                and i + 1 < len(toks) and toks[i + 1].text == "("):
            i += 1
            continue
        pclose = match_close(toks, i + 1)
        args = split_top(toks, i + 2, pclose)
        if len(args) != 2:
            i = pclose
            continue
        fixture, tname = args[0][0].text, args[1][0].text
        if fixture not in ("HloParserTest", "HloParserSingleOpTest"):
            i = pclose
            continue
        lo = pclose + 1
        if toks[lo].text != "{":
            i = lo
            continue
        hi = match_close(toks, lo)
        cases.extend(extract_test_body(toks, lo, hi, fixture, tname, global_env))
        i = hi + 1
    return cases


def extract_test_body(toks: list[Tok], lo: int, hi: int, fixture: str,
                      tname: str, global_env: dict[str, Optional[str]]) -> list[Case]:
    out: list[Case] = []
    stmts = split_statements(toks, lo + 1, hi)
    env = dict(global_env)
    calls = []
    for si, (s, e) in enumerate(stmts):
        scan_env(toks, s, e, env)
        for k in range(s, e):
            t = toks[k]
            if t.kind == "id" and t.text in PARSE_FUNCS and k + 1 < e \
                    and toks[k + 1].text == "(" and (k == s or toks[k - 1].text != "&"):
                close = match_close(toks, k + 1)
                first_arg = split_top(toks, k + 2, close)
                arg = first_arg[0] if first_arg else []
                # ParseAndReturnVerifiedModule(name, text, config) (free
                # function) takes the text second; the fixture method takes it
                # first.
                if (len(first_arg) >= 2 and t.text == "ParseAndReturnVerifiedModule"
                        and (k == 0 or toks[k - 1].text == "::")):
                    arg = first_arg[1]
                val, why = resolve_arg(arg, env)
                calls.append((si, k, close, val, why, PARSE_FUNCS[t.text],
                              len(first_arg) > 1))
    category_base = "single_op" if fixture == "HloParserSingleOpTest" else None
    for n, (si, k, close, val, why, verified, extra_args) in enumerate(calls):
        name = tname if len(calls) == 1 else f"{tname}#{n + 1}"
        s, e = stmts[si]
        stmt = toks[s:e]
        names = ids(stmt)
        outcome: Optional[str] = None
        subs: list[str] = []
        if names and names[0] in OK_MACROS:
            outcome = "ok"
        else:
            # Direct use: EXPECT_FALSE(Parse(...).ok()), ExpectHasSubstr(...).
            tail = " ".join(x.text for x in toks[close + 1:e])
            if names and names[0] in ("EXPECT_FALSE", "ASSERT_FALSE") and "ok" in tail:
                outcome = "error"
            elif names and names[0] in ("EXPECT_TRUE", "ASSERT_TRUE") and "ok" in tail:
                outcome = "ok"
            elif names and names[0] in ("ExpectHasSubstr", "EXPECT_THAT", "ASSERT_THAT") \
                    and ("status" in tail or "message" in tail):
                outcome = "error"
                subs = collect_substrings(stmt)
            elif names and names[0] in ("EXPECT_NE", "ASSERT_NE") and "OkStatus" in names:
                outcome = "error"
            elif names and names[0] in ("EXPECT_EQ", "ASSERT_EQ") and "OkStatus" in names:
                outcome = "ok"
            else:
                # Assigned to a variable: find its name.
                var = None
                for q in range(s, k):
                    if toks[q].text == "=" and toks[q - 1].kind == "id":
                        var = toks[q - 1].text
                if var is not None:
                    for s2, e2 in stmts[si + 1:]:
                        st2 = toks[s2:e2]
                        ids2 = ids(st2)
                        # Reassigned: stop.
                        if any(st2[q].text == var and q + 1 < len(st2)
                               and st2[q + 1].text == "=" for q in range(len(st2))):
                            break
                        use = classify_use(st2, var)
                        if use == "error" or (outcome is None and use == "ok"):
                            outcome = use
                        if var in ids2 and outcome == "error":
                            subs.extend(collect_substrings(st2))
        if category_base:
            cat = "single_op"
        elif outcome == "error":
            cat = "error"
        elif outcome == "ok":
            cat = "valid"
        else:
            cat = "unclassified"
        c = Case(cat, name, text=val, verified=verified, line=toks[k].line)
        if tname.startswith("DISABLED_"):
            c.note = "disabled in XLA"
        if outcome == "error":
            c.expect_error = " | ".join(subs) if subs else ""
        if category_base:
            c.note = "expected " + (outcome or "?")
        if val is None:
            c.note = (c.note + "; " if c.note else "") + why
        elif extra_args:
            c.note = (c.note + "; " if c.note else "") + "parsed with extra arguments (config/options)"
        out.append(c)
    return out


def extract_all(src: str) -> list[Case]:
    toks = lex_cpp(src)
    cases = []
    cases += extract_list(toks, "CreateTestCases", "roundtrip_long", 2)
    cases += extract_list(toks, "CreateShortTestCases", "roundtrip_short", 2)
    cases += extract_list(toks, "CreateNonRoundtripTestCases", "non_roundtrip", 3)
    # Namespace-scope string constants.
    global_env: dict[str, Optional[str]] = {}
    depth = 0
    top_stmts_lo = 0
    for k, t in enumerate(toks):
        if t.text == "{":
            depth += 1
        elif t.text == "}":
            depth -= 1
        elif depth <= 2 and t.kind == "id" and k + 2 < len(toks) and \
                toks[k + 1].text in ("=", "[") and t.text.startswith("k"):
            j = k + 1
            if toks[j].text == "[":
                j += 2
            if toks[j].text == "=" and j + 2 < len(toks) and toks[j + 1].kind == "str" \
                    and toks[j + 2].text == ";":
                global_env[t.text] = toks[j + 1].text
    del top_stmts_lo
    cases += extract_tests(toks, global_env)
    return cases


# --------------------------------------------------------------------------
# Running hmo.


@dataclass
class Run:
    rc: Optional[int]
    stdout: str
    stderr: str
    timeout: bool = False

    @property
    def crashed(self) -> bool:
        return self.rc is not None and (self.rc < 0 or self.rc >= 128)


def run_hmo(hmo: str, args: list[str]) -> Run:
    try:
        p = subprocess.run([hmo] + args, capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        return Run(None, (e.stdout or b"").decode("utf-8", "replace"),
                   (e.stderr or b"").decode("utf-8", "replace"), timeout=True)
    return Run(p.returncode, p.stdout.decode("utf-8", "replace"),
               p.stderr.decode("utf-8", "replace"))


def first_line(s: str) -> str:
    for ln in s.splitlines():
        if ln.strip():
            return ln.strip()
    return ""


def first_diff(a: str, b: str) -> dict:
    """Where `got` (b) first differs from `want` (a): line number and lines."""
    al, bl = a.split("\n"), b.split("\n")
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else None
        y = bl[i] if i < len(bl) else None
        if x != y:
            return {"line": i + 1, "want": x, "got": y}
    return {"line": 0, "want": None, "got": None}


def long_form_unsupported(r: Run) -> bool:
    return r.rc == 2 and "--long" in (r.stderr + r.stdout)


def evaluate(case: Case, hmo: str, tmpdir: str, idx: int) -> dict:
    res: dict = {"category": case.category, "name": case.name, "line": case.line,
                 "note": case.note}
    if case.text is None:
        res["status"] = "skipped"
        return res
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", case.name)[:60]
    path = os.path.join(tmpdir, f"{idx:04d}_{safe}.hlo")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(case.text)
    res["file"] = os.path.basename(path)
    fmt = run_hmo(hmo, ["fmt", path])
    res["fmt_rc"] = fmt.rc
    res["fmt_error"] = first_line(fmt.stderr) if fmt.rc != 0 else ""
    crashed = fmt.crashed
    timeout = fmt.timeout
    parsed = fmt.rc == 0
    res["parsed"] = parsed

    if case.category == "error" or (case.category == "single_op"
                                    and case.note.startswith("expected error")):
        res["expected_substr"] = case.expect_error
        refused_by = None
        if fmt.rc not in (0, None) and not crashed:
            refused_by = "fmt"
            res["has_position"] = bool(re.search(
                re.escape(path) + r":\d+:\d+:|" + re.escape(os.path.basename(path))
                + r":\d+:\d+:", fmt.stderr))
            msg = fmt.stderr
        elif parsed:
            ver = run_hmo(hmo, ["verify", path])
            res["verify_rc"] = ver.rc
            crashed = crashed or ver.crashed
            timeout = timeout or ver.timeout
            if ver.rc not in (0, None) and not ver.crashed:
                refused_by = "verify"
                res["verify_error"] = first_line(ver.stderr)
            msg = ver.stderr
        else:
            msg = fmt.stderr
        res["refused_by"] = refused_by
        if case.expect_error:
            subs = [s for s in case.expect_error.split(" | ") if s]
            res["message_matches"] = all(s in msg for s in subs)
    else:
        if parsed and case.verified:
            ver = run_hmo(hmo, ["verify", path])
            res["verify_rc"] = ver.rc
            crashed = crashed or ver.crashed
            timeout = timeout or ver.timeout
            if ver.rc != 0:
                res["verify_error"] = first_line(ver.stderr)
        if case.category == "roundtrip_long" and parsed:
            lf = run_hmo(hmo, ["fmt", "--long", path])
            crashed = crashed or lf.crashed
            timeout = timeout or lf.timeout
            if long_form_unsupported(lf):
                res["long_form"] = "unavailable"
            elif lf.rc == 0:
                res["identical"] = lf.stdout == case.text
                if not res["identical"]:
                    res["diff"] = first_diff(case.text, lf.stdout)
                    res["output"] = lf.stdout
            else:
                res["long_error"] = first_line(lf.stderr)
                res["identical"] = False
        elif case.category == "roundtrip_short" and parsed:
            res["identical"] = fmt.stdout == case.text
            if not res["identical"]:
                res["diff"] = first_diff(case.text, fmt.stdout)
                res["output"] = fmt.stdout
        elif case.category == "non_roundtrip" and parsed:
            want = case.expected.strip(" \t\n\r\f\v")
            got = fmt.stdout.strip(" \t\n\r\f\v")
            res["identical"] = want == got
            if not res["identical"]:
                res["diff"] = first_diff(want, got)
                res["output"] = fmt.stdout
    res["crashed"] = crashed
    res["timeout"] = timeout
    if case.category in ("roundtrip_long", "roundtrip_short"):
        res["replica_count"] = case.replica_count
    res["status"] = status_of(case, res)
    return res


def status_of(case: Case, r: dict) -> str:
    if r.get("crashed"):
        return "crashed"
    if r.get("timeout"):
        return "timeout"
    if case.category == "error" or "refused_by" in r:
        return "refused" if r.get("refused_by") else "accepted"
    if not r.get("parsed"):
        return "refused"
    if "identical" in r:
        return "identical" if r["identical"] else "differs"
    return "parsed"


# --------------------------------------------------------------------------
# Reporting.

CATEGORY_ORDER = ["roundtrip_long", "roundtrip_short", "non_roundtrip", "valid",
                  "error", "single_op", "unclassified"]


def summarize(results: list[dict]) -> list[dict]:
    rows = []
    for cat in CATEGORY_ORDER:
        rs = [r for r in results if r["category"] == cat]
        if not rs:
            continue
        run = [r for r in rs if r["status"] != "skipped"]
        row = {
            "category": cat,
            "total": len(rs),
            "skipped": len(rs) - len(run),
            "parsed": sum(1 for r in run if r.get("parsed")),
            "refused": sum(1 for r in run if r.get("parsed") is False
                           and not r.get("crashed") and not r.get("timeout")),
            "identical": sum(1 for r in run if r.get("identical")),
            "crashed": sum(1 for r in run if r.get("crashed")),
            "timeout": sum(1 for r in run if r.get("timeout")),
        }
        if cat in ("error", "single_op"):
            errs = [r for r in run if "refused_by" in r]
            row["refused_fmt"] = sum(1 for r in errs if r.get("refused_by") == "fmt")
            row["refused_verify"] = sum(1 for r in errs if r.get("refused_by") == "verify")
            row["wrongly_accepted"] = sum(1 for r in errs if r["status"] == "accepted")
            row["msg_match"] = sum(1 for r in errs if r.get("message_matches"))
            row["no_position"] = sum(1 for r in errs if r.get("refused_by") == "fmt"
                                     and not r.get("has_position"))
        if any("verify_rc" in r for r in run) and cat not in ("error",):
            row["verify_rejected"] = sum(1 for r in run if r.get("verify_rc") not in (None, 0)
                                         and "refused_by" not in r)
        if any(r.get("long_form") == "unavailable" for r in run):
            row["long_unavailable"] = sum(1 for r in run if r.get("long_form") == "unavailable")
        rows.append(row)
    return rows


def print_summary(rows: list[dict]) -> None:
    cols = ["category", "total", "skipped", "parsed", "refused", "identical",
            "crashed", "timeout"]
    widths = [16, 6, 8, 7, 8, 10, 8, 8]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    for row in rows:
        cells = []
        for c, w in zip(cols, widths):
            v = row.get(c, "")
            if c == "identical" and row["category"] not in (
                    "roundtrip_long", "roundtrip_short", "non_roundtrip"):
                v = "-"
            cells.append(str(v).ljust(w))
        print("  ".join(cells))
    for row in rows:
        extra = []
        if "wrongly_accepted" in row:
            extra.append(f"refused at fmt {row['refused_fmt']}, at verify "
                         f"{row['refused_verify']}, wrongly accepted "
                         f"{row['wrongly_accepted']}, XLA message substring found "
                         f"{row['msg_match']}, fmt refusal without FILE:LINE:COL "
                         f"{row['no_position']}")
        if "verify_rejected" in row:
            extra.append(f"parsed but rejected by `hmo verify`: {row['verify_rejected']}")
        if "long_unavailable" in row:
            extra.append(f"long form unavailable: {row['long_unavailable']}")
        if extra:
            print(f"  {row['category']}: " + "; ".join(extra))
    print("(skipped = not static: the text is built at run time; for error "
          "cases 'refused' counts fmt refusals only)")


def print_verbose(results: list[dict]) -> None:
    for r in results:
        st = r["status"]
        if st in ("identical", "parsed") and not r.get("verify_error"):
            continue
        if st == "refused" and r["category"] in ("error",):
            if r.get("message_matches", True):
                continue
        if st == "refused" and r["category"] == "single_op" and "refused_by" in r:
            continue
        head = f"[{r['category']}] {r['name']} (line {r['line']}): {st}"
        if st == "skipped":
            print(f"{head} ({r.get('note')})")
            continue
        print(head)
        if r.get("fmt_error") and r["category"] != "error":
            print(f"    fmt: {r['fmt_error']}")
        if r.get("long_error"):
            print(f"    fmt --long: {r['long_error']}")
        if r.get("verify_error") and r["category"] != "error":
            print(f"    verify: {r['verify_error']}")
        if st == "accepted":
            print(f"    XLA expects: {r.get('expected_substr')!r}")
        if r["category"] == "error" and st == "refused" and not r.get("message_matches", True):
            print(f"    XLA expects: {r.get('expected_substr')!r}")
            print(f"    hmo says:    {r.get('fmt_error') or r.get('verify_error')}")
        d = r.get("diff")
        if d:
            print(f"    first difference at line {d['line']}:")
            print(f"      want: {d['want']!r}")
            print(f"      got:  {d['got']!r}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xla-test", required=True, help="path of XLA's hlo_parser_test.cc")
    ap.add_argument("--hmo", required=True, help="path of the hmo binary")
    ap.add_argument("--verbose", action="store_true", help="list each failing case")
    ap.add_argument("--json", help="write every per-case result to this file")
    ap.add_argument("--jobs", type=int, default=2, help="parallel hmo runs (default 2)")
    ap.add_argument("--only", help="run only cases whose name matches this regex")
    ap.add_argument("--category", action="append", help="run only these categories")
    ap.add_argument("--list", action="store_true", help="list the extracted cases and exit")
    ap.add_argument("--keep", help="write the case files into this folder and keep them")
    args = ap.parse_args(argv)

    with open(args.xla_test, encoding="utf-8") as f:
        src = f.read()
    cases = extract_all(src)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.name)]
    if args.category:
        cases = [c for c in cases if c.category in args.category]
    if args.list:
        for c in cases:
            print(f"{c.category:16} {c.name:50} line {c.line:5} "
                  f"{'static' if c.text is not None else 'NOT STATIC'} "
                  f"{'verified' if c.verified else ''} {c.note} "
                  f"{('expects: ' + repr(c.expect_error)) if c.expect_error else ''}")
        return 0
    if not (os.path.isfile(args.hmo) and os.access(args.hmo, os.X_OK)):
        print(f"error: {args.hmo} is not an executable", file=sys.stderr)
        return 2

    def go(tmpdir: str) -> list[dict]:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = [ex.submit(evaluate, c, args.hmo, tmpdir, i)
                    for i, c in enumerate(cases)]
            return [f.result() for f in futs]

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        results = go(args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="xla_conf_") as tmpdir:
            results = go(tmpdir)

    rows = summarize(results)
    if args.verbose:
        print_verbose(results)
        print()
    print_summary(rows)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": rows, "cases": results}, f, indent=1)
    bad = sum(r.get("crashed", False) or r.get("timeout", False) for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

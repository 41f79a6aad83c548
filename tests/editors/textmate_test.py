#!/usr/bin/env python3
"""The TextMate grammar (editors/textmate/allot.tmLanguage.json, used by VS Code
and GitHub's linguist) checked against grammar/Allot.g4, the syntax's source of
truth: every keyword of the language is highlighted as a keyword or literal and
nothing else is; and the shipped policies and stdlib, tokenized the way a
TextMate engine does (at each position the earliest match wins, the first
pattern on a tie; begin/end rules nest), show comments, strings, dates,
durations and percents as such.
Usage: textmate_test.py SOURCE_ROOT"""
import json
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
grammar = json.loads((root / "editors/textmate/allot.tmLanguage.json").read_text())
g4 = (root / "grammar/Allot.g4").read_text()
failures = []


def fail(message):
    failures.append(message)


# --- keywords: Allot.g4's word literals, and only those --------------------------
code = re.sub(r"//[^\n]*", "", g4)
literals = set(re.findall(r"'([a-z_]+)'", code))
literals -= {"s", "m", "h", "d", "w", "_"}  # duration suffixes inside a token, the wildcard


def flatten(patterns):
    """The rules the top level tries, includes resolved (a rule with begin or match is one rule)."""
    for pattern in patterns:
        if "include" in pattern:
            rule = grammar["repository"][pattern["include"][1:]]
            yield from ([rule] if "begin" in rule or "match" in rule else flatten(rule["patterns"]))
        else:
            yield pattern


top = list(flatten(grammar["patterns"]))
keyword_patterns = [p for p in top if "match" in p and (p.get("name", "").startswith(("keyword", "constant.language"))
                                                        or p.get("captures"))]
highlighted = set()
for pattern in keyword_patterns:
    for alternatives in re.findall(r"\\b\(([a-z_|]+)\)", pattern["match"]):
        highlighted.update(alternatives.split("|"))
for word in sorted(literals - highlighted):
    fail(f"keyword `{word}` of Allot.g4 is not highlighted")
for word in sorted(highlighted - literals):
    fail(f"`{word}` is highlighted as a keyword but is not one in Allot.g4")

# --- a TextMate-style tokenizer over the shipped files ----------------------------
compiled = []
for pattern in top:
    if "match" in pattern:
        compiled.append(("match", re.compile(pattern["match"], re.M), pattern))
    else:
        compiled.append(("begin", re.compile(pattern["begin"]), pattern))


def scope_of(pattern, match):
    if "name" in pattern:
        return pattern["name"]
    captures = pattern.get("captures", {})
    return captures.get("1", {}).get("name", "")


def tokenize(text):
    """(scope, text) for each matched region, in order."""
    position, tokens = 0, []
    while position < len(text):
        best = None
        for kind, regex, pattern in compiled:
            match = regex.search(text, position)
            if match and match.end() > match.start() and (best is None or match.start() < best[1].start()):
                best = (kind, match, pattern)
        if best is None:
            break
        kind, match, pattern = best
        if kind == "match":
            tokens.append((scope_of(pattern, match), match.group(0)))
            position = match.end()
        else:
            end = re.compile(pattern["end"]).search(text, match.end())
            stop = end.end() if end else len(text)
            if pattern["name"].startswith("string"):  # an escaped quote does not end a string
                stop_at = match.end()
                while True:
                    end = re.compile(r'\\.|"').search(text, stop_at)
                    if end is None:
                        stop = len(text)
                        break
                    if end.group(0) == '"':
                        stop = end.end()
                        break
                    stop_at = end.end()
            tokens.append((pattern["name"], text[match.start():stop]))
            position = stop
    return tokens


files = sorted((root / "policies").glob("*.allot")) + sorted((root / "stdlib").glob("*.allot"))
if not files:
    fail("no policy files found")
counts = {}
for path in files:
    text = path.read_text()
    tokens = tokenize(text)
    for scope, token in tokens:
        counts[scope] = counts.get(scope, 0) + 1
        if token.startswith("//") and not scope.startswith("comment"):
            fail(f"{path.name}: `{token[:40]}` is not a comment ({scope})")
        if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", token) and scope != "constant.numeric.date.allot":
            fail(f"{path.name}: date `{token}` is {scope}")
        if re.fullmatch(r"[0-9]+(\.[0-9]+)?[smhdw]([0-9]+[smhdw])*", token) and scope != "constant.numeric.duration.allot":
            fail(f"{path.name}: duration `{token}` is {scope}")
        if scope == "constant.numeric.allot" and not re.fullmatch(r"[0-9]+(\.[0-9]+)?", token):
            fail(f"{path.name}: `{token}` is scoped as a number")
    # Every comment line and every string of the file was seen as one.
    comment_lines = sum(1 for line in text.splitlines() if line.strip().startswith("//"))
    seen_comments = sum(1 for scope, token in tokens if scope == "comment.line.double-slash.allot")
    if seen_comments < comment_lines:
        fail(f"{path.name}: {comment_lines} comment lines, {seen_comments} highlighted")
    strings = len(re.findall(r'"(?:[^"\\\n]|\\.)*"', re.sub(r"//[^\n]*", "", text)))
    seen_strings = sum(1 for scope, token in tokens if scope == "string.quoted.double.allot")
    if seen_strings != strings:
        fail(f"{path.name}: {strings} strings, {seen_strings} highlighted")
for needed in ["keyword.other.declaration.allot", "constant.numeric.percent.allot", "constant.numeric.duration.allot",
               "constant.numeric.date.allot", "string.quoted.double.allot", "entity.name.function.allot"]:
    if counts.get(needed, 0) == 0:
        fail(f"nothing in the shipped policies is highlighted as {needed}")

for message in failures:
    print(f"textmate_test: FAIL {message}")
print(f"textmate_test: {len(literals)} keywords, {len(files)} files, {sum(counts.values())} tokens; "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)

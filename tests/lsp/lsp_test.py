#!/usr/bin/env python3
"""`allot lsp` replayed against recorded sessions (tests/lsp/sessions/*.json):
each step sends a client message with Content-Length framing or reads the next
server message and requires it to contain the expected one (objects: every
expected key, recursively; lists: the same length, element by element). Then
the server's exit code. Also a hostile-input session: a message that is not
JSON gets a parse error, a document over the checker's limit gets
`input_too_large`, an oversized Content-Length ends the server with a
message, never a crash.
Usage: lsp_test.py BINARY SOURCE_ROOT"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

binary, root = sys.argv[1], Path(sys.argv[2])
failures = []


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return json.loads(stream.read(length))


def contains(found, expected, where="message"):
    if isinstance(expected, dict):
        if not isinstance(found, dict):
            return f"{where}: expected an object, found {json.dumps(found)[:200]}"
        for key, value in expected.items():
            if key not in found:
                return f"{where}: no `{key}` in {json.dumps(found)[:300]}"
            problem = contains(found[key], value, f"{where}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(found, list) or len(found) != len(expected):
            return f"{where}: expected {len(expected)} items, found {json.dumps(found)[:300]}"
        for i, (f, e) in enumerate(zip(found, expected)):
            problem = contains(f, e, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if found != expected:
        return f"{where}: expected {json.dumps(expected)[:300]}, found {json.dumps(found)[:300]}"
    return None


def substitute(value, places):
    if isinstance(value, dict):
        return {k: substitute(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, places) for v in value]
    if isinstance(value, str):
        match = re.fullmatch(r"\{LINE_OF:([^:]+):(.+)\}", value)
        if match:
            lines = (root / match.group(1)).read_text().splitlines()
            return next(i for i, line in enumerate(lines) if match.group(2) in line)
        for name, replacement in places.items():
            value = value.replace("{" + name + "}", replacement)
    return value


def replay(session_file):
    session = json.loads(session_file.read_text())
    with tempfile.TemporaryDirectory() as folder:
        places = {"DIR": folder, "ROOT": str(root)}
        server = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=folder)
        last_text = {}
        for number, step in enumerate(session["steps"]):
            if "send" in step:
                message = substitute(step["send"], places)
                params = message.get("params", {})
                if "textDocument" in params and "text" in params["textDocument"]:
                    last_text[params["textDocument"]["uri"]] = params["textDocument"]["text"]
                for change in params.get("contentChanges", []):
                    last_text[params["textDocument"]["uri"]] = change["text"]
                server.stdin.write(frame(message))
                server.stdin.flush()
                continue
            expected = substitute(step["expect"], places)
            if "{FORMATTED}" in json.dumps(expected):
                text = list(last_text.values())[-1]
                formatted = subprocess.run([binary, "fmt", "-"], input=text.encode(), capture_output=True).stdout
                expected = json.loads(json.dumps(expected).replace('"{FORMATTED}"', json.dumps(formatted.decode())))
            found = read_message(server.stdout)
            if found is None:
                failures.append(f"{session_file.name} step {number}: the server sent nothing more")
                break
            problem = contains(found, expected)
            if problem:
                failures.append(f"{session_file.name} step {number}: {problem}")
                break
        server.stdin.close()
        code = server.wait(timeout=30)
        if not failures and code != session.get("exit_code", 0):
            failures.append(f"{session_file.name}: exit code {code}, expected {session.get('exit_code', 0)}")
    print(f"lsp_test: {session_file.name}: {len(session['steps'])} steps")


sessions = sorted((root / "tests/lsp/sessions").glob("*.json"))
if not sessions:
    failures.append("no sessions found")
for session_file in sessions:
    replay(session_file)

# Hostile input: not JSON, then a message larger than any the server takes.
server = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
server.stdin.write(b"Content-Length: 5\r\n\r\n{oops")
server.stdin.flush()
answer = read_message(server.stdout)
if not answer or answer.get("error", {}).get("code") != -32700:
    failures.append(f"a body that is not JSON: {answer}")
# A document over the checker's 1 MiB: reported, not cut short and checked.
server.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": "file:///tmp/huge.allot", "languageId": "allot", "version": 1, "text": "# " + "x" * (2 << 20) + "\n"}}}))
server.stdin.flush()
answer = read_message(server.stdout)
codes = [d.get("code") for d in (answer or {}).get("params", {}).get("diagnostics", [])]
if codes != ["input_too_large"]:
    failures.append(f"a document over 1 MiB: diagnostics {codes}, expected ['input_too_large']")
server.stdin.write(b"Content-Length: 999999999\r\n\r\n")
server.stdin.flush()
server.stdin.close()
code = server.wait(timeout=30)
errors = server.stderr.read().decode()
if code != 1 or "more than the" not in errors:
    failures.append(f"an oversized message: exit {code}, stderr {errors!r}")

for failure in failures:
    print(f"lsp_test: FAIL {failure}")
sys.exit(1 if failures else 0)

#!/usr/bin/env bash
# examples/ci/ as a policy repository would use it: the git pre-commit hook in a
# real repository (a clean, staged policy passes; an unformatted one and one
# with an error are refused), the pre-commit hooks file and the GitHub Actions
# workflow parse as YAML, and every `allot` / `allot-lint` command they run
# names a command and flags the binaries have.
# Usage: ci_examples_test.sh BIN_DIR      (exit 77: git or python3's yaml missing)
set -euo pipefail
bin="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
command -v git >/dev/null || { echo "ci_examples_test: git is not installed; skipped"; exit 77; }
python3 -c 'import yaml' 2>/dev/null || { echo "ci_examples_test: python3-yaml is not installed; skipped"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "ci_examples_test: FAIL $*"; exit 1; }

# The pre-commit hook, with allot-lint on the PATH.
repo="$work/repo"
git init -q "$repo"
cp "$root/examples/ci/pre-commit" "$repo/.git/hooks/pre-commit"
commit() { (cd "$repo" && PATH="$bin:$PATH" git -c user.name=t -c user.email=t@example.com commit -qm "$1" > "$work/hook.out" 2>&1); }
# A policy with no date near today's (the hook checks against the system date,
# so a review or expiry that passes would turn this test red with no edit).
cat > "$repo/site.allot" <<'ALLOT'
policy site {
  unit gpu_hours {
    h100 = 1.0
  }
  window 7d
  tree {
    research 100% {
      owner "ada@example.com"
      review 2099-12-31
      hypothesis "a new architecture beats the baseline"
    }
  }
  class train {
    checkpoint every 30m
    protect up to 2h
    resumable
    grace 5m
  }
  rank = 1000 * account.fair_tree + job.wait / 1h
}
ALLOT
(cd "$repo" && git add site.allot)
commit "a clean policy" || { cat "$work/hook.out"; fail "the hook refused a clean policy"; }
sed -i 's/^  window 7d$/  window     7d/' "$repo/site.allot"
grep -q 'window     7d' "$repo/site.allot" || fail "could not unformat the policy"
(cd "$repo" && git add site.allot)
if commit "unformatted"; then fail "the hook let an unformatted policy through"; fi
grep -q 'site.allot' "$work/hook.out" || { cat "$work/hook.out"; fail "the hook did not name the file"; }
sed -i 's/^  window     7d$/  window 7d/; s/^    research 100% {$/    research 90% {/' "$repo/site.allot"
(cd "$repo" && git add site.allot)
if commit "shares over 100%"; then fail "the hook let a policy with an error through"; fi
echo "ci_examples_test: the pre-commit hook passes a clean policy and refuses bad ones"

# The YAML files, and the commands they run.
python3 - "$root/examples/ci" "$bin" <<'PY'
import re, shlex, subprocess, sys, yaml
folder, bin_dir = sys.argv[1], sys.argv[2]
workflow = yaml.safe_load(open(f"{folder}/.github/workflows/allot.yml"))
hooks = yaml.safe_load(open(f"{folder}/.pre-commit-hooks.yaml"))
lines = []
for job in workflow["jobs"].values():
    for step in job["steps"]:
        for line in re.sub(r"\\\n\s*", " ", str(step.get("run", ""))).splitlines():  # continuations joined
            lines.append(line)
lines += [hook["entry"] for hook in hooks]
checked = 0
for line in lines:
    words = shlex.split(line.strip(), comments=True)
    if not words or words[0] not in ("allot", "allot-lint"):
        continue
    binary, command = words[0], words[1]
    helped = subprocess.run([f"{bin_dir}/{binary}", command, "--help"], capture_output=True, text=True)
    if helped.returncode != 0:
        sys.exit(f"ci_examples_test: FAIL `{binary} {command}` is not a command: {helped.stderr}")
    for word in words[2:]:
        flag = word.split("=")[0]
        if flag.startswith("--") and not re.search(re.escape(flag) + r"(?![a-z-])", helped.stdout):
            sys.exit(f"ci_examples_test: FAIL `{binary} {command}` has no flag {flag}")
    checked += 1
if checked < 5:
    sys.exit(f"ci_examples_test: FAIL only {checked} allot commands found in examples/ci")
print(f"ci_examples_test: {checked} allot commands in the workflow and hooks use real commands and flags")
PY

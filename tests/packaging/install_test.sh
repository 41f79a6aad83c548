#!/usr/bin/env bash
# Allot installed as a user installs it (docs/INSTALL.md), never on this
# machine itself: `cmake --install` into a temporary prefix, and the two Debian
# packages CPack builds unpacked with `dpkg -x` into a throwaway root. Checks
# that each installed binary finds the installed stdlib (a library only the
# installed copy has), checks and tests policies outside the source tree, that
# allot-lint links neither LLVM nor libslurm (by its NEEDED libraries and by
# the package's Depends), that the manual pages render without groff warnings
# and name every command, and that bash completes commands and options.
# Usage: install_test.sh BUILD_DIR      (exit 77: cpack, dpkg-deb, readelf or groff missing)
set -euo pipefail
build="$(cd "$1" && pwd)"
source_root="$(cd "$(dirname "$0")/../.." && pwd)"
for tool in cmake cpack dpkg-deb dpkg-shlibdeps readelf groff bash; do
  command -v "$tool" >/dev/null || { echo "install_test: $tool is not installed; skipped"; exit 77; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "install_test: FAIL $*"; exit 1; }

# 1. cmake --install into a prefix.
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for file in bin/allot bin/allot-lint share/allot/stdlib/fairshare.allot share/allot/policies/saas.allot \
  share/allot/policies/saas_test.toml share/allot/examples/clusters/saas-8gpu.toml \
  share/allot/examples/states/saas-wednesday.toml share/man/man1/allot.1 share/man/man1/allot-lint.1 \
  share/bash-completion/completions/allot share/bash-completion/completions/allot-lint share/doc/allot/README.md \
  share/doc/allot/INSTALL.md; do
  [ -e "$prefix/$file" ] || fail "cmake --install did not install $file"
done
echo "install_test: cmake --install: $(find "$prefix" -type f | wc -l) files"

# A policy outside the source tree that imports the stdlib, and a library only the installed stdlib has.
outside="$work/site"
mkdir -p "$outside"
cp "$source_root/policies/saas.allot" "$outside/site.allot"
sed -i 's|^import "stdlib/waiting.allot"$|import "stdlib/waiting.allot"\nimport "stdlib/installed_only.allot"|' \
  "$outside/site.allot"
grep -q 'installed_only' "$outside/site.allot" || fail "could not add the import"
probe='fn installed_marker(): number = 1'
check_installed() {  # ROOT: the install's root (prefix or dpkg -x root)
  local root="$1" share="$1/share/allot"
  printf '%s\n' "$probe" > "$share/stdlib/installed_only.allot"
  for binary in allot allot-lint; do
    (cd "$outside" && "$root/bin/$binary" check --now 2026-12-01 site.allot > "$work/check.out" 2>&1) ||
      { cat "$work/check.out"; fail "$root/bin/$binary check failed outside the tree"; }
  done
  rm "$share/stdlib/installed_only.allot"
  # The same policy is refused without it: the installed binary read the installed stdlib, not the checkout's.
  if (cd "$outside" && "$root/bin/allot-lint" check --now 2026-12-01 site.allot > "$work/check.out" 2>&1); then
    fail "$root/bin/allot-lint found stdlib/installed_only.allot somewhere else"
  fi
  grep -q 'import_not_found' "$work/check.out" || { cat "$work/check.out"; fail "no import_not_found"; }
  # The installed policies' own tests pass from the installed tree (states under share/allot/examples).
  "$root/bin/allot" test "$share/policies" > "$work/test.out" 2>&1 || { cat "$work/test.out"; fail "allot test"; }
  "$root/bin/allot" --version | grep -q '^allot ' || fail "allot --version"
}
check_installed "$prefix"
# The build tree's binary does not know the installed-only library: the check above proves something.
if (cd "$outside" && "$build/cli/allot-lint" check --now 2026-12-01 site.allot > /dev/null 2>&1); then
  fail "the build tree's allot-lint accepted an import only the installed stdlib has"
fi

# 2. allot-lint needs neither LLVM nor libslurm; allot needs both (so the check can fail).
lint_needs="$(readelf -d "$prefix/bin/allot-lint" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
allot_needs="$(readelf -d "$prefix/bin/allot" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "install_test: allot-lint needs: $lint_needs"
case "$lint_needs" in *LLVM*|*slurm*) fail "allot-lint links LLVM or libslurm: $lint_needs" ;; esac
case "$allot_needs" in *LLVM*) ;; *) fail "allot does not link LLVM? $allot_needs" ;; esac
case "$allot_needs" in *slurm*) ;; *) fail "allot does not link libslurm? $allot_needs" ;; esac

# 3. The manual pages render without warnings and name every command; bash completes.
for binary in allot allot-lint; do
  page="$prefix/share/man/man1/$binary.1"
  warnings="$(groff -man -Tutf8 -ww -z "$page" 2>&1 || true)"
  [ -z "$warnings" ] || fail "groff warns about $binary.1: $warnings"
  rendered="$(groff -man -Tutf8 -P-c "$page" 2>/dev/null | sed 's/.\x08//g')"
  commands="$("$prefix/bin/$binary" help | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')"
  [ -n "$commands" ] || fail "$binary help lists no commands"
  for command in $commands; do
    grep -q "$binary $command" <<< "$rendered" || fail "$binary.1 does not describe \`$binary $command\`"
  done
done
complete_words() {  # BINARY WORD...: what bash completes for the last word
  local binary="$1"; shift
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "_${COMP_WORDS[0]//-/_}"; echo "${COMPREPLY[*]}"' \
    _ "$prefix/share/bash-completion/completions/$binary" "$binary" "$@"
}
[[ " $(complete_words allot ch) " == *" check "* ]] || fail "bash does not complete \`allot ch\` to check"
[[ " $(complete_words allot -I dir di) " == *" diff "* ]] || fail "bash does not complete \`allot -I dir di\`"
[[ " $(complete_words allot diff --ex) " == *" --exit-code "* ]] || fail "bash does not complete \`--ex\` for diff"
[[ " $(complete_words allot-lint fm) " == *" fmt "* ]] || fail "bash does not complete \`allot-lint fm\`"
[[ " $(complete_words allot-lint di) " != *" diff "* ]] || fail "allot-lint completes a command it does not have"

# 4. The Debian packages: Depends, contents, and both binaries unpacked into a throwaway root.
cpack --config "$build/CPackConfig.cmake" -B "$work/packages" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
lint_deb="$(ls "$work"/packages/allot-lint_*.deb)"
full_deb="$(ls "$work"/packages/allot_*.deb)"
lint_depends="$(dpkg-deb -f "$lint_deb" Depends)"
full_depends="$(dpkg-deb -f "$full_deb" Depends)"
echo "install_test: allot-lint Depends: $lint_depends"
echo "install_test: allot Depends: $full_depends"
case "$lint_depends" in *llvm*|*slurm*) fail "the allot-lint package depends on LLVM or libslurm" ;; esac
case "$full_depends" in *allot-lint*) ;; *) fail "the allot package does not depend on allot-lint" ;; esac
case "$full_depends" in *llvm*) ;; *) fail "the allot package does not depend on LLVM" ;; esac
dpkg-deb -c "$lint_deb" > "$work/lint.contents"
dpkg-deb -c "$full_deb" > "$work/full.contents"
grep -q '\./usr/share/allot/stdlib/fairshare.allot' "$work/lint.contents" || fail "allot-lint lacks the stdlib"
grep -q '\./usr/bin/allot$' "$work/full.contents" || fail "the allot package lacks /usr/bin/allot"
if grep -q 'stdlib' "$work/full.contents"; then fail "the allot package carries the stdlib too (it is allot-lint's)"; fi
root="$work/root"
dpkg -x "$lint_deb" "$root"
dpkg -x "$full_deb" "$root"
check_installed "$root/usr"
echo "install_test: packages $(basename "$lint_deb") and $(basename "$full_deb") unpacked and checked"

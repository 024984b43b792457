#!/usr/bin/env bash
# Lints what a change touches, as CI does after the tests:
#   scripts/lint.sh [BASE]   BASE: the commit the change starts from
#                            (default: the one .ci/lint-base names)
# - clang-format (.clang-format) on the changed lines of C++ files;
# - clang-tidy (.clang-tidy) on the changed .cc files that the build's
#   compile_commands.json compiles (build/ from scripts/bootstrap.sh test).
# Exit 1 with the findings when either complains.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${HMO_BUILD_DIR:-$root/build}
base=${1:-$(tr -d '[:space:]' < .ci/lint-base)}
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  if [ -z "${1:-}" ] && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    # A shallow clone cannot say what changed; the full one CI and users have can.
    echo "lint.sh: .ci/lint-base $base is not in this shallow clone; nothing to lint" >&2
    exit 0
  fi
  echo "lint.sh: base '$base' is not a commit of this clone" >&2
  exit 2
fi
for tool in clang-format-14 git-clang-format-14 clang-tidy-14; do
  if ! command -v "$tool" >/dev/null; then
    echo "lint.sh: $tool is missing (apt-get install clang-format-14 clang-tidy-14)" >&2
    exit 2
  fi
done

status=0
mapfile -t changed < <(git diff --name-only --diff-filter=AMR "$base" HEAD -- '*.cc' '*.h')
echo "== lint: ${#changed[@]} C++ files changed since $(git rev-parse --short "$base")"
((${#changed[@]})) || exit 0

# Formatting of the changed lines only: the tree predates .clang-format.
format_diff=$(git-clang-format-14 --binary clang-format-14 --diff --extensions cc,h "$base" HEAD -- "${changed[@]}" || true)
if [ -n "$format_diff" ] && ! grep -qE '^(no modified files to format|clang-format did not modify any files)$' <<<"$format_diff"; then
  echo "$format_diff"
  echo "lint.sh: these changed lines are not formatted (.clang-format); fix with: git clang-format-14 $base" >&2
  status=1
fi

if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint.sh: $build/compile_commands.json is missing: build first (scripts/bootstrap.sh test)" >&2
  exit 2
fi
mapfile -t sources < <(printf '%s\n' "${changed[@]}" | grep '\.cc$' |
  while read -r f; do grep -q "\"file\": \"$root/$f\"" "$build/compile_commands.json" && echo "$f"; done || true)
echo "== clang-tidy on ${#sources[@]} files"
# One clang-tidy per core; the build compiles with gcc, so clang skips the
# flags it does not know. xargs exits non-zero when any file has findings.
tidy_one='clang-tidy-14 -p "$0" --quiet --extra-arg=-Wno-unknown-warning-option \
  --extra-arg=-Wno-unused-command-line-argument "$1" 2>/dev/null ||
  { echo "lint.sh: clang-tidy findings in $1" >&2; exit 1; }'
if ((${#sources[@]})) &&
   ! printf '%s\0' "${sources[@]}" | xargs -0 -n 1 -P "$(nproc)" sh -c "$tidy_one" "$build"; then
  status=1
fi
exit $status

#!/usr/bin/env bash
# Node 26 (the Active LTS line) first on PATH, for CI and for a developer whose Node is older.
# The machine's `node` is used when it is 26 or newer; otherwise Node 26 from the registry's `node`
# package, installed once into tools/node26/ (the version is pinned in tools/node26/package.json):
# never globally, never over the system's Node.
#
#   scripts/node26.sh npm install      # run one command with it
#   scripts/node26.sh npm test
#   source scripts/node26.sh           # or put it first on this shell's PATH (.ci/run does)
#
# Needs an npm on PATH for the one-time install (any Node's npm will do).
_node26_main() {
  local repo dir bin major
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -ge 26 ]; then return 0; fi
  dir="$repo/tools/node26"
  bin="$dir/node_modules/node/bin"
  if [ "$("$bin/node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 26 ]; then
    echo "=== Node ${major} on PATH is older than 26: installing Node 26 into tools/node26/ (once)" >&2
    npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --loglevel=error >&2 || {
      echo "could not install Node 26 from the registry's node package" >&2
      return 1
    }
  fi
  export PATH="$bin:$PATH"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  _node26_main
else
  set -euo pipefail
  _node26_main
  if [ $# -eq 0 ]; then
    node --version
  else
    exec "$@"
  fi
fi

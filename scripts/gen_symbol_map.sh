#!/bin/sh
# Regenerates src/libsensim.map from the SENSIM_API declarations in the
# public headers (tests/check_symbols.sh checks that they agree).
set -eu
cd "$(dirname "$0")/.."
syms=$(grep -hoE 'SENSIM_API [^(]*\(' include/sensim/*.h | grep -oE 'sensim_[a-z0-9_]+\($' | tr -d '(' | sort)
{
  echo "LIBSENSIM_0.1 {"
  echo "  global:"
  printf '%s\n' "$syms" | sed 's/^/    /; s/$/;/'
  echo "  local:"
  echo "    *;"
  echo "};"
} > src/libsensim.map

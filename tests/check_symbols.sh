#!/bin/sh
# The exported symbols of libsensim.so are exactly the SENSIM_API functions
# declared in include/sensim/*.h.
set -eu
lib="$1"
incdir="$2"
declared=$(grep -hoE 'SENSIM_API [^(]*\(' "$incdir"/*.h | grep -oE 'sensim_[a-z0-9_]+\($' | tr -d '(' | sort)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort)
if [ "$declared" != "$exported" ]; then
  echo "declared (<) and exported (>) symbols differ:"
  printf '%s\n' "$declared" > /tmp/sensim_declared.$$
  printf '%s\n' "$exported" > /tmp/sensim_exported.$$
  diff /tmp/sensim_declared.$$ /tmp/sensim_exported.$$ || true
  rm -f /tmp/sensim_declared.$$ /tmp/sensim_exported.$$
  exit 1
fi
echo "$(printf '%s\n' "$declared" | wc -l) symbols match"

#!/bin/sh
# PAEmulatorMatrix --filter alibi lists ALiBi programs only, and the whole
# matrix has programs without ALiBi (so the filter left some out).
# Usage: filter-test.sh PATH/TO/PAEmulatorMatrix
set -e
matrix=$1
feature=' alibi( |$)'
filtered=$("$matrix" --list --filter alibi | grep '^\[')
all=$("$matrix" --list | grep '^\[')
echo "$filtered" | grep -Eq "$feature" ||
  { echo "no ALiBi program listed"; exit 1; }
if echo "$filtered" | grep -Ev "$feature"; then
  echo "programs without ALiBi passed --filter alibi (above)"; exit 1
fi
echo "$all" | grep -Evq "$feature" ||
  { echo "the whole matrix lists no program without ALiBi"; exit 1; }
echo "--filter alibi: $(echo "$filtered" | wc -l) of $(echo "$all" | wc -l) jobs"

#!/usr/bin/env bash
# Seeds a libFuzzer corpus directory from the lit suite and the examples:
# every `// -----` chunk of every .mlir file under test/ and examples/ becomes
# one file (what `-split-input-file` hands to the parser), minus the lit
# RUN/CHECK comments, which only cost the fuzzer mutations.
#   fuzz/seed-corpus.sh OUT_DIR
set -euo pipefail
out=${1:?usage: seed-corpus.sh OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
find "$root/test" "$root/examples" -name '*.mlir' -print0 |
  while IFS= read -r -d '' file; do
    name=$(realpath --relative-to="$root" "$file" | tr '/' '_')
    awk -v out="$out" -v name="$name" '
      function flush() {
        if (chunk != "") {
          path = sprintf("%s/%s.%03d", out, name, n++)
          printf "%s", chunk > path
          close(path)
        }
        chunk = ""
      }
      /^\/\/ -----/ { flush(); next }
      /^\/\/ *(RUN|CHECK|expected-)/ { next }
      { chunk = chunk $0 "\n" }
      END { flush() }' "$file"
  done
echo "seed-corpus: $(ls "$out" | wc -l) inputs in $out"

# Checks the `"pa.NAME"` string literals of the sources against the table
# of include/pa/IR/DiscardableAttributes.h. Reads three files:
#  1. the table, as pa-opt --pa-list-discardable-attributes prints it
#     (NAME<TAB>KIND<TAB>HOLDER);
#  2. the op definitions of the ODS files (`Pa_Op<"plan"`,
#     `Pa_TileOp<"qk"`): an op name is no attribute name;
#  3. `grep -rnoE` hits of the literals (PATH:LINE:"pa.NAME").
# Reports each literal that is no op name and either lies outside
# DiscardableAttributes.h (a name spelt a second time, or one the table
# does not have) or lies there but is not in the table; then "checked N".
FNR == 1 { ++file }
file == 1 { split($0, columns, "\t"); known["\"" columns[1] "\""] = 1; next }
file == 2 {
  name = $0
  sub(/^.*<"/, "", name)
  sub(/"$/, "", name)
  op[($0 ~ /^Pa_TileOp/ ? "\"pa.tile." : "\"pa.") name "\""] = 1
  next
}
{
  n = split($0, parts, ":")
  literal = parts[n]
  if (literal in op)
    next
  if (parts[1] != "include/pa/IR/DiscardableAttributes.h")
    print "error: " $0 ": a pa. attribute name outside DiscardableAttributes.h"
  else if (!(literal in known))
    print "error: " $0 ": not in the table pa-opt prints"
  ++checked
}
END { print "checked " checked + 0 }

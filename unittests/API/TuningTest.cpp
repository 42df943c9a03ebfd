//===- TuningTest.cpp - the tuning table's format, lookup and errors ------===//
#include "pa/API/Tuning.h"

#include "llvm/ADT/ArrayRef.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir::pa;

namespace {

/// A table of `entries` (JSON objects, comma-separated).
std::string tableOf(const std::string &entries) {
  return R"({"format": "pa-mlir-tuned-plans", "version": 1, "entries": [)" +
         entries + "]}";
}

/// An entry of the key sm_90a packed-transposed D 256 rows 8 P 16 e4m3fn
/// W 0 with `extra` fields.
std::string entryWith(const std::string &extra) {
  return R"({"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256,
             "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0)" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

TuningKey benchKey() {
  TuningKey key;
  key.target = "sm_90a";
  key.layout = "packed-transposed";
  key.headDim = 256;
  key.rows = 8;
  key.pageSize = 16;
  key.kvType = "e4m3fn";
  key.window = 0;
  return key;
}

TuningTable parsed(const std::string &json) {
  std::string error;
  std::optional<TuningTable> table = TuningTable::parse(json, "t.json", error);
  EXPECT_TRUE(table) << error;
  return table ? *table : TuningTable();
}

/// The error of parsing `json` (empty when it parses).
std::string errorOf(const std::string &json) {
  std::string error;
  std::optional<TuningTable> table = TuningTable::parse(json, "t.json", error);
  EXPECT_FALSE(table) << "parsed: " << json;
  return error;
}

/// The error of a table whose one entry sets `fields` for AMD chip `chip`
/// (an NVIDIA kernel option there is an error).
std::string errorOnAMD(const std::string &fields, const std::string &chip) {
  std::string entry = entryWith(fields);
  entry.replace(entry.find("sm_90a"), 6, chip);
  return errorOf(tableOf(entry));
}

/// Each one-entry table whose entry sets `fields` fails with "entry 0:
/// `message`".
void expectEntryErrors(
    llvm::ArrayRef<std::pair<const char *, const char *>> cases) {
  for (auto [fields, message] : cases)
    EXPECT_EQ(errorOf(tableOf(entryWith(fields))),
              std::string("t.json: entry 0: ") + message)
        << fields;
}

/// The error an AMD entry (errorOnAMD) gets for NVIDIA kernel option
/// `option`.
std::string nvidiaOnlyError(const std::string &option,
                            const std::string &chip) {
  return "t.json: entry 0: '" + option +
         "' is an NVIDIA kernel option; target '" + chip +
         "' has no such option";
}

TEST(Tuning, Buckets) {
  EXPECT_EQ(tuningBucket(0), 1);
  EXPECT_EQ(tuningBucket(1), 1);
  EXPECT_EQ(tuningBucket(2), 2);
  EXPECT_EQ(tuningBucket(3), 4);
  EXPECT_EQ(tuningBucket(4096), 4096);
  EXPECT_EQ(tuningBucket(4097), 8192);
  EXPECT_EQ(tuningBucket(131072), 131072);
}

TEST(Tuning, LookupNeedsTheWholeKey) {
  TuningTable table = parsed(tableOf(entryWith(R"("budget": 256)")));
  ASSERT_EQ(table.entries().size(), 1u);
  std::optional<TunedPlan> plan = table.lookup(benchKey());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->budget, 256);
  EXPECT_FALSE(plan->maxPartitions);
  // Any batch and length: the entry has no buckets.
  EXPECT_TRUE(table.lookup(benchKey(), 128, 2048));
  // Each key field on its own decides.
  auto differing = [&](auto change) {
    TuningKey key = benchKey();
    change(key);
    return table.lookup(key).has_value();
  };
  EXPECT_FALSE(differing([](TuningKey &k) { k.target = "gfx950"; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.layout = "packed-plain"; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.headDim = 128; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.rows = 32; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.pageSize = 64; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.kvType = "bf16"; }));
  EXPECT_FALSE(differing([](TuningKey &k) { k.window = 4096; }));
}

TEST(Tuning, BucketedEntriesNeedTheirValueAndTheMostSpecificWins) {
  TuningTable table = parsed(tableOf(
      entryWith(R"("budget": 256)") + "," +
      entryWith(R"("batch_bucket": 128, "budget": 128)") + "," +
      entryWith(R"("batch_bucket": 128, "context_bucket": 2048,
                   "max_partitions": 1)") +
      "," + entryWith(R"("context_bucket": 2048, "budget": 96)")));
  // No batch known (compiling): only the entry without buckets.
  EXPECT_EQ(table.lookup(benchKey())->budget, 256);
  EXPECT_EQ(table.lookup(benchKey(), std::nullopt, 2048)->budget, 96);
  // Batch 65..128: the batch entry; with a length of 1025..2048 too, the
  // entry with both buckets.
  EXPECT_EQ(table.lookup(benchKey(), 100)->budget, 128);
  EXPECT_EQ(table.lookup(benchKey(), 128, 8192)->budget, 128);
  std::optional<TunedPlan> both = table.lookup(benchKey(), 128, 1500);
  ASSERT_TRUE(both);
  EXPECT_FALSE(both->budget);
  EXPECT_EQ(both->maxPartitions, 1);
  // Outside the buckets: the general entry.
  EXPECT_EQ(table.lookup(benchKey(), 129, 1500)->budget, 96);
  EXPECT_EQ(table.lookup(benchKey(), 64, 131072)->budget, 256);
}

TEST(Tuning, EqualSpecificityTakesTheFirst) {
  TuningTable table =
      parsed(tableOf(entryWith(R"("batch_bucket": 8, "budget": 200)") + "," +
                     entryWith(R"("context_bucket": 131072, "budget": 300)")));
  EXPECT_EQ(table.lookup(benchKey(), 8, 131072)->budget, 200);
}

TEST(Tuning, EmptyTable) {
  TuningTable table = parsed(tableOf(""));
  EXPECT_TRUE(table.entries().empty());
  EXPECT_FALSE(table.lookup(benchKey(), 8, 8));
}

TEST(Tuning, TheBuiltInTableLoads) {
  // The table compiled from tuning/plans.json (unless the environment names
  // another one).
  std::string error;
  const TuningTable *table = activeTuningTable(error);
  EXPECT_EQ(error, "");
  if (!std::getenv(kTuningTableVariable)) {
    ASSERT_TRUE(table);
    EXPECT_FALSE(table->entries().empty());
  }
}

TEST(Tuning, KernelOptionsAlone) {
  // An entry may set only pa-to-nvvm's options: the plan limits stay the
  // defaults (absent), the options are what it gives.
  TuningTable table = parsed(tableOf(
      entryWith(R"("value_stage": 2, "key_ahead": 0, "value_ahead": 3)") + "," +
      entryWith(R"("batch_bucket": 8, "budget": 198, "value_stage": 1)")));
  std::optional<TunedPlan> any = table.lookup(benchKey());
  ASSERT_TRUE(any);
  EXPECT_FALSE(any->budget);
  EXPECT_FALSE(any->maxPartitions);
  EXPECT_EQ(any->valueStage, 2);
  EXPECT_EQ(any->keyAhead, 0);
  EXPECT_EQ(any->valueAhead, 3);
  std::optional<TunedPlan> eight = table.lookup(benchKey(), 8);
  ASSERT_TRUE(eight);
  EXPECT_EQ(eight->budget, 198);
  EXPECT_EQ(eight->valueStage, 1);
  EXPECT_FALSE(eight->keyAhead);
  EXPECT_FALSE(eight->keyAheadInRegisters);
}

TEST(Tuning, KeyAheadInRegisters) {
  // A boolean; true only with key-ahead's blocks in the same entry.
  TuningTable table = parsed(
      tableOf(entryWith(R"("key_ahead": 1, "key_ahead_in_registers": true)")));
  std::optional<TunedPlan> plan = table.lookup(benchKey());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->keyAhead, 1);
  EXPECT_EQ(plan->keyAheadInRegisters, true);
  TunedPlan off =
      parsed(
          tableOf(entryWith(R"("budget": 2, "key_ahead_in_registers": false)")))
          .lookup(benchKey())
          .value();
  EXPECT_EQ(off.keyAheadInRegisters, false);
}

TEST(Tuning, KeyAheadBulk) {
  // As key_ahead_in_registers: a boolean, true only with key-ahead's blocks
  // in the same entry; and not with key_ahead_in_registers.
  std::optional<TunedPlan> plan =
      parsed(tableOf(entryWith(R"("key_ahead": 2, "key_ahead_bulk": true)")))
          .lookup(benchKey());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->keyAhead, 2);
  EXPECT_EQ(plan->keyAheadBulk, true);
  EXPECT_FALSE(plan->keyAheadInRegisters);
  const std::pair<const char *, const char *> bad[] = {
      {R"("key_ahead": 1, "key_ahead_bulk": "yes")",
       "'key_ahead_bulk' must be true or false"},
      {R"("key_ahead_bulk": true)",
       "'key_ahead_bulk' is true without 'key_ahead' >= 1"},
      {R"("key_ahead": 1, "key_ahead_bulk": true, "key_ahead_in_registers": true)",
       "'key_ahead_in_registers' and 'key_ahead_bulk' are both true "
       "(key-ahead's chunks go to one place)"},
  };
  expectEntryErrors(bad);
  EXPECT_EQ(errorOnAMD(R"("key_ahead_bulk": false)", "gfx950"),
            nvidiaOnlyError("key_ahead_bulk", "gfx950"));
}

TEST(Tuning, L2Prefetch) {
  // A boolean of NVIDIA entries, alone enough for an entry.
  std::optional<TunedPlan> plan =
      parsed(tableOf(entryWith(R"("l2_prefetch": true)"))).lookup(benchKey());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->l2Prefetch, true);
  EXPECT_FALSE(plan->keyAhead);
  EXPECT_EQ(errorOf(tableOf(entryWith(R"("l2_prefetch": 1)"))),
            "t.json: entry 0: 'l2_prefetch' must be true or false");
  EXPECT_EQ(errorOnAMD(R"("l2_prefetch": true)", "gfx950"),
            nvidiaOnlyError("l2_prefetch", "gfx950"));
}

TEST(Tuning, L2PrefetchMinTiles) {
  // The partitions that prefetch: an integer, only beside l2_prefetch true.
  std::optional<TunedPlan> plan =
      parsed(tableOf(entryWith(
                 R"("l2_prefetch": true, "l2_prefetch_min_tiles": 16)")))
          .lookup(benchKey());
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->l2Prefetch, true);
  EXPECT_EQ(plan->l2PrefetchMinTiles, 16);
  const std::pair<const char *, const char *> bad[] = {
      {R"("l2_prefetch_min_tiles": 16, "budget": 2)",
       "'l2_prefetch_min_tiles' is given without 'l2_prefetch' true"},
      {R"("l2_prefetch": false, "l2_prefetch_min_tiles": 16)",
       "'l2_prefetch_min_tiles' is given without 'l2_prefetch' true"},
      {R"("l2_prefetch": true, "l2_prefetch_min_tiles": -1)",
       "'l2_prefetch_min_tiles' must be an integer from 0 to 1048576"},
      {R"("l2_prefetch": true, "l2_prefetch_min_tiles": 2000000)",
       "'l2_prefetch_min_tiles' must be an integer from 0 to 1048576"},
  };
  expectEntryErrors(bad);
  EXPECT_EQ(errorOnAMD(R"("l2_prefetch_min_tiles": 4)", "gfx950"),
            nvidiaOnlyError("l2_prefetch_min_tiles", "gfx950"));
}

TEST(Tuning, Diagnostics) {
  // Not JSON: the parser's position.
  std::string error = errorOf("{\"format\": ");
  EXPECT_NE(error.find("t.json: not JSON: "), std::string::npos) << error;
  EXPECT_NE(error.find("[1:"), std::string::npos) << error;
  EXPECT_EQ(errorOf("[]"), "t.json: the table must be a JSON object");
  EXPECT_EQ(errorOf(R"({"format": "x", "version": 1, "entries": []})"),
            "t.json: 'format' must be \"pa-mlir-tuned-plans\"");
  EXPECT_EQ(
      errorOf(R"({"format": "pa-mlir-tuned-plans", "version": 2, "entries": []})"),
      "t.json: 'version' must be 1");
  EXPECT_EQ(
      errorOf(R"({"format": "pa-mlir-tuned-plans", "version": 1, "entries": {}})"),
      "t.json: 'entries' must be an array");
  EXPECT_EQ(errorOf(R"({"format": "pa-mlir-tuned-plans", "version": 1,
                        "entries": [], "extra": 1})"),
            "t.json: unknown field 'extra'");
  EXPECT_EQ(errorOf(tableOf("3")), "t.json: entry 0: must be an object");
  // One entry's fields and the error that names them.
  const std::pair<const char *, const char *> badFields[] = {
      {R"("budget": 1, "bugdet": 2)", "unknown field 'bugdet'"},
      {R"("budget": 0)", "'budget' must be an integer from 1 to 2^31-1"},
      {R"("max_partitions": 1.5)",
       "'max_partitions' must be an integer from 1 to 2^31-1"},
      {R"("budget": "256")", "'budget' must be an integer from 1 to 2^31-1"},
      {R"("batch_bucket": 100, "budget": 1)",
       "'batch_bucket' must be a power of two, got 100"},
      {"", "sets none of 'budget', 'max_partitions', 'key_ahead', "
           "'value_stage', 'value_ahead', 'key_ahead_in_registers', "
           "'key_ahead_bulk', 'l2_prefetch'"},
      {R"("key_ahead": 1, "key_ahead_in_registers": 1)",
       "'key_ahead_in_registers' must be true or false"},
      {R"("key_ahead_in_registers": true)",
       "'key_ahead_in_registers' is true without 'key_ahead' >= 1"},
      {R"("key_ahead": 0, "key_ahead_in_registers": true)",
       "'key_ahead_in_registers' is true without 'key_ahead' >= 1"},
      {R"("value_ahead": 0)", "'value_ahead' must be an integer from 1 to 4"},
      {R"("value_ahead": 5)", "'value_ahead' must be an integer from 1 to 4"},
      // pa-to-nvvm's options: 0 to 8 blocks, NVIDIA targets only.
      {R"("value_stage": 9)", "'value_stage' must be an integer from 0 to 8"},
      // Below the minimum and above the maximum: one range, one message.
      {R"("key_ahead": -1)", "'key_ahead' must be an integer from 0 to 8"},
      {R"("key_ahead": 9)", "'key_ahead' must be an integer from 0 to 8"},
      {R"("budget": 1, "measured": 3)", "'measured' must be a string"},
  };
  expectEntryErrors(badFields);
  EXPECT_EQ(errorOf(tableOf(R"({"target": "sm_90a", "budget": 1})")),
            "t.json: entry 0: missing field 'layout'");
  EXPECT_EQ(errorOnAMD(R"("value_stage": 2)", "gfx950"),
            nvidiaOnlyError("value_stage", "gfx950"));
  EXPECT_EQ(errorOnAMD(R"("key_ahead_in_registers": false)", "gfx942"),
            nvidiaOnlyError("key_ahead_in_registers", "gfx942"));
  std::string badLayout = entryWith(R"("budget": 1)");
  badLayout.replace(badLayout.find("packed-transposed"), 17, "transposed");
  EXPECT_EQ(errorOf(tableOf(badLayout)),
            "t.json: entry 0: 'layout' has an unknown value 'transposed'");
  std::string badType = entryWith(R"("budget": 1)");
  badType.replace(badType.find("\"e4m3fn\""), 8, "5");
  EXPECT_EQ(errorOf(tableOf(badType)),
            "t.json: entry 0: 'kv_dtype' must be a string");
  // The same key and buckets twice: which one applies would be ambiguous.
  EXPECT_EQ(errorOf(tableOf(entryWith(R"("budget": 1)") + "," +
                            entryWith(R"("batch_bucket": 8, "budget": 2)") +
                            "," + entryWith(R"("budget": 3)"))),
            "t.json: entry 2 (sm_90a packed-transposed D 256 rows 8 P 16 "
            "e4m3fn W 0) has the key and buckets of entry 0");
}

} // namespace

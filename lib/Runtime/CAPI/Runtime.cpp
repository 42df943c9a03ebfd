//===- Runtime.cpp - C API of the runtime library: driver-free checks -----===//
#include "pa-c/Runtime.h"

#include "CAPISupport.h"
#include "pa/Runtime/DecodeOperands.h"

using namespace pa::capi;

bool paDecodeCheckSequences(int64_t pageSize, int64_t queryLength,
                            int64_t slidingWindow, int64_t batch,
                            int64_t numPages, int64_t maxPagesPerSequence,
                            const int32_t *contextLengths,
                            const int32_t *blockTables, PaString *error) {
  clear(error);
  std::string message;
  if (pageSize < 1 || queryLength < 1)
    message = "page size and query length must be >= 1, got " +
              std::to_string(pageSize) + " and " + std::to_string(queryLength);
  else if (batch < 0 || numPages < 0 || maxPagesPerSequence < 0)
    message = "batch, page count and block-table width must be >= 0";
  else if (batch > 0 && (!contextLengths ||
                         (maxPagesPerSequence > 0 && !blockTables)))
    message = "paDecodeCheckSequences needs the context lengths and the "
              "block table";
  else
    message = pa::runtime::checkSequences(
        pageSize, queryLength, slidingWindow, batch, numPages,
        maxPagesPerSequence, contextLengths, blockTables);
  if (message.empty())
    return true;
  report(error, message);
  return false;
}

/*===- TestHarness.h - checks shared by the C API test programs --*- C -*-===*\
|*                                                                            *|
|* CHECK(condition, format, ...) counts a check and exits with the failing   *|
|* condition, file, line and message; readFile reads a whole file.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef PA_TEST_CAPI_TESTHARNESS_H
#define PA_TEST_CAPI_TESTHARNESS_H

#include <stdio.h>
#include <stdlib.h>

static int checks = 0;

#define CHECK(condition, ...)                                                  \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(condition)) {                                                        \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #condition);     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* The bytes of `path`, NUL-terminated (their count in `size` unless NULL);
 * NULL when it cannot be read. */
static char *readFile(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)length + 1);
  size_t read = fread(text, 1, (size_t)length, file);
  text[read] = '\0';
  fclose(file);
  if (size)
    *size = read;
  return text;
}

#endif /* PA_TEST_CAPI_TESTHARNESS_H */

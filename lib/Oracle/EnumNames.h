//===- EnumNames.h - Parse an enum from its printed name --------*- C++ -*-===//
#ifndef PA_ORACLE_LIB_ENUMNAMES_H
#define PA_ORACLE_LIB_ENUMNAMES_H

#include <initializer_list>
#include <string>

namespace pa::oracle {

// The enumerator among `all` whose nameOf() is `name`; false if none is.
template <typename Enum>
bool parseEnumName(const std::string &name, std::initializer_list<Enum> all,
                   const char *(*nameOf)(Enum), Enum &result) {
  for (Enum candidate : all) {
    if (name == nameOf(candidate)) {
      result = candidate;
      return true;
    }
  }
  return false;
}

} // namespace pa::oracle

#endif // PA_ORACLE_LIB_ENUMNAMES_H

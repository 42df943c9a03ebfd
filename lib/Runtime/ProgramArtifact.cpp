//===- ProgramArtifact.cpp - ahead-of-time decode programs on disk --------===//
#include "pa/Runtime/ProgramArtifact.h"

#include "Json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace pa::runtime {
namespace {

constexpr const char *kFormatName = "pa-mlir-program";
constexpr const char *kManifestName = "program.json";
constexpr const char *kMetadataName = "kernels.json";

/// The file name of the image of `codeFormat`, or null for an unknown one.
const char *imageName(const std::string &codeFormat) {
  if (codeFormat == "hsaco")
    return "kernels.hsaco";
  if (codeFormat == "ptx")
    return "kernels.ptx";
  if (codeFormat == "cubin")
    return "kernels.cubin";
  return nullptr;
}

std::string join(const std::string &directory, const std::string &name) {
  return directory.empty() || directory.back() == '/' ? directory + name
                                                      : directory + "/" + name;
}

/// The most bytes program.json and the sidecar (real ones have kilobytes)
/// and the image (megabytes) may have: a larger file is refused before it
/// is read.
constexpr int64_t kMaxTextBytes = int64_t(64) << 20;
constexpr int64_t kMaxImageBytes = int64_t(1) << 30;

/// The size of the regular file `path`; false with `error` when there is
/// none.
bool fileSize(const std::string &path, int64_t &size, std::string &error) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = path + " is not a file";
    return false;
  }
  size = static_cast<int64_t>(info.st_size);
  return true;
}

/// Reads `path` whole when it has at most `limit` bytes.
bool readFile(const std::string &path, int64_t limit, std::string &contents,
              std::string &error) {
  int64_t size = 0;
  if (!fileSize(path, size, error))
    return false;
  if (size > limit) {
    error = path + " has " + std::to_string(size) + " bytes, more than the " +
            std::to_string(limit) + " it may have";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  contents = buffer.str();
  return true;
}

/// Writes `contents` to `path` through a temporary file renamed into place,
/// so a reader never sees half a file.
bool writeFile(const std::string &path, const std::string &contents,
               std::string &error) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(contents.data(), contents.size()) || !out.flush()) {
      error = "cannot write " + temporary + ": " + std::strerror(errno);
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

bool isPlainName(const std::string &text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.'))
      return false;
  return text != "." && text != "..";
}

/// A string member of the manifest; false with `error` naming it.
bool stringMember(const json::Value &root, const char *key, std::string &out,
                  const std::string &where, std::string &error) {
  const json::Value *value = root.get(key);
  if (!value || !value->string()) {
    error = where + ": \"" + key + "\" must be a string";
    return false;
  }
  out = *value->string();
  return true;
}

/// `value` as JSON text (compact); numbers as they were written.
std::string print(const json::Value &value) {
  switch (value.kind) {
  case json::Value::Kind::Null:
    return "null";
  case json::Value::Kind::Bool:
    return value.boolean ? "true" : "false";
  case json::Value::Kind::Number:
    return value.text;
  case json::Value::Kind::String:
    return json::quote(value.text);
  case json::Value::Kind::Array: {
    std::string out = "[";
    for (size_t i = 0; i < value.items.size(); ++i)
      out += (i ? ", " : "") + print(value.items[i]);
    return out + "]";
  }
  case json::Value::Kind::Object: {
    std::string out = "{";
    for (size_t i = 0; i < value.members.size(); ++i)
      out += (i ? ", " : "") + json::quote(value.members[i].first) + ": " +
             print(value.members[i].second);
    return out + "}";
  }
  }
  return "null";
}

/// [A-Za-z0-9_-]+: a chip name, and so a directory name of its own.
bool isChipName(const std::string &chip) {
  bool plain = !chip.empty();
  for (char c : chip)
    plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
             c == '-';
  return plain;
}

/// Whether `path` holds a multi-chip program.json (one that lists chips).
bool isMultiChip(const std::string &path) {
  std::string text, ignored;
  json::Value root;
  return readFile(join(path, kManifestName), kMaxTextBytes, text, ignored) &&
         json::parse(text, root, ignored) &&
         root.kind == json::Value::Kind::Object && root.get("chips");
}

std::string listed(const std::vector<std::string> &chips) {
  std::string text;
  for (const std::string &chip : chips)
    text += (text.empty() ? "" : ", ") + chip;
  return text;
}

} // namespace

bool writeProgram(const std::string &path, const ProgramArtifact &program,
                  std::string &error) {
  const char *image = imageName(program.codeFormat);
  if (!image) {
    error = "unknown code format '" + program.codeFormat +
            "' (hsaco, ptx or cubin)";
    return false;
  }
  if (!isChipName(program.chip)) {
    error = "the chip name '" + program.chip + "' is not [A-Za-z0-9_-]+";
    return false;
  }
  json::Value parsed;
  if (!json::parse(program.metadataJson, parsed, error)) {
    error = "the metadata is not JSON: " + error;
    return false;
  }
  if (!program.configJson.empty() &&
      (!json::parse(program.configJson, parsed, error) ||
       parsed.kind != json::Value::Kind::Object)) {
    error = "the config is not a JSON object" +
            (error.empty() ? std::string() : ": " + error);
    return false;
  }
  if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    error = "cannot create the directory " + path + ": " + std::strerror(errno);
    return false;
  }
  if (isMultiChip(path)) {
    error = path + " is a multi-chip program: add a chip's program with "
                   "paProgramWriteChip";
    return false;
  }
  std::ostringstream manifest;
  manifest << "{\n  \"format\": \"" << kFormatName << "\",\n"
           << "  \"version\": " << kProgramFormatVersion << ",\n"
           << "  \"chip\": \"" << program.chip << "\",\n"
           << "  \"code_format\": \"" << program.codeFormat << "\",\n"
           << "  \"code_object\": \"" << image << "\",\n"
           << "  \"code_object_bytes\": " << program.codeObject.size() << ",\n"
           << "  \"metadata\": \"" << kMetadataName << "\"";
  if (!program.configJson.empty())
    manifest << ",\n  \"config\": " << program.configJson;
  manifest << "\n}\n";
  // The manifest last: until it is replaced, a reader sees the old one
  // (and refuses the new image by its recorded size).
  return writeFile(join(path, image), program.codeObject, error) &&
         writeFile(join(path, kMetadataName), program.metadataJson, error) &&
         writeFile(join(path, kManifestName), manifest.str(), error);
}

namespace {
/// The program.json of the program directory `path`, format and version
/// checked; false with `error` naming the problem.
bool readManifest(const std::string &path, json::Value &root,
                  std::string &error) {
  const std::string manifestPath = join(path, kManifestName);
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    error = path + " is not a pa-mlir program (a directory with " +
            kManifestName + ")";
    return false;
  }
  std::string text;
  if (!readFile(manifestPath, kMaxTextBytes, text, error))
    return false;
  if (!json::parse(text, root, error)) {
    error = manifestPath + ": " + error;
    return false;
  }
  const json::Value *format = root.get("format");
  if (root.kind != json::Value::Kind::Object || !format || !format->string() ||
      *format->string() != kFormatName) {
    error = manifestPath + " is not a pa-mlir program (\"format\" must be \"" +
            kFormatName + "\")";
    return false;
  }
  const json::Value *version = root.get("version");
  std::optional<int64_t> number = version ? version->integer() : std::nullopt;
  if (!number || *number != kProgramFormatVersion) {
    error = manifestPath + " has format version " +
            (version ? version->text : std::string("(none)")) +
            "; this runtime reads version " +
            std::to_string(kProgramFormatVersion);
    return false;
  }
  return true;
}

} // namespace

bool readProgram(const std::string &path, ProgramArtifact &program,
                 std::string &error) {
  const std::string manifestPath = join(path, kManifestName);
  json::Value root;
  if (!readManifest(path, root, error))
    return false;
  if (root.get("chips")) {
    error = path + " is a multi-chip program: its chips' programs are " +
            join(path, "CHIP");
    return false;
  }
  std::string imageFile, metadataFile;
  if (!stringMember(root, "chip", program.chip, manifestPath, error) ||
      !stringMember(root, "code_format", program.codeFormat, manifestPath,
                    error) ||
      !stringMember(root, "code_object", imageFile, manifestPath, error) ||
      !stringMember(root, "metadata", metadataFile, manifestPath, error))
    return false;
  if (!imageName(program.codeFormat)) {
    error = manifestPath + ": unknown code format '" + program.codeFormat +
            "' (hsaco, ptx or cubin)";
    return false;
  }
  for (const std::string *name : {&imageFile, &metadataFile})
    if (!isPlainName(*name)) {
      error = manifestPath + ": '" + *name +
              "' is not a file name inside the program";
      return false;
    }
  const json::Value *bytes = root.get("code_object_bytes");
  std::optional<int64_t> size = bytes ? bytes->integer() : std::nullopt;
  if (!size || *size < 0) {
    error = manifestPath + ": \"code_object_bytes\" must be an integer >= 0";
    return false;
  }
  // The image's size is checked before it is read.
  int64_t imageBytes = 0;
  if (!fileSize(join(path, imageFile), imageBytes, error))
    return false;
  if (imageBytes != *size) {
    error = join(path, imageFile) + " has " + std::to_string(imageBytes) +
            " bytes, " + manifestPath + " records " + std::to_string(*size) +
            " (truncated or replaced)";
    return false;
  }
  if (!readFile(join(path, imageFile), kMaxImageBytes, program.codeObject,
                error) ||
      !readFile(join(path, metadataFile), kMaxTextBytes, program.metadataJson,
                error))
    return false;
  json::Value metadata;
  if (!json::parse(program.metadataJson, metadata, error)) {
    error = join(path, metadataFile) + ": " + error;
    return false;
  }
  // NVIDIA sidecars name their format; AMD ones their amdgcn target.
  std::string described;
  if (const json::Value *value = metadata.get("format");
      value && value->string())
    described = *value->string();
  else if (const json::Value *target = metadata.get("target");
           target && target->string() &&
           target->string()->rfind("amdgcn", 0) == 0)
    described = "hsaco";
  if (!described.empty() && described != program.codeFormat) {
    error = join(path, metadataFile) + " describes a " + described +
            " image, " + manifestPath + " a " + program.codeFormat + " one";
    return false;
  }
  program.configJson.clear();
  if (const json::Value *config = root.get("config")) {
    if (config->kind != json::Value::Kind::Object) {
      error = manifestPath + ": \"config\" must be an object";
      return false;
    }
    program.configJson = print(*config);
  }
  return true;
}

bool readProgramChips(const std::string &path, std::vector<std::string> &chips,
                      bool &multiChip, std::string &error) {
  chips.clear();
  json::Value root;
  if (!readManifest(path, root, error))
    return false;
  const json::Value *list = root.get("chips");
  multiChip = list != nullptr;
  if (!multiChip) {
    ProgramArtifact program;
    if (!readProgram(path, program, error))
      return false;
    chips.push_back(program.chip);
    return true;
  }
  const std::string manifestPath = join(path, kManifestName);
  if (list->kind != json::Value::Kind::Array || list->items.empty()) {
    error = manifestPath + ": \"chips\" must be a non-empty array of chip "
                           "names";
    return false;
  }
  for (const json::Value &item : list->items) {
    const std::string *chip = item.string();
    if (!chip || !isChipName(*chip) ||
        std::find(chips.begin(), chips.end(), *chip) != chips.end()) {
      error = manifestPath + ": \"chips\" must hold distinct chip names "
                             "([A-Za-z0-9_-]+), got " + print(item);
      return false;
    }
    chips.push_back(*chip);
  }
  return true;
}

bool addProgramChip(const std::string &path, const ProgramArtifact &program,
                    std::string &error) {
  if (!isChipName(program.chip)) {
    error = "the chip name '" + program.chip + "' is not [A-Za-z0-9_-]+";
    return false;
  }
  std::vector<std::string> chips;
  struct stat info;
  if (::stat(join(path, kManifestName).c_str(), &info) == 0) {
    bool multiChip = false;
    if (!readProgramChips(path, chips, multiChip, error))
      return false;
    if (!multiChip) {
      error = path + " holds the single-chip program of " + chips.front() +
              "; a multi-chip program needs a directory of its own";
      return false;
    }
  } else if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    error = "cannot create the directory " + path + ": " + std::strerror(errno);
    return false;
  }
  if (!writeProgram(join(path, program.chip), program, error))
    return false;
  if (std::find(chips.begin(), chips.end(), program.chip) == chips.end())
    chips.push_back(program.chip);
  std::sort(chips.begin(), chips.end());
  std::ostringstream manifest;
  manifest << "{\n  \"format\": \"" << kFormatName << "\",\n"
           << "  \"version\": " << kProgramFormatVersion << ",\n"
           << "  \"chips\": [";
  for (size_t i = 0; i < chips.size(); ++i)
    manifest << (i ? ", " : "") << "\"" << chips[i] << "\"";
  manifest << "]\n}\n";
  return writeFile(join(path, kManifestName), manifest.str(), error);
}

bool chooseProgramChip(const std::string &path,
                       const std::vector<std::string> &chips, bool amd,
                       const std::string &deviceChip, std::string &chosen,
                       std::string &error) {
  std::vector<std::string> nvidia;
  for (const std::string &chip : chips) {
    if (amd && chip == deviceChip) {
      chosen = chip;
      return true;
    }
    if (chip.rfind("sm_", 0) == 0)
      nvidia.push_back(chip);
  }
  if (!amd && nvidia.size() == 1) {
    chosen = nvidia.front();
    return true;
  }
  error = path + " holds programs for " + listed(chips) + "; " +
          (amd ? "none for this GPU's chip, " + deviceChip
               : nvidia.empty()
                     ? std::string("none for an NVIDIA GPU (sm_*)")
                     : "more than one NVIDIA program: load " +
                           join(path, "CHIP") + " itself");
  return false;
}

} // namespace pa::runtime

// What the cache-loader fuzzer does with one input, shared by the libFuzzer binary
// (tests/fuzz/cache_loader_fuzzer.cpp, scripts/fuzz.sh) and the regression test that replays
// its corpus (tests/cache_loader_fuzz_test.cpp).
//
// Once per process, a real model object is compiled into a private cache folder. Each input
// then becomes a cached object and its record beside it: the input's first byte chooses how
// (the input as the object under the real record, the real object spliced with the input, the
// input as the record), and whether the object is a link, a folder or writable by others. The
// loader must accept exactly an object that is a private regular file with the record
// record_text(key, SHA-256 of its bytes), which for these inputs is only the real object
// itself, and what it accepts must load and compute. A crash, a sanitizer report, or a
// corrupt object accepted is a bug.
#pragma once

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hysim/core/errors.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/native_cache.hpp"

namespace hysim::fuzz {

// A real object in a private cache: its folder, key, bytes and record.
struct CachedModel {
  std::string folder, key, object, record;
  std::string object_path() const { return folder + "/model-" + key + ".so"; }
  std::string record_path() const { return folder + "/model-" + key + ".sha256"; }
};

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A private temporary folder, removed at exit.
struct TemporaryFolder {
  std::string path;
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hysim-cache-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

inline const CachedModel& cached_model() {
  static const TemporaryFolder folder;
  static const CachedModel model = [] {
    const std::string pattern = folder.path;
    lang::NativeOptions options;
    options.backend = lang::NativeOptions::Backend::kNative;
    options.cache_dir = pattern + "/cache";
    std::string source;
    for (const char* type : {"double", "long double", "__float128"}) {
      const std::string r = type, tag = r == "double" ? "d" : r == "long double" ? "ld" : "q";
      source += "void hym_0_" + tag + "(const " + r + "* c, " + r + " t, " + r + " j, const " + r + "* x, const " + r +
                "* p, const " + r + "* f, " + r + "* out) { (void)c; (void)t; (void)j; (void)p; (void)f; out[0] = 3 * x[0]; }\n";
    }
    (void)lang::NativeLibrary::load(source, 1, options);
    CachedModel m;
    m.folder = options.cache_dir;
    for (const auto& entry : std::filesystem::directory_iterator(m.folder)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".so") m.key = name.substr(6, name.size() - 9);  // model-KEY.so
    }
    m.object = file_bytes(m.object_path());
    m.record = file_bytes(m.record_path());
    if (m.key.size() != 64 || !lang::native_cache::record_matches(m.record, m.key, m.object)) std::abort();
    return m;
  }();
  return model;
}

inline void put_file(const std::string& path, const std::string& bytes) {
  std::filesystem::remove_all(path);
  std::ofstream(path, std::ios::binary) << bytes;
  ::chmod(path.c_str(), 0600);
}

// 1: the input was accepted (only the real object is); 0: rejected.
inline int check_cached_object(const std::uint8_t* data, std::size_t size) {
  const CachedModel& m = cached_model();
  const std::uint8_t how = size > 0 ? data[0] : 0;
  const std::string input(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0), size > 0 ? size - 1 : 0);
  std::string object = m.object, record = m.record;
  switch (how & 3) {
    case 0: object = input; break;
    case 1: {  // the real object with the input written over it from an offset taken from the input
      const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(input[i])); };
      const std::size_t at = input.size() >= 2 ? (byte(0) << 8 | byte(1)) * 7 : 0;
      const std::string patch = input.size() >= 2 ? input.substr(2) : input;
      object.replace(std::min(at, object.size()), std::min(patch.size(), object.size() - std::min(at, object.size())), patch);
      if (patch.empty()) object.resize(std::min(at, object.size()));  // a truncation
      break;
    }
    case 2: record = input; break;
    default: record = m.record.substr(0, m.record.size() - std::min(input.size(), m.record.size())) + input; break;
  }
  put_file(m.object_path(), object);
  put_file(m.record_path(), record);
  if (how & 4) {  // the object a link to the real bytes elsewhere
    put_file(m.folder + "/elsewhere", object);
    std::filesystem::remove(m.object_path());
    std::filesystem::create_symlink(m.folder + "/elsewhere", m.object_path());
  }
  if (how & 8) ::chmod(m.object_path().c_str(), 0666);
  if (how & 16) ::chmod(m.record_path().c_str(), 0622);
  if (how & 32) {  // a folder where the object should be
    std::filesystem::remove_all(m.object_path());
    std::filesystem::create_directory(m.object_path());
  }

  const bool genuine = object == m.object && record == m.record && (how & (4 | 8 | 16 | 32)) == 0;
  lang::native_cache::Descriptor fd = lang::native_cache::open_verified(m.object_path(), m.record_path(), m.key, 1 << 26);
  if (static_cast<bool>(fd) != genuine) std::abort();  // a corrupt object accepted, or the real one refused
  if (!fd) return 0;
  // Accepted: it loads and computes 3 x.
  void* handle = dlopen(m.object_path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) std::abort();
  using Function = void (*)(const double*, double, double, const double*, const double*, const double*, double*);
  const auto f = reinterpret_cast<Function>(dlsym(handle, "hym_0_d"));
  double x = 2, out = 0;
  if (f == nullptr) std::abort();
  f(&x, 0, 0, &x, &x, &x, &out);
  if (out != 6) std::abort();
  dlclose(handle);
  return 1;
}

}  // namespace hysim::fuzz

// The cache of compiled model files and the compiler's runs (src/hysim/lang/native_cache.hpp,
// compiler.hpp): SHA-256 against the FIPS 180-4 examples; a cache folder that others may write
// is refused; a truncated, corrupt or foreign object is rebuilt, never loaded; the compiler is
// found without a shell, bounded in time, stopped on request, and leaves no process behind.
// tests/security_test.sh runs the attacks of another local user.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hysim/lang/compiler.hpp"
#include "hysim/lang/native.hpp"
#include "hysim/lang/native_cache.hpp"

namespace hysim {
namespace {

namespace fs = std::filesystem;
using lang::NativeLibrary;
using lang::NativeOptions;
namespace cache = lang::native_cache;

// One program, out[0] = 2 x[0] + c[0], in the three types, as the generator writes them.
std::string doubling_source(const std::string& tag = "") {
  std::string source = "/* " + tag + " */\n";
  for (const char* type : {"double", "long double", "__float128"}) {
    const std::string suffix = std::string(type) == "double" ? "d" : std::string(type) == "long double" ? "ld" : "q";
    const std::string r = type;
    source += "void hym_0_" + suffix + "(const " + r + "* c, " + r + " t, " + r + " j, const " + r + "* x, const " + r +
              "* p, const " + r + "* f, " + r + "* out) { (void)t; (void)j; (void)p; (void)f; out[0] = 2 * x[0] + c[0]; }\n";
  }
  return source;
}

double evaluate(const NativeLibrary& library, double x) {
  const double c = 0.5, t = 0, jumping = 0;
  double out = 0;
  library.function<double>(0)(&c, t, jumping, &x, &x, &x, &out);
  return out;
}

// A fresh folder under the build's temporary space, removed after the test.
class NativeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "hysim-cache-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    options_.backend = NativeOptions::Backend::kNative;
    options_.cache_dir = (root_ / "cache").string();
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(root_, fs::perms::owner_all, ignored);
    fs::remove_all(root_, ignored);
  }
  // The one compiled object in the cache.
  fs::path cached_object() const {
    for (const auto& entry : fs::directory_iterator(options_.cache_dir)) {
      if (entry.path().extension() == ".so") return entry.path();
    }
    ADD_FAILURE() << "no object in " << options_.cache_dir;
    return {};
  }
  std::string write_script(const std::string& name, const std::string& body) const {
    const fs::path path = root_ / name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path root_;
  NativeOptions options_;
};

// FIPS 180-4's examples (NIST's "SHA256.pdf"): "abc", the empty message, the 448-bit one.
TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(cache::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(cache::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(cache::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// A record vouches for exactly one object under exactly one key.
TEST(Sha256, RecordMatchesOnlyItsObject) {
  const std::string object = "\x7f" "ELF and the rest of an object";
  const std::string key = cache::sha256_hex("key");
  const std::string record = cache::record_text(key, cache::sha256_hex(object));
  EXPECT_TRUE(cache::record_matches(record, key, object));
  EXPECT_FALSE(cache::record_matches(record, key, object.substr(0, object.size() - 1)));  // truncated
  std::string flipped = object;
  flipped[5] ^= 1;
  EXPECT_FALSE(cache::record_matches(record, key, flipped));
  EXPECT_FALSE(cache::record_matches(record, cache::sha256_hex("other key"), object));
  EXPECT_FALSE(cache::record_matches(record + "\n", key, object));
  EXPECT_FALSE(cache::record_matches(record.substr(0, record.size() - 1), key, object));
  EXPECT_FALSE(cache::record_matches("", key, object));
}

// The cache folder is created private (0700), and a folder others may write is refused, as is
// one below a folder others may write (unless sticky, as /tmp is).
TEST_F(NativeCache, FolderIsPrivateOrRefused) {
  const std::string made = cache::open_private_dir(options_.cache_dir);
  EXPECT_EQ(made, fs::canonical(options_.cache_dir).string());
  struct stat s {};
  ASSERT_EQ(::stat(made.c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & 0777, 0700u);

  const fs::path open_to_all = root_ / "open";
  fs::create_directory(open_to_all);
  fs::permissions(open_to_all, fs::perms::all);
  try {
    cache::open_private_dir(open_to_all.string());
    ADD_FAILURE() << "a folder of mode 0777 was accepted";
  } catch (const cache::CacheRefused& e) {
    EXPECT_NE(std::string(e.what()).find("writable by its group or others (mode 0777)"), std::string::npos) << e.what();
  }
  // Below it, a private folder is not enough: others may rename it away and put theirs there.
  const fs::path below = open_to_all / "cache";
  fs::create_directory(below);
  fs::permissions(below, fs::perms::owner_all);
  EXPECT_THROW(cache::open_private_dir(below.string()), cache::CacheRefused);
  // A link to such a folder is judged by what it points to.
  fs::create_directory_symlink(below, root_ / "link");
  EXPECT_THROW(cache::open_private_dir((root_ / "link").string()), cache::CacheRefused);
  // In a sticky folder writable by all (as /tmp), a private folder is safe.
  fs::permissions(open_to_all, fs::perms::all | fs::perms::sticky_bit);
  EXPECT_NO_THROW(cache::open_private_dir(below.string()));
}

// The first load compiles and records; the second loads the same object, checked.
TEST_F(NativeCache, CompilesOnceThenLoadsTheCheckedObject) {
  const auto first = NativeLibrary::load(doubling_source(), 1, options_);
  EXPECT_EQ(evaluate(*first, 3.0), 6.5);
  const fs::path object = cached_object();
  fs::path record = object;
  record.replace_extension(".sha256");
  ASSERT_TRUE(fs::exists(record));
  const auto written = fs::last_write_time(object);
  const auto second = NativeLibrary::load(doubling_source(), 1, options_);
  EXPECT_EQ(evaluate(*second, 1.0), 2.5);
  EXPECT_EQ(fs::last_write_time(object), written) << "a valid object was rebuilt";
  EXPECT_EQ(second->path(), object.string());
  // Nothing else is left in the cache: no C file, no log, no build folder.
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(options_.cache_dir)) {
    ++entries;
    EXPECT_TRUE(entry.path().extension() == ".so" || entry.path().extension() == ".sha256") << entry.path();
  }
  EXPECT_EQ(entries, 2);
}

// Two models loaded at once, cached or not, each compute their own function (dlopen knows
// objects by name: two models must never share one).
TEST_F(NativeCache, TwoModelsLoadedAtOnceStayApart) {
  std::string tripling = doubling_source("tripling");
  for (std::size_t at = tripling.find("2 * x[0]"); at != std::string::npos; at = tripling.find("2 * x[0]")) {
    tripling.replace(at, 8, "3 * x[0]");
  }
  for (const bool cached : {true, false}) {
    if (!cached) options_.cache_dir.clear();
    const auto doubling = NativeLibrary::load(doubling_source("apart"), 1, options_);
    const auto triple = NativeLibrary::load(tripling, 1, options_);
    const auto doubling_again = NativeLibrary::load(doubling_source("apart"), 1, options_);
    EXPECT_EQ(evaluate(*doubling, 1.0), 2.5) << cached;
    EXPECT_EQ(evaluate(*triple, 1.0), 3.5) << cached;
    EXPECT_EQ(evaluate(*doubling_again, 1.0), 2.5) << cached;
  }
}

// A truncated, corrupt or foreign object, or a lost record, is rebuilt and never loaded; a
// foreign object's constructor never runs.
TEST_F(NativeCache, DamagedObjectIsRebuiltNeverLoaded) {
  const fs::path marker = root_ / "constructor-ran";
  const fs::path evil_c = root_ / "evil.c", evil_so = root_ / "evil.so";
  std::ofstream(evil_c) << "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n"
                        << "  FILE* f = fopen(\"" << marker.string() << "\", \"w\"); if (f) fclose(f);\n}\n"
                        << doubling_source();
  ASSERT_EQ(std::system(("cc -shared -fPIC -o " + evil_so.string() + " " + evil_c.string()).c_str()), 0);
  const std::string evil = read(evil_so);

  (void)NativeLibrary::load(doubling_source("damaged"), 1, options_);
  const fs::path object = cached_object();
  const std::string good = read(object);
  fs::path record = object;
  record.replace_extension(".sha256");
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"zeros", std::string(good.size(), '\0')},
      {"one flipped byte", [&] { std::string b = good; b[b.size() / 3] ^= 0x40; return b; }()},
      {"foreign object", evil},
      {"empty", ""},
  };
  for (const auto& [what, bytes] : damages) {
    fs::remove(object);
    std::ofstream(object, std::ios::binary) << bytes;
    fs::permissions(object, fs::perms::owner_all);
    const auto library = NativeLibrary::load(doubling_source("damaged"), 1, options_);
    EXPECT_EQ(evaluate(*library, 2.0), 4.5) << what;
    EXPECT_EQ(read(object), good) << what << ": the object was not rebuilt";
    EXPECT_FALSE(fs::exists(marker)) << what << ": the planted constructor ran";
  }
  // The record lost, or vouching for the foreign object under another key: rebuilt too.
  fs::remove(record);
  EXPECT_EQ(evaluate(*NativeLibrary::load(doubling_source("damaged"), 1, options_), 1.0), 2.5);
  EXPECT_TRUE(fs::exists(record));
  fs::remove(object);
  std::ofstream(object, std::ios::binary) << evil;
  fs::permissions(object, fs::perms::owner_all);
  fs::remove(record);
  std::ofstream(record) << cache::record_text(cache::sha256_hex("another key"), cache::sha256_hex(evil));
  fs::permissions(record, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(evaluate(*NativeLibrary::load(doubling_source("damaged"), 1, options_), 1.0), 2.5);
  EXPECT_FALSE(fs::exists(marker));
  // An object others may write is not trusted, even with a matching record.
  ASSERT_TRUE(cache::record_matches(read(record), read(record).substr(std::string("hysim native model\nkey ").size(), 64), read(object)));
  fs::permissions(object, fs::perms::all);
  (void)NativeLibrary::load(doubling_source("damaged"), 1, options_);
  struct stat s {};
  ASSERT_EQ(::stat(object.c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & 077, 0u) << "the rebuilt object is private";
}

// Without a cache folder the model is compiled in a private temporary folder, which is gone
// once the model is loaded.
TEST_F(NativeCache, WithoutCacheNothingIsLeft) {
  options_.cache_dir.clear();
  const fs::path tmp = root_ / "tmp";
  fs::create_directory(tmp);
  ASSERT_EQ(::setenv("TMPDIR", tmp.c_str(), 1), 0);
  const auto library = NativeLibrary::load(doubling_source("uncached"), 1, options_);
  ::unsetenv("TMPDIR");
  EXPECT_EQ(evaluate(*library, 1.0), 2.5);
  EXPECT_NE(library->path().find("uncached"), std::string::npos) << library->path();
  EXPECT_TRUE(fs::is_empty(tmp));
}

// HYSIM_CC names one program: a command line, a missing program and a failing one each say so.
TEST_F(NativeCache, CompilerErrorsSayTheCause) {
  const auto message = [&](const std::string& compiler) {
    options_.compiler = compiler;
    try {
      (void)NativeLibrary::load(doubling_source(compiler), 1, options_);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("gcc -m32").find("holds blanks"), std::string::npos);
  EXPECT_NE(message("no-such-compiler-hysim").find("is not on PATH"), std::string::npos);
  EXPECT_NE(message(root_.string() + "/missing/cc").find("is not an executable file"), std::string::npos);
  EXPECT_NE(message("false").find("exit status 1"), std::string::npos);
  const std::string says = write_script("says-why", "echo 'cc1: fatal error: No space left on device' >&2\nexit 4\n");
  const std::string why = message(says);
  EXPECT_NE(why.find("exit status 4"), std::string::npos) << why;
  EXPECT_NE(why.find("No space left on device"), std::string::npos) << why;
}

// Arguments are absolute paths: a cache folder named like an option is not read as one.
TEST_F(NativeCache, PathsAreNeverOptions) {
  const fs::path log = root_ / "arguments";
  const std::string spy = write_script("spy", "printf '%s\\n' \"$@\" > " + log.string() + "\nexec cc \"$@\"\n");
  options_.compiler = spy;
  const fs::path previous = fs::current_path();
  fs::current_path(root_);
  options_.cache_dir = "-o";
  const auto library = NativeLibrary::load(doubling_source("option-like"), 1, options_);
  fs::current_path(previous);
  EXPECT_EQ(evaluate(*library, 1.0), 2.5);
  std::istringstream arguments(read(log));
  int files = 0;
  for (std::string word; std::getline(arguments, word);) {
    if (word.find(".c") != std::string::npos || word.find(".so") != std::string::npos) {
      EXPECT_EQ(word.front(), '/') << word;
      ++files;
    }
  }
  EXPECT_EQ(files, 2);
}

// Whether process `pid` is gone (or a zombie nobody reaped).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto close = text.rfind(')');
  return close != std::string::npos && text.compare(close + 2, 1, "Z") == 0;
}

bool gone_within(pid_t pid, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!gone(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// A compiler past its time limit is killed, and so is what it started (a stuck cc1).
TEST_F(NativeCache, CompilerTimeLimitKillsItsProcesses) {
  const fs::path pid_file = root_ / "child.pid";
  options_.compiler = write_script("stuck", "sleep 60 &\necho $! > " + pid_file.string() + "\nwait\n");
  options_.compile_timeout = 0.5;
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)NativeLibrary::load(doubling_source("stuck"), 1, options_);
    ADD_FAILURE() << "a stuck compiler was not stopped";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish within 0.5 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  EXPECT_TRUE(gone_within(child, 2.0)) << "the compiler's child " << child << " outlived the time limit";
}

// The stop flag (SIGINT, SIGTERM, --time-limit) ends a compile at once, without a fallback.
TEST_F(NativeCache, StopFlagEndsTheCompiler) {
  const fs::path pid_file = root_ / "child.pid";
  options_.compiler = write_script("slow", "sleep 60 &\necho $! > " + pid_file.string() + "\nwait\n");
  std::atomic<bool> stop{false};
  options_.stop = &stop;
  std::thread raise([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW((void)NativeLibrary::load(doubling_source("slow"), 1, options_), lang::CompileInterrupted);
  raise.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  pid_t child = 0;
  std::ifstream(pid_file) >> child;
  ASSERT_GT(child, 0);
  EXPECT_TRUE(gone_within(child, 2.0));
}

// The cache follows the environment: HYSIM_CACHE_DIR, else an absolute XDG_CACHE_HOME, else
// HOME, else the password database; never a shared folder.
TEST(NativeCacheLocation, PerUserDefault) {
  const auto keep = [](const char* name) {
    const char* value = std::getenv(name);
    return std::pair<std::string, bool>(value ? value : "", value != nullptr);
  };
  const auto xdg = keep("XDG_CACHE_HOME"), home = keep("HOME");
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(cache::default_dir(), "/x/cache/hysim");
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // ignored, as the XDG specification says
  ::setenv("HOME", "/h", 1);
  EXPECT_EQ(cache::default_dir(), "/h/.cache/hysim");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  const std::string fallback = cache::default_dir();
  EXPECT_TRUE(fallback.empty() || fallback.rfind("/tmp", 0) != 0) << fallback;
  EXPECT_TRUE(fallback.empty() || fallback.size() > std::string("/.cache/hysim").size()) << fallback;
  for (const auto& [name, value] : {std::pair{"XDG_CACHE_HOME", xdg}, std::pair{"HOME", home}}) {
    if (value.second) ::setenv(name, value.first.c_str(), 1);
    else ::unsetenv(name);
  }
}

}  // namespace
}  // namespace hysim

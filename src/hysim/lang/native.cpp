#include "hysim/lang/native.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "hysim/core/errors.hpp"
#include "hysim/lang/compiler.hpp"
#include "hysim/lang/operators.hpp"

// GCC 12 reports a false -Wrestrict inside std::string for "literal" + string (GCC bug
// 105329); this file builds C source from such concatenations.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace hysim::lang {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The scalar types of the generated code: C type, suffix of function names, and the
// libm/libquadmath suffix.
struct CType {
  const char* type;
  const char* tag;
  const char* math;  // "" (double), "l" (long double), "q" (__float128)
};
constexpr CType kTypes[] = {{"double", "d", ""}, {"long double", "ld", "l"}, {"__float128", "q", "q"}};

// The C of one operation in `type` (lang/operators.hpp): the row's spelling with the operands
// and the type's constants put in.
std::string c_spelling(Op op, const std::vector<std::string>& a, const CType& type) {
  const std::string one = "(" + std::string(type.type) + ")1";
  const std::string zero = "(" + std::string(type.type) + ")0";
  std::string out;
  for (const char* p = operator_of(op).c; *p != '\0'; ++p) {
    if (*p != '$' || p[1] == '\0') {
      out += *p;
      continue;
    }
    switch (*++p) {
      case 'a': out += a.at(0); break;
      case 'b': out += a.at(1); break;
      case 'c': out += a.at(2); break;
      case '1': out += one; break;
      case '0': out += zero; break;
      case 'm': out += type.math; break;
      default: out += std::string("$") + *p; break;
    }
  }
  return out.empty() ? zero : out;
}

}  // namespace

NativeOptions NativeOptions::from_environment() {
  NativeOptions options;
  const std::string backend = environment("HYSIM_MODEL_BACKEND");
  if (backend == "native") options.backend = Backend::kNative;
  else if (backend == "tape") options.backend = Backend::kTape;
  else if (!backend.empty() && backend != "auto") {
    throw InvalidArgument("HYSIM_MODEL_BACKEND='" + backend + "' is not one of auto, native, tape");
  }
  const std::string compiler = environment("HYSIM_CC");
  if (!compiler.empty()) options.compiler = compiler;
  options.cache_dir = environment("HYSIM_CACHE_DIR");
  if (options.cache_dir.empty()) options.cache_dir = native_cache::default_dir();
  const std::string timeout = environment("HYSIM_CC_TIMEOUT");
  if (!timeout.empty()) {
    const char* begin = timeout.c_str();
    char* end = nullptr;
    options.compile_timeout = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || timeout.find_first_of("xXpP") != std::string::npos) {
      throw InvalidArgument("HYSIM_CC_TIMEOUT='" + timeout + "' is not a decimal number of seconds");
    }
  }
  return options;
}

void NativeOptions::validate() const {
  if (compiler.empty()) throw InvalidArgument("the C compiler for model files is empty (HYSIM_CC)");
  if (!(compile_timeout > 0 && compile_timeout <= 86400)) {
    throw InvalidArgument("the compiler's time limit (HYSIM_CC_TIMEOUT) must be in (0, 86400] s, not " +
                          std::to_string(compile_timeout));
  }
}

std::vector<NodeId> ProgramSet::key(const std::vector<NodeId>& outputs, const std::vector<int>& where) {
  std::vector<NodeId> key = outputs;
  key.push_back(-1);
  if (where.empty()) {
    for (std::size_t i = 0; i < outputs.size(); ++i) key.push_back(static_cast<int>(i));
  } else {
    key.insert(key.end(), where.begin(), where.end());
  }
  return key;
}

int ProgramSet::find(const std::vector<NodeId>& outputs, const std::vector<int>& where) const {
  return index.at(key(outputs, where));
}

int ProgramSet::add(const Graph& graph, const std::vector<NodeId>& outputs, std::vector<int> where) {
  if (where.empty()) {
    for (std::size_t i = 0; i < outputs.size(); ++i) where.push_back(static_cast<int>(i));
  }
  std::vector<NodeId> key = ProgramSet::key(outputs, where);
  const auto found = index.find(key);
  if (found != index.end()) return found->second;
  // Number the constant nodes the program reads, depth first, once each.
  std::vector<NodeId> pending(outputs.rbegin(), outputs.rend());
  std::vector<bool> seen(graph.size(), false);
  while (!pending.empty()) {
    const NodeId id = pending.back();
    pending.pop_back();
    if (seen[static_cast<std::size_t>(id)]) continue;
    seen[static_cast<std::size_t>(id)] = true;
    if (graph.is_constant(id)) {
      if (constant_slot_.emplace(id, static_cast<int>(constants.size())).second) constants.push_back(id);
      continue;
    }
    const auto& args = graph[id].args;
    for (auto a = args.rbegin(); a != args.rend(); ++a) pending.push_back(*a);
  }
  programs.push_back(outputs);
  positions.push_back(std::move(where));
  index.emplace(std::move(key), static_cast<int>(programs.size()) - 1);
  return static_cast<int>(programs.size()) - 1;
}

namespace {

// Writes one program in one type: a local per operation, in an order where each operand is
// defined before it is read.
class Emitter {
 public:
  Emitter(const Graph& graph, const std::map<NodeId, int>& slots, const CType& type, std::ostream& out)
      : graph_(graph), slots_(slots), type_(type), out_(out) {}

  // A program of more than kPart outputs (a large model's field) is written as parts of
  // kPart outputs each, static functions that the program calls in turn, into a local array
  // it then copies to `out`: a compiler's optimisation grows faster than a function's length,
  // so a field of thousands of states compiles in time linear in them. A part recomputes the
  // few subexpressions it shares with another.
  static constexpr std::size_t kPart = 128;

  void program(int number, const std::vector<NodeId>& outputs, const std::vector<int>& positions) {
    const std::string symbol = "hym_" + std::to_string(number) + "_" + type_.tag;
    if (outputs.size() <= kPart) {
      function(symbol, "", outputs, positions);
      return;
    }
    std::vector<int> local(kPart);
    std::size_t parts = 0;
    for (std::size_t first = 0; first < outputs.size(); first += kPart, ++parts) {
      const std::size_t count = std::min(kPart, outputs.size() - first);
      for (std::size_t i = 0; i < count; ++i) local[i] = static_cast<int>(first + i);
      function(symbol + "_part" + std::to_string(parts), "static __attribute__((noinline)) ",
               std::vector<NodeId>(outputs.begin() + static_cast<std::ptrdiff_t>(first),
                                   outputs.begin() + static_cast<std::ptrdiff_t>(first + count)),
               std::vector<int>(local.begin(), local.begin() + static_cast<std::ptrdiff_t>(count)));
    }
    // The copy is a loop over a table: thousands of stores through `out` in one function would
    // cost the compiler's alias analysis time quadratic in their number.
    out_ << "static const int " << symbol << "_position[" << outputs.size() << "] = {";
    for (std::size_t i = 0; i < outputs.size(); ++i) out_ << (i % 16 == 0 ? "\n  " : " ") << positions[i] << ",";
    out_ << "\n};\n" << signature("", symbol) << "  " << type_.type << " value[" << outputs.size() << "];\n";
    for (std::size_t part = 0; part < parts; ++part) {
      out_ << "  " << symbol << "_part" << part << "(c, t, jumping, x, prior, f, value);\n";
    }
    out_ << "  for (int i = 0; i < " << outputs.size() << "; ++i) out[" << symbol << "_position[i]] = value[i];\n}\n";
  }

 private:
  std::string signature(const char* storage, const std::string& symbol) const {
    const std::string r = type_.type;
    return std::string(storage) + "void " + symbol + "(const " + r + "* c, " + r + " t, " + r + " jumping, const " + r +
           "* x, const " + r + "* prior, const " + r + "* f, " + r + "* out) {\n" +
           "  (void)c; (void)t; (void)jumping; (void)x; (void)prior; (void)f;\n";
  }

  void function(const std::string& symbol, const char* storage, const std::vector<NodeId>& outputs,
                const std::vector<int>& positions) {
    out_ << signature(storage, symbol);
    names_.assign(graph_.size(), std::string());
    std::vector<std::string> results;  // every local is written before the first output
    for (NodeId id : outputs) results.push_back(name(id));
    for (std::size_t i = 0; i < outputs.size(); ++i) out_ << "  out[" << positions[i] << "] = " << results[i] << ";\n";
    out_ << "}\n";
  }

  std::string name(NodeId id) {
    std::string& known = names_[static_cast<std::size_t>(id)];
    if (!known.empty()) return known;
    const Node& node = graph_[id];
    if (graph_.is_constant(id)) return known = "c[" + std::to_string(slots_.at(id)) + "]";
    switch (node.op) {
      case Op::kState: return known = "x[" + std::to_string(node.index) + "]";
      case Op::kPrior: return known = "prior[" + std::to_string(node.index) + "]";
      case Op::kFieldValue: return known = "f[" + std::to_string(node.index) + "]";
      case Op::kTime: return known = "t";
      case Op::kJumping: return known = "jumping";
      default: break;
    }
    std::vector<std::string> a;
    if (is_square(graph_, node)) {
      const std::string base = name(node.args[0]);
      a = {base, base};
    } else {
      for (NodeId arg : node.args) a.push_back(name(arg));
    }
    const std::string value = expression(node, a);
    known = "v" + std::to_string(id);
    out_ << "  const " << type_.type << " " << known << " = " << value << ";\n";
    return known;
  }

  std::string expression(const Node& node, const std::vector<std::string>& a) const {
    if (is_square(graph_, node)) return a[0] + " * " + a[1];
    return c_spelling(node.op, a, type_);
  }

  const Graph& graph_;
  const std::map<NodeId, int>& slots_;
  const CType& type_;
  std::ostream& out_;
  std::vector<std::string> names_;
};

}  // namespace

std::string generate_c(const Graph& graph, const ProgramSet& programs, ScalarKind kind) {
  std::ostringstream out;
  const CType& type = kTypes[static_cast<std::size_t>(kind)];
  out << "/* Generated by hysim from a model file (src/hysim/lang/native.cpp); do not edit. */\n"
      << "#include <math.h>\n" << (kind == ScalarKind::kFloat128 ? "#include <quadmath.h>\n" : "") << "\n";
  for (std::size_t p = 0; p < programs.programs.size(); ++p) {
    Emitter(graph, programs.constant_slot_, type, out)
        .program(static_cast<int>(p), programs.programs[p], programs.positions[p]);
  }
  return out.str();
}

namespace {

constexpr std::size_t kObjectLimit = std::size_t{1} << 30;  // [bytes] a cached object larger is not read
constexpr std::size_t kLogLimit = 4000;                     // [chars] of the compiler's message shown

const std::vector<std::string>& compiler_flags() {
  static const std::vector<std::string> flags = {"-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math"};
  return flags;
}

std::string format_seconds(double seconds) {
  std::ostringstream text;
  text << seconds << " s";
  return text.str();
}

// A private folder made by mkdtemp (mode 0700, a name nobody could guess or hold before),
// removed with what it holds when this goes out of scope.
class PrivateFolder {
 public:
  explicit PrivateFolder(const std::string& parent) {
    std::string pattern = parent + "/hysim-build-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a private folder in '" + parent + "' to compile a model: " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~PrivateFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The folder for a temporary build without a cache: $TMPDIR when absolute, else /tmp.
std::string temporary_parent() {
  const std::string tmpdir = environment("TMPDIR");
  return !tmpdir.empty() && tmpdir.front() == '/' ? tmpdir : "/tmp";
}

// What the compiler said, cut to kLogLimit characters.
std::string compiler_message(int log_fd) {
  std::string message;
  char buffer[kLogLimit + 1];
  const ssize_t n = ::pread(log_fd, buffer, sizeof buffer, 0);
  if (n > 0) message.assign(buffer, static_cast<std::size_t>(n));
  if (message.size() > kLogLimit) message = message.substr(0, kLogLimit) + "\n...";
  return message;
}

// Compiles `source` in `folder`, which is private; returns the object's path. The real cause of
// a failure is in the message: the compiler's own words, a time limit, a signal, a system error.
std::string compile_in(const PrivateFolder& folder, const std::string& compiler, const std::string& source,
                       const std::string& key, const NativeOptions& options) {
  const std::string c_file = folder.path() + "/model.c";
  const std::string object = folder.path() + "/model-" + key + ".so";
  const std::string log = folder.path() + "/compile.log";
  native_cache::write_new_file(c_file, source);
  native_cache::Descriptor log_fd(::open(log.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!log_fd) throw Error("cannot create '" + log + "': " + std::strerror(errno));
  // Every path is absolute, so none can be read as an option.
  std::vector<std::string> args = {compiler};
  args.insert(args.end(), compiler_flags().begin(), compiler_flags().end());
  args.insert(args.end(), {"-o", object, c_file, "-lquadmath", "-lm"});
  const CompilerRun run = run_compiler(args, log_fd.get(), options.compile_timeout, options.stop);
  const std::string who = "the C compiler '" + compiler + "'";
  switch (run.outcome) {
    case CompilerRun::Outcome::kNotStarted:
      throw Error(who + " could not be started: " + std::strerror(run.status));
    case CompilerRun::Outcome::kStopped:
      throw CompileInterrupted(who + " was stopped (the command is stopping) after " + format_seconds(run.seconds));
    case CompilerRun::Outcome::kTimedOut:
      throw Error(who + " did not finish within " + format_seconds(options.compile_timeout) +
                  " (HYSIM_CC_TIMEOUT) and was killed with everything it started");
    case CompilerRun::Outcome::kSignaled:
      throw Error(who + " was killed by signal " + std::to_string(run.status) + " (" + strsignal(run.status) + ")");
    case CompilerRun::Outcome::kExited:
      if (run.status == 127) throw Error(who + " could not be executed (exit status 127)");
      if (run.status != 0) {
        throw Error(who + " failed on a generated model (exit status " + std::to_string(run.status) + "):\n" +
                    compiler_message(log_fd.get()));
      }
      break;
  }
  return object;
}

}  // namespace

std::shared_ptr<const NativeLibrary> NativeLibrary::load(const std::string& source, std::size_t program_count,
                                                         const NativeOptions& options, ScalarKind kind) {
  options.validate();
  const std::string compiler = find_compiler(options.compiler);
  std::string command = compiler;
  for (const auto& f : compiler_flags()) command += " " + f;
  const std::string key = native_cache::sha256_hex(command + "\n" + source);

  std::string uncached;  // why the cache is not used
  if (options.cache_dir.empty()) uncached = "no home folder for a cache";
  std::string folder;
  if (!options.cache_dir.empty()) {
    try {
      folder = native_cache::open_private_dir(options.cache_dir);
    } catch (const native_cache::CacheRefused&) {
      throw;
    } catch (const Error& e) {  // read-only, no space, permission denied: compile without it
      uncached = e.what();
    }
  }
  if (!folder.empty()) {
    const std::string object = folder + "/model-" + key + ".so";
    const std::string record = folder + "/model-" + key + ".sha256";
    if (native_cache::open_verified(object, record, key, kObjectLimit)) return open_loaded(object, object, program_count, kind);
    // Missing, truncated, corrupt or foreign: built again and put in place, the record last.
    const PrivateFolder build(folder);
    const std::string built = compile_in(build, compiler, source, key, options);
    const native_cache::Descriptor fd(::open(built.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) throw Error("the C compiler wrote no object '" + built + "': " + std::strerror(errno));
    ::fchmod(fd.get(), 0700);  // private whatever the umask: an object others may write is never loaded
    const std::string bytes = native_cache::read_private_file(fd.get(), kObjectLimit, "the compiled model '" + built + "'");
    native_cache::write_new_file(build.path() + "/record", native_cache::record_text(key, native_cache::sha256_hex(bytes)));
    if (::rename(built.c_str(), object.c_str()) != 0 || ::rename((build.path() + "/record").c_str(), record.c_str()) != 0) {
      throw Error("cannot put the compiled model into the cache '" + folder + "': " + std::strerror(errno));
    }
    return open_loaded(object, object, program_count, kind);
  }
  const PrivateFolder build(temporary_parent());
  const std::string built = compile_in(build, compiler, source, key, options);
  // The mapping outlives the folder, removed when `build` goes out of scope.
  return open_loaded(built, "(uncached: " + uncached + ")", program_count, kind);
}

std::shared_ptr<const NativeLibrary> NativeLibrary::open_loaded(const std::string& file, const std::string& shown,
                                                                std::size_t program_count, ScalarKind kind) {
  std::shared_ptr<NativeLibrary> lib(new NativeLibrary());
  lib->path_ = shown;
  // By its path, unique to its key: dlopen returns an object already loaded under the same
  // name without reading the file, and that object is this model's. The folder is private, so
  // only the user's own hysim can have renamed another object of this key over it since the
  // check. (Not /proc/self/fd/N: dlopen would take a reused descriptor number for an object
  // still loaded under that name, another model's.)
  lib->handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) throw Error(std::string("cannot load the compiled model: ") + dlerror());
  for (std::size_t p = 0; p < program_count; ++p) {
    const std::string name = "hym_" + std::to_string(p) + "_" + kTypes[static_cast<std::size_t>(kind)].tag;
    void* symbol = dlsym(lib->handle_, name.c_str());
    if (symbol == nullptr) throw Error("the compiled model '" + shown + "' lacks " + name);
    (kind == ScalarKind::kDouble ? lib->double_ : kind == ScalarKind::kLongDouble ? lib->long_double_ : lib->float128_)
        .push_back(symbol);
  }
  return lib;
}

NativeLibrary::~NativeLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

template <class S>
NativeLibrary::Function<S> NativeLibrary::function(int program) const {
  const auto p = static_cast<std::size_t>(program);
  const std::vector<void*>& symbols = std::is_same_v<S, double>        ? double_
                                      : std::is_same_v<S, long double> ? long_double_
                                                                       : float128_;
  if (p >= symbols.size()) {
    throw Error("the compiled model '" + path_ + "' has no program " + std::to_string(program) + " in " +
                std::string(scalar_name(scalar_kind_of<S>())));
  }
  return reinterpret_cast<Function<S>>(symbols[p]);
}

template NativeLibrary::Function<double> NativeLibrary::function<double>(int) const;
template NativeLibrary::Function<long double> NativeLibrary::function<long double>(int) const;
template NativeLibrary::Function<float128> NativeLibrary::function<float128>(int) const;

}  // namespace hysim::lang

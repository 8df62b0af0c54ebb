#include "hysim/lang/native.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hysim/core/errors.hpp"

extern char** environ;

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

const char* math_name(Op op) {
  switch (op) {
    case Op::kAbs: return "fabs";
    case Op::kSqrt: return "sqrt";
    case Op::kExp: return "exp";
    case Op::kLog: return "log";
    case Op::kSin: return "sin";
    case Op::kCos: return "cos";
    case Op::kTan: return "tan";
    case Op::kAsin: return "asin";
    case Op::kAcos: return "acos";
    case Op::kAtan: return "atan";
    case Op::kAtan2: return "atan2";
    case Op::kSinh: return "sinh";
    case Op::kCosh: return "cosh";
    case Op::kTanh: return "tanh";
    case Op::kFloor: return "floor";
    case Op::kCeil: return "ceil";
    case Op::kPower: return "pow";
    default: return nullptr;
  }
}

bool is_square(const Graph& graph, const Node& node) {
  if (node.op != Op::kPower) return false;
  const Node& exponent = graph[node.args[1]];
  return exponent.op == Op::kConstant && exponent.text == "2";
}

// FNV-1a, 64 bits: the cache key of a source and the command that compiles it.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Runs argv[0] with the arguments, stderr to `log`; returns the exit status, or -1 when the
// program cannot be started.
int run_program(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int started = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string default_cache_dir() {
  const std::string xdg = environment("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/hysim";
  const std::string home = environment("HOME");
  if (!home.empty()) return home + "/.cache/hysim";
  return "/tmp/hysim-cache";
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
  if (options.cache_dir.empty()) options.cache_dir = default_cache_dir();
  return options;
}

void NativeOptions::validate() const {
  if (compiler.empty()) throw InvalidArgument("the C compiler for model files is empty (HYSIM_CC)");
  if (cache_dir.empty()) throw InvalidArgument("the cache directory for model files is empty (HYSIM_CACHE_DIR)");
}

int ProgramSet::add(const Graph& graph, const std::vector<NodeId>& outputs, std::vector<int> where) {
  if (where.empty()) {
    for (std::size_t i = 0; i < outputs.size(); ++i) where.push_back(static_cast<int>(i));
  }
  std::vector<NodeId> key = outputs;
  key.push_back(-1);
  key.insert(key.end(), where.begin(), where.end());
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

  void program(int number, const std::vector<NodeId>& outputs, const std::vector<int>& positions) {
    const std::string r = type_.type;
    out_ << "void hym_" << number << "_" << type_.tag << "(const " << r << "* c, " << r << " t, " << r << " jumping, const "
         << r << "* x, const " << r << "* prior, const " << r << "* f, " << r << "* out) {\n"
         << "  (void)c; (void)t; (void)jumping; (void)x; (void)prior; (void)f;\n";
    names_.assign(graph_.size(), std::string());
    std::vector<std::string> results;  // every local is written before the first output
    for (NodeId id : outputs) results.push_back(name(id));
    for (std::size_t i = 0; i < outputs.size(); ++i) out_ << "  out[" << positions[i] << "] = " << results[i] << ";\n";
    out_ << "}\n";
  }

 private:
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
    const std::string one = "(" + std::string(type_.type) + ")1";
    const std::string zero = "(" + std::string(type_.type) + ")0";
    const auto truth = [&](const std::string& condition) { return "(" + condition + " ? " + one + " : " + zero + ")"; };
    if (is_square(graph_, node)) return a[0] + " * " + a[1];
    if (const char* f = math_name(node.op)) {
      std::string call = std::string(f) + type_.math + "(" + a[0];
      if (node.args.size() > 1) call += ", " + a[1];
      return call + ")";
    }
    switch (node.op) {
      case Op::kNegate: return "-" + a[0];
      case Op::kStepped: return a[0];
      case Op::kAdd: return a[0] + " + " + a[1];
      case Op::kSubtract: return a[0] + " - " + a[1];
      case Op::kMultiply: return a[0] + " * " + a[1];
      case Op::kDivide: return a[0] + " / " + a[1];
      case Op::kSign: return "(" + a[0] + " > 0 ? " + one + " : (" + a[0] + " < 0 ? -" + one + " : " + zero + "))";
      case Op::kMin: return "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
      case Op::kMax: return "(" + a[0] + " < " + a[1] + " ? " + a[1] + " : " + a[0] + ")";
      case Op::kSelect: return "(" + a[0] + " != 0 ? " + a[1] + " : " + a[2] + ")";
      case Op::kLess: return truth(a[0] + " < " + a[1]);
      case Op::kLessEqual: return truth(a[0] + " <= " + a[1]);
      case Op::kGreater: return truth(a[0] + " > " + a[1]);
      case Op::kGreaterEqual: return truth(a[0] + " >= " + a[1]);
      case Op::kEqual: return truth(a[0] + " == " + a[1]);
      case Op::kNotEqual: return truth(a[0] + " != " + a[1]);
      case Op::kAnd: return truth(a[0] + " != 0 && " + a[1] + " != 0");
      case Op::kOr: return truth(a[0] + " != 0 || " + a[1] + " != 0");
      case Op::kNot: return truth(a[0] + " == 0");
      default: return zero;
    }
  }

  const Graph& graph_;
  const std::map<NodeId, int>& slots_;
  const CType& type_;
  std::ostream& out_;
  std::vector<std::string> names_;
};

}  // namespace

std::string generate_c(const Graph& graph, const ProgramSet& programs) {
  std::ostringstream out;
  out << "/* Generated by hysim from a model file (src/hysim/lang/native.cpp); do not edit. */\n"
      << "#include <math.h>\n#include <quadmath.h>\n\n";
  for (const CType& type : kTypes) {
    for (std::size_t p = 0; p < programs.programs.size(); ++p) {
      Emitter(graph, programs.constant_slot_, type, out)
          .program(static_cast<int>(p), programs.programs[p], programs.positions[p]);
    }
  }
  return out.str();
}

std::shared_ptr<const NativeLibrary> NativeLibrary::load(const std::string& source, std::size_t program_count,
                                                         const NativeOptions& options) {
  options.validate();
  namespace fs = std::filesystem;
  const std::vector<std::string> flags = {"-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math"};
  std::string command = options.compiler;
  for (const auto& f : flags) command += " " + f;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a(command + "\n" + source)));
  std::error_code error;
  fs::create_directories(options.cache_dir, error);
  if (error) throw Error("cannot create the model cache '" + options.cache_dir + "': " + error.message());
  const std::string stem = options.cache_dir + "/model-" + key;
  const std::string library = stem + ".so";

  if (!fs::exists(library)) {
    // Compile beside the final name and rename, so that concurrent runs never load half a file.
    const std::string unique = stem + "." + std::to_string(getpid());
    const std::string c_file = unique + ".c";
    const std::string log = unique + ".log";
    std::ofstream(c_file) << source;
    std::vector<std::string> args = {options.compiler};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"-o", unique + ".so", c_file, "-lquadmath", "-lm"});
    const int status = run_program(args, log);
    std::string message = read_text(log);
    if (message.size() > 4000) message = message.substr(0, 4000) + "\n...";
    fs::remove(c_file, error);
    fs::remove(log, error);
    if (status != 0) {
      fs::remove(unique + ".so", error);
      throw Error(status < 0 ? "the C compiler '" + options.compiler + "' could not be started (HYSIM_CC)"
                             : "the C compiler '" + options.compiler + "' failed on a generated model:\n" + message);
    }
    fs::rename(unique + ".so", library, error);
    if (error) throw Error("cannot move the compiled model into '" + library + "': " + error.message());
  }

  std::shared_ptr<NativeLibrary> lib(new NativeLibrary());
  lib->path_ = library;
  lib->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib->handle_ == nullptr) throw Error(std::string("cannot load the compiled model: ") + dlerror());
  for (std::size_t p = 0; p < program_count; ++p) {
    const std::string base = "hym_" + std::to_string(p) + "_";
    void* d = dlsym(lib->handle_, (base + "d").c_str());
    void* ld = dlsym(lib->handle_, (base + "ld").c_str());
    void* q = dlsym(lib->handle_, (base + "q").c_str());
    if (d == nullptr || ld == nullptr || q == nullptr) {
      throw Error("the compiled model '" + library + "' lacks " + base + "*; remove it from the cache");
    }
    lib->double_.push_back(d);
    lib->long_double_.push_back(ld);
    lib->float128_.push_back(q);
  }
  return lib;
}

NativeLibrary::~NativeLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

template <class S>
NativeLibrary::Function<S> NativeLibrary::function(int program) const {
  const auto p = static_cast<std::size_t>(program);
  void* symbol = nullptr;
  if constexpr (std::is_same_v<S, double>) symbol = double_[p];
  else if constexpr (std::is_same_v<S, long double>) symbol = long_double_[p];
  else symbol = float128_[p];
  return reinterpret_cast<Function<S>>(symbol);
}

template NativeLibrary::Function<double> NativeLibrary::function<double>(int) const;
template NativeLibrary::Function<long double> NativeLibrary::function<long double>(int) const;
template NativeLibrary::Function<float128> NativeLibrary::function<float128>(int) const;

}  // namespace hysim::lang

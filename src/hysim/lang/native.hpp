// Native code for a model file: its expressions printed as C, compiled once by the system's
// C compiler into a shared library, cached by content, and loaded with dlopen
// (docs/model-language.md, "How a file is compiled", has the measurements behind this
// choice: the register tape runs the PWM servo 2.6 times slower than its C++ twin; native
// code runs it at the twin's speed).
//
// The generated code does not depend on parameter values: every subexpression of parameters
// and literals alone is a slot of a constant array that the builder fills in the run's
// scalar type (Tape<S>::fold), so one library serves every parameter set and preset. It
// holds one function per program (a mode's field, a guard atom, its rate, a reset), in the
// scalar type of the runs that load it (one library per type, each compiled when a model of
// that type is first built), all with one signature:
//   void f(const R* c, R t, R jumping, const R* x, const R* prior, const R* field, R* out)
// with R = double, long double or __float128. The arithmetic is written operation by
// operation in the graph's order and compiled with -ffp-contract=off, so it rounds exactly
// as the tape and as C++ models that write the same expressions.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hysim/core/errors.hpp"
#include "hysim/core/scalar.hpp"
#include "hysim/lang/expr.hpp"
#include "hysim/lang/native_cache.hpp"
#include "hysim/lang/tape.hpp"

namespace hysim::lang {

// Where native code comes from. Defaults come from the environment, so that the program and
// the tests can steer it without an option on every command:
//   HYSIM_MODEL_BACKEND = auto (default) | native | tape
//   HYSIM_CC            = the C compiler, one program: a path or a name on PATH (default: cc)
//   HYSIM_CACHE_DIR     = the cache of compiled models (default: a per-user folder,
//                         lang/native_cache.hpp; none without a home folder)
//   HYSIM_CC_TIMEOUT    = [s] the compiler's time limit (default 300)
// docs/security.md says why a cached object can be trusted.
struct NativeOptions {
  enum class Backend {
    kAuto,    // native code when the compiler works, else the tape
    kNative,  // native code, or an error saying why not
    kTape,    // the register tape only (no compiler needed)
  };
  Backend backend = Backend::kAuto;
  std::string compiler = "cc";
  // Empty: no cache; each load compiles in a private temporary folder, removed after loading.
  std::string cache_dir;
  // [s] > 0: a compiler still running then is killed with everything it started.
  double compile_timeout = 300;
  // When set and raised (SIGINT, SIGTERM, --time-limit), a running compiler is killed and
  // load() throws CompileInterrupted.
  const std::atomic<bool>* stop = nullptr;

  static NativeOptions from_environment();
  // Throws InvalidArgument for an unknown backend name, an empty compiler or a compile
  // timeout that is not a positive number of seconds (at most a day).
  void validate() const;
};

// The compiler was stopped by the caller's stop flag: not a reason to fall back to the tape.
class CompileInterrupted : public Error {
 public:
  using Error::Error;
};

// The programs of a model and the constant slots they read, numbered in a fixed order.
struct ProgramSet {
  std::vector<std::vector<NodeId>> programs;  // the outputs of each program
  std::vector<std::vector<int>> positions;    // where each output is written: out[position]
  std::map<std::vector<NodeId>, int> index;   // (outputs, -1, positions) -> program
  std::vector<NodeId> constants;              // slot -> node (parameters and literals alone)

  // Adds (or finds) the program that writes outputs[i] to out[where[i]] (where empty: i);
  // returns its number.
  int add(const Graph& graph, const std::vector<NodeId>& outputs, std::vector<int> where = {});
  // The number of the program added with these arguments (std::out_of_range if none).
  int find(const std::vector<NodeId>& outputs, const std::vector<int>& where = {}) const;
  // The key of `index` for a program's outputs and positions (where empty: 0, 1, ...).
  static std::vector<NodeId> key(const std::vector<NodeId>& outputs, const std::vector<int>& where);

 private:
  std::map<NodeId, int> constant_slot_;
  friend std::string generate_c(const Graph&, const ProgramSet&, ScalarKind);
};

// The C source of every program in one scalar type (a run compiles the type it runs in).
std::string generate_c(const Graph& graph, const ProgramSet& programs, ScalarKind kind);

class NativeLibrary {
 public:
  template <class S>
  using Function = void (*)(const typename RawScalar<S>::type* c, typename RawScalar<S>::type t,
                            typename RawScalar<S>::type jumping, const typename RawScalar<S>::type* x,
                            const typename RawScalar<S>::type* prior, const typename RawScalar<S>::type* field,
                            typename RawScalar<S>::type* out);

  // Compiles `source` (or finds it, checked, in the cache) and loads it. Throws Error with the
  // cause when it cannot (the compiler's message, its time limit, the system's reason),
  // native_cache::CacheRefused when the cache folder is not private, CompileInterrupted when
  // options.stop is raised.
  // The object holds the functions of `kind` (hym_P_d, hym_P_ld or hym_P_q); function<S>()
  // of another type throws Error.
  static std::shared_ptr<const NativeLibrary> load(const std::string& source, std::size_t program_count,
                                                   const NativeOptions& options, ScalarKind kind = ScalarKind::kDouble);
  ~NativeLibrary();
  NativeLibrary(const NativeLibrary&) = delete;
  NativeLibrary& operator=(const NativeLibrary&) = delete;

  template <class S>
  Function<S> function(int program) const;
  // Where the object was loaded from, or "(uncached)" with the private folder it was built in.
  const std::string& path() const { return path_; }

 private:
  NativeLibrary() = default;
  // dlopen of the object `file`; `shown` names it in path() and messages.
  static std::shared_ptr<const NativeLibrary> open_loaded(const std::string& file, const std::string& shown,
                                                          std::size_t program_count, ScalarKind kind);
  void* handle_ = nullptr;
  std::string path_;
  std::vector<void*> double_, long_double_, float128_;
};

}  // namespace hysim::lang

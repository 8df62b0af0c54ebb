// The integration loop does not allocate: counting every operator new, a run of the PWM
// servo over 10 s (about 200 events, 300 steps) makes exactly as many allocations as a run
// over 1 s, so nothing in the per-step or per-event path allocates.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "test_support.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Every form of new, scalar and array: under AddressSanitizer the array and nothrow forms are
// the sanitizer's own (they do not call operator new(size_t) as libstdc++'s do). The deletes
// are not inlined: GCC 12 with -fsanitize=address would see free() of a pointer from operator
// new at an inlined call site (-Werror=mismatched-new-delete).
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace hysim {
namespace {

template <class S>
long allocations_of_run(const Model<S>& model, double t_end, std::int64_t* events, const char* strategy = "gamma-refine") {
  SimulationOptions options;
  options.t_end = t_end;
  options.strategy = strategy;
  Simulator<S> simulator(model, options);
  Observer<S> silent;  // receives samples and events, keeps nothing
  const long before = g_allocations.load();
  const RunResult<S> result = simulator.run(&silent);
  const long after = g_allocations.load();
  *events = result.stats.events;
  return after - before;
}

template <class S>
class AllocationTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, long double, float128>;
TYPED_TEST_SUITE(AllocationTest, Scalars);

// The count is independent of the run's length: the loop itself allocates nothing.
TYPED_TEST(AllocationTest, PwmServoLoopDoesNotAllocate) {
  const Model<TypeParam> model = testing::catalog_model<TypeParam>("pwm-servo");
  std::int64_t short_events = 0, long_events = 0;
  (void)allocations_of_run(model, 0.5, &short_events);  // warm-up: process-wide statics (logger)
  const long short_run = allocations_of_run(model, 1.0, &short_events);
  const long long_run = allocations_of_run(model, 10.0, &long_events);
  EXPECT_GT(long_events, 8 * short_events);
  EXPECT_EQ(long_run, short_run) << "allocations grow with the number of steps or events";
  // What remains is per run, not per step: odeint's stage buffers, sized at the first step,
  // and the result's state vector and message.
  EXPECT_LE(short_run, 24);
}

#if HYSIM_HAVE_CVODE
// The CVODE engine restarts CVODE after every event, and after a zero plateau (an atom that
// stays exactly 0 after a root: CVODE's error message, kept for the error report); neither
// allocates per event (the servo with its default setpoint meets plateaus all along the run:
// 11 allocations over 10 s and over 100 s, where a message built afresh each time made 41 and
// 479). CVODE's own root memory, allocated with malloc, which this count does not see,
// is kept across restarts (peers/cvode_solver.hpp, RootMemory; tested in cvode_test.cpp).
TEST(AllocationTest, CvodeEngineDoesNotAllocatePerEvent) {
  const Model<double> model = testing::catalog_model<double>("pwm-servo");
  for (const char* strategy : {"cvode", "cvode-adams"}) {
    std::int64_t short_events = 0, long_events = 0;
    (void)allocations_of_run(model, 0.5, &short_events, strategy);  // warm-up
    const long short_run = allocations_of_run(model, 10.0, &short_events, strategy);
    const long long_run = allocations_of_run(model, 100.0, &long_events, strategy);
    EXPECT_GT(long_events, 8 * short_events) << strategy;
    EXPECT_EQ(long_run, short_run) << strategy << ": allocations grow with the number of steps or events";
  }
}
#endif

// The same for a model with resets at every event, with every solver (the adaptive ones
// ignore fixed_step).
TYPED_TEST(AllocationTest, BouncingBallFixedStepDoesNotAllocate) {
  const Model<TypeParam> model = testing::catalog_model<TypeParam>("bouncing-ball");
  std::int64_t ignored = 0;
  (void)allocations_of_run(model, 0.5, &ignored);  // warm-up: process-wide statics (logger)
  for (const char* solver : {"rk4", "euler", "dopri5", "bs3", "cashkarp54", "rkf78", "rosenbrock4", "dop853", "ndf"}) {
    SimulationOptions options;
    options.solver = solver;
    options.fixed_step = 1e-3;
    long counts[2];
    std::int64_t events[2];
    for (int i = 0; i < 2; ++i) {
      options.t_end = i == 0 ? 3.0 : 9.0;
      Simulator<TypeParam> simulator(model, options);
      const long before = g_allocations.load();
      const RunResult<TypeParam> result = simulator.run(nullptr);
      counts[i] = g_allocations.load() - before;
      events[i] = result.stats.events;
    }
    EXPECT_GT(events[1], events[0]) << solver;
    EXPECT_EQ(counts[1], counts[0]) << solver;
  }
}

}  // namespace
}  // namespace hysim

// dop853: Dormand and Prince's explicit Runge-Kutta method of order 8 with embedded error
// estimates of orders 5 and 3 and its continuous extension of order 7, as in Hairer's code
// dop853.f (E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary Differential Equations I,
// 2nd ed., Springer 1993, section II.10 and its appendix; P. J. Prince, J. R. Dormand, "High
// order embedded Runge-Kutta formulae", J. Comput. Appl. Math. 7(1), 1981). The coefficients
// below are dop853.f's (as scipy.integrate's DOP853 also tabulates them), 30 significant
// digits: the order conditions hold to about 1e-29, below double's and long double's
// rounding; in float128 "exact" means to about 1e-28 relative.
//
// One step from (t0, x0) with k0 = f(t0, x0) (the stored slope, FSAL):
//   k_i = f(t0 + c_i h, x0 + h sum_{j<i} a_ij k_j)          i = 1..11
//   x1  = x0 + h sum_{j<12} b_j k_j                           (b = the row a_12j, order 8)
//   k12 = f(t0 + h, x1)                                       (the next step's k0; once accepted)
// Error (dop853.f): with sk_i = atol + rtol max(|x0_i|, |x1_i|),
//   e5_i = sum_j E5_j k_j,  e3_i = sum_j (b_j - bhat3_j) k_j,
//   E5 = sum_i (e5_i / sk_i)^2,  E3 = sum_i (e3_i / sk_i)^2,
//   err = |h| E5 / sqrt(n (E5 + 0.01 E3)),
// a 5th-order estimate that the 3rd-order one keeps from being optimistic when h is large;
// the step-size controller (stepper_base.hpp) uses err^(-1/8), as dop853.f does.
// Dense output (dop853.f's CONTD8): three more stages on the accepted step,
//   k_i = f(t0 + c_i h, x0 + h sum_{j<i} a_ij k_j)          i = 13, 14, 15,
// and with theta = (t - t0)/h, d = x1 - x0:
//   F0 = d, F1 = h k0 - d, F2 = 2 d - h (k0 + k12), F_{3+r} = h sum_j D_rj k_j (r = 0..3),
//   x(t0 + theta h) = x0 + theta (F0 + (1-theta) (F1 + theta (F2 + (1-theta) (F3 + theta
//                     (F4 + (1-theta) (F5 + theta F6)))))),
// a polynomial of degree 7 and order 7. The three stages are computed when a step is accepted
// (not on demand), so that interpolation never evaluates the field, as for every other
// solver: an attempt costs 11 evaluations (k1..k11), an accepted step 4 more (k12 and the
// three dense stages), 15 per step accepted at once.
// Stiffness (solvers/stiffness.hpp): as dop853.f, the accepted step compares x1 and k12 with
// stage 11 (c = 1), h |lambda| ~ h ||k12 - k11|| / ||x1 - y11||, against the bound 6.1.
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string_view>

#include "hysim/solvers/stepper_base.hpp"
#include "hysim/solvers/stiffness.hpp"

namespace hysim::solvers {
namespace {

constexpr int kStages = 12;          // k0..k11; k12 = f(t0 + h, x1) is the next step's k0
constexpr int kStagesExtended = 16;  // with k12 and the dense output's k13..k15
constexpr int kDenseRows = 4;        // F3..F6
constexpr int kErrorEstimateOrder = 8;  // dop853.f: fac = err^(1/8)
// err = |h| E5 / sqrt(n (E5 + kThirdOrderWeight E3)) (dop853.f)
constexpr long double kThirdOrderWeight = 0.01L;

// A coefficient: its row, column and decimal text (parsed in S, so float128 gets all digits).
struct Entry {
  int row;
  int col;
  const char* value;
};

// C: the nodes c_i (stages 0-11: the step; 12: the FSAL point t + h; 13-15: the dense output).
constexpr const char* kC[kStagesExtended] = {
    "0.0", "0.526001519587677318785587544488e-01", "0.789002279381515978178381316732e-01",
    "0.118350341907227396726757197510", "0.281649658092772603273242802490", "0.333333333333333333333333333333",
    "0.25", "0.307692307692307692307692307692", "0.651282051282051282051282051282",
    "0.6", "0.857142857142857142857142857142", "1.0",
    "1.0", "0.1", "0.2",
    "0.777777777777777777777777777778",
};
// A: the nonzero entries a_ij of each row i (j < i); row 12 is the weights b of the solution.
constexpr Entry kA[] = {
    {1, 0, "5.26001519587677318785587544488e-2"},
    {2, 0, "1.97250569845378994544595329183e-2"},
    {2, 1, "5.91751709536136983633785987549e-2"},
    {3, 0, "2.95875854768068491816892993775e-2"},
    {3, 2, "8.87627564304205475450678981324e-2"},
    {4, 0, "2.41365134159266685502369798665e-1"},
    {4, 2, "-8.84549479328286085344864962717e-1"},
    {4, 3, "9.24834003261792003115737966543e-1"},
    {5, 0, "3.7037037037037037037037037037e-2"},
    {5, 3, "1.70828608729473871279604482173e-1"},
    {5, 4, "1.25467687566822425016691814123e-1"},
    {6, 0, "3.7109375e-2"},
    {6, 3, "1.70252211019544039314978060272e-1"},
    {6, 4, "6.02165389804559606850219397283e-2"},
    {6, 5, "-1.7578125e-2"},
    {7, 0, "3.70920001185047927108779319836e-2"},
    {7, 3, "1.70383925712239993810214054705e-1"},
    {7, 4, "1.07262030446373284651809199168e-1"},
    {7, 5, "-1.53194377486244017527936158236e-2"},
    {7, 6, "8.27378916381402288758473766002e-3"},
    {8, 0, "6.24110958716075717114429577812e-1"},
    {8, 3, "-3.36089262944694129406857109825"},
    {8, 4, "-8.68219346841726006818189891453e-1"},
    {8, 5, "2.75920996994467083049415600797e1"},
    {8, 6, "2.01540675504778934086186788979e1"},
    {8, 7, "-4.34898841810699588477366255144e1"},
    {9, 0, "4.77662536438264365890433908527e-1"},
    {9, 3, "-2.48811461997166764192642586468"},
    {9, 4, "-5.90290826836842996371446475743e-1"},
    {9, 5, "2.12300514481811942347288949897e1"},
    {9, 6, "1.52792336328824235832596922938e1"},
    {9, 7, "-3.32882109689848629194453265587e1"},
    {9, 8, "-2.03312017085086261358222928593e-2"},
    {10, 0, "-9.3714243008598732571704021658e-1"},
    {10, 3, "5.18637242884406370830023853209"},
    {10, 4, "1.09143734899672957818500254654"},
    {10, 5, "-8.14978701074692612513997267357"},
    {10, 6, "-1.85200656599969598641566180701e1"},
    {10, 7, "2.27394870993505042818970056734e1"},
    {10, 8, "2.49360555267965238987089396762"},
    {10, 9, "-3.0467644718982195003823669022"},
    {11, 0, "2.27331014751653820792359768449"},
    {11, 3, "-1.05344954667372501984066689879e1"},
    {11, 4, "-2.00087205822486249909675718444"},
    {11, 5, "-1.79589318631187989172765950534e1"},
    {11, 6, "2.79488845294199600508499808837e1"},
    {11, 7, "-2.85899827713502369474065508674"},
    {11, 8, "-8.87285693353062954433549289258"},
    {11, 9, "1.23605671757943030647266201528e1"},
    {11, 10, "6.43392746015763530355970484046e-1"},
    {12, 0, "5.42937341165687622380535766363e-2"},
    {12, 5, "4.45031289275240888144113950566"},
    {12, 6, "1.89151789931450038304281599044"},
    {12, 7, "-5.8012039600105847814672114227"},
    {12, 8, "3.1116436695781989440891606237e-1"},
    {12, 9, "-1.52160949662516078556178806805e-1"},
    {12, 10, "2.01365400804030348374776537501e-1"},
    {12, 11, "4.47106157277725905176885569043e-2"},
    {13, 0, "5.61675022830479523392909219681e-2"},
    {13, 6, "2.53500210216624811088794765333e-1"},
    {13, 7, "-2.46239037470802489917441475441e-1"},
    {13, 8, "-1.24191423263816360469010140626e-1"},
    {13, 9, "1.5329179827876569731206322685e-1"},
    {13, 10, "8.20105229563468988491666602057e-3"},
    {13, 11, "7.56789766054569976138603589584e-3"},
    {13, 12, "-8.298e-3"},
    {14, 0, "3.18346481635021405060768473261e-2"},
    {14, 5, "2.83009096723667755288322961402e-2"},
    {14, 6, "5.35419883074385676223797384372e-2"},
    {14, 7, "-5.49237485713909884646569340306e-2"},
    {14, 10, "-1.08347328697249322858509316994e-4"},
    {14, 11, "3.82571090835658412954920192323e-4"},
    {14, 12, "-3.40465008687404560802977114492e-4"},
    {14, 13, "1.41312443674632500278074618366e-1"},
    {15, 0, "-4.28896301583791923408573538692e-1"},
    {15, 5, "-4.69762141536116384314449447206"},
    {15, 6, "7.68342119606259904184240953878"},
    {15, 7, "4.06898981839711007970213554331"},
    {15, 8, "3.56727187455281109270669543021e-1"},
    {15, 12, "-1.39902416515901462129418009734e-3"},
    {15, 13, "2.9475147891527723389556272149"},
    {15, 14, "-9.15095847217987001081870187138"},
};
// E5 and E3: the 5th- and 3rd-order error estimates of dop853.f, as weights of the stages 0-11.
constexpr Entry kE5[] = {
    {0, 0, "0.1312004499419488073250102996e-1"},
    {0, 5, "-0.1225156446376204440720569753e1"},
    {0, 6, "-0.4957589496572501915214079952"},
    {0, 7, "0.1664377182454986536961530415e1"},
    {0, 8, "-0.3503288487499736816886487290"},
    {0, 9, "0.3341791187130174790297318841"},
    {0, 10, "0.8192320648511571246570742613e-1"},
    {0, 11, "-0.2235530786388629525884427845e-1"},
};
// E3 = b - bhat3, with bhat3 nonzero at stages 0, 8 and 11 only: these are bhat3.
constexpr Entry kBhat3[] = {
    {0, 0, "0.244094488188976377952755905512"},
    {0, 8, "0.733846688281611857341361741547"},
    {0, 11, "0.220588235294117647058823529412e-1"},
};
// D: the dense output's coefficients of the powers 3-6 (rows), as weights of the 16 stages.
constexpr Entry kD[] = {
    {0, 0, "-0.84289382761090128651353491142e1"},
    {0, 5, "0.56671495351937776962531783590"},
    {0, 6, "-0.30689499459498916912797304727e1"},
    {0, 7, "0.23846676565120698287728149680e1"},
    {0, 8, "0.21170345824450282767155149946e1"},
    {0, 9, "-0.87139158377797299206789907490"},
    {0, 10, "0.22404374302607882758541771650e1"},
    {0, 11, "0.63157877876946881815570249290"},
    {0, 12, "-0.88990336451333310820698117400e-1"},
    {0, 13, "0.18148505520854727256656404962e2"},
    {0, 14, "-0.91946323924783554000451984436e1"},
    {0, 15, "-0.44360363875948939664310572000e1"},
    {1, 0, "0.10427508642579134603413151009e2"},
    {1, 5, "0.24228349177525818288430175319e3"},
    {1, 6, "0.16520045171727028198505394887e3"},
    {1, 7, "-0.37454675472269020279518312152e3"},
    {1, 8, "-0.22113666853125306036270938578e2"},
    {1, 9, "0.77334326684722638389603898808e1"},
    {1, 10, "-0.30674084731089398182061213626e2"},
    {1, 11, "-0.93321305264302278729567221706e1"},
    {1, 12, "0.15697238121770843886131091075e2"},
    {1, 13, "-0.31139403219565177677282850411e2"},
    {1, 14, "-0.93529243588444783865713862664e1"},
    {1, 15, "0.35816841486394083752465898540e2"},
    {2, 0, "0.19985053242002433820987653617e2"},
    {2, 5, "-0.38703730874935176555105901742e3"},
    {2, 6, "-0.18917813819516756882830838328e3"},
    {2, 7, "0.52780815920542364900561016686e3"},
    {2, 8, "-0.11573902539959630126141871134e2"},
    {2, 9, "0.68812326946963000169666922661e1"},
    {2, 10, "-0.10006050966910838403183860980e1"},
    {2, 11, "0.77771377980534432092869265740"},
    {2, 12, "-0.27782057523535084065932004339e1"},
    {2, 13, "-0.60196695231264120758267380846e2"},
    {2, 14, "0.84320405506677161018159903784e2"},
    {2, 15, "0.11992291136182789328035130030e2"},
    {3, 0, "-0.25693933462703749003312586129e2"},
    {3, 5, "-0.15418974869023643374053993627e3"},
    {3, 6, "-0.23152937917604549567536039109e3"},
    {3, 7, "0.35763911791061412378285349910e3"},
    {3, 8, "0.93405324183624310003907691704e2"},
    {3, 9, "-0.37458323136451633156875139351e2"},
    {3, 10, "0.10409964950896230045147246184e3"},
    {3, 11, "0.29840293426660503123344363579e2"},
    {3, 12, "-0.43533456590011143754432175058e2"},
    {3, 13, "0.96324553959188282948394950600e2"},
    {3, 14, "-0.39177261675615439165231486172e2"},
    {3, 15, "-0.14972683625798562581422125276e3"},
};

// The tableau in S, parsed once per scalar type.
template <class S>
struct Tableau {
  std::array<S, kStagesExtended> c{};
  std::array<std::array<S, kStagesExtended>, kStagesExtended> a{};  // a[i][j], j < i; a[12] = b
  std::array<S, kStages> e5{}, e3{};                                // e3 = b - bhat3
  std::array<std::array<S, kStagesExtended>, kDenseRows> d{};

  Tableau() {
    const auto parse = [](const char* text) { return parse_decimal<S>(text, "a dop853 coefficient"); };
    for (int i = 0; i < kStagesExtended; ++i) c[i] = parse(kC[i]);
    for (const Entry& e : kA) a[e.row][e.col] = parse(e.value);
    for (const Entry& e : kE5) e5[e.col] = parse(e.value);
    for (int j = 0; j < kStages; ++j) e3[j] = a[kStages][j];
    for (const Entry& e : kBhat3) e3[e.col] -= parse(e.value);
    for (const Entry& e : kD) d[e.row][e.col] = parse(e.value);
  }
};

template <class S>
const Tableau<S>& tableau() {
  static const Tableau<S> table;
  return table;
}

template <class S>
class Dop853Stepper final : public StepperBase<S> {
  using Base = StepperBase<S>;

 public:
  Dop853Stepper(std::size_t n, const StepperTolerances<S>& tolerances)
      : Base(n), tolerances_(tolerances), tab_(tableau<S>()), stage_(n), last_stage_(n) {
    for (auto& k : k_) k.resize(n);
    for (auto& f : dense_) f.resize(n);
  }

  std::string_view name() const override { return "dop853"; }
  bool is_adaptive() const override { return true; }
  int order() const override { return 8; }

  StepOutcome<S> try_step(S h) override {
    using std::abs;
    using std::max;
    using std::sqrt;
    const std::size_t n = this->x_cur_.size();
    const S t = this->t_cur_;
    const S t_new = t + h;
    const S* x = this->x_cur_.data();
    k_[0] = this->f_cur_;  // same size: no allocation
    // k_i = f(t0 + c_i h, x0 + h sum_{j<i} a_ij k_j), i = 1..11; stage 11 (c = 1) keeps its
    // argument for the stiffness test
    for (int i = 1; i < kStages; ++i) {
      State<S>& argument = i == kStages - 1 ? last_stage_ : stage_;
      combine(i, h, argument);
      this->rhs_(t + tab_.c[i] * h, argument.data(), k_[i].data());
    }
    // x1 = x0 + h sum_j b_j k_j
    for (std::size_t m = 0; m < n; ++m) {
      S sum = S(0);
      for (int j = 0; j < kStages; ++j) sum += tab_.a[kStages][j] * k_[j][m];
      this->x_try_[m] = x[m] + h * sum;
    }

    // err = |h| E5 / sqrt(n (E5 + 0.01 E3))
    S e5_sum = S(0), e3_sum = S(0);
    for (std::size_t m = 0; m < n; ++m) {
      S e5 = S(0), e3 = S(0);
      for (int j = 0; j < kStages; ++j) {
        e5 += tab_.e5[j] * k_[j][m];
        e3 += tab_.e3[j] * k_[j][m];
      }
      const S sk = tolerances_.atol_at(m) + tolerances_.rtol * max(abs(x[m]), abs(this->x_try_[m]));
      e5_sum += (e5 / sk) * (e5 / sk);
      e3_sum += (e3 / sk) * (e3 / sk);
    }
    const S err = (e5_sum == S(0) && e3_sum == S(0))
                      ? S(0)
                      : abs(h) * e5_sum / sqrt(S(n) * (e5_sum + third_order_weight_ * e3_sum));
    const S h_next = controller_.next_step(h, err);
    if (!controller_.accepts(err)) return {StepStatus::kRejected, h_next};

    // k12 = f(t0 + h, x1), the next step's k0 (the estimates do not use it: only an accepted
    // step pays for it); the dense output's stages k13..k15 and its coefficients F0..F6.
    this->rhs_(t_new, this->x_try_.data(), this->f_try_.data());
    k_[kStages] = this->f_try_;
    for (int i = kStages + 1; i < kStagesExtended; ++i) {
      combine(i, h, stage_);
      this->rhs_(t + tab_.c[i] * h, stage_.data(), k_[i].data());
    }
    for (std::size_t m = 0; m < n; ++m) {
      const S delta = this->x_try_[m] - x[m];
      dense_[0][m] = delta;
      dense_[1][m] = h * k_[0][m] - delta;
      dense_[2][m] = S(2) * delta - h * (k_[0][m] + k_[kStages][m]);
      for (int r = 0; r < kDenseRows; ++r) {
        S sum = S(0);
        for (int j = 0; j < kStagesExtended; ++j) sum += tab_.d[r][j] * k_[j][m];
        dense_[3 + r][m] = h * sum;
      }
    }
    this->accept(t_new);
    return {StepStatus::kAccepted, h_next};
  }

  // Hairer's test (stiffness.hpp) on the accepted step: x1 and f(t0 + h, x1) against stage 11,
  // whose node is c = 1, as dop853.f compares them.
  S stiffness_ratio() const override {
    if (!(this->t_cur_ > this->t_prev_)) return std::numeric_limits<S>::quiet_NaN();
    return stiffness_ratio_of(this->t_cur_ - this->t_prev_, this->x_cur_.data(), this->f_cur_.data(),
                              last_stage_.data(), k_[kStages - 1].data(), this->x_cur_.size(), kDop853StabilityBound);
  }

  int dense_degree() const override { return 7; }  // Hairer's contd8

  void interpolate(S t, S* x) const override {
    if (this->copy_end_point(t, x)) return;
    const S theta = (t - this->t_prev_) / (this->t_cur_ - this->t_prev_);
    const S s1 = S(1) - theta;
    for (std::size_t m = 0; m < this->x_cur_.size(); ++m) {
      const auto& F = dense_;
      x[m] = this->x_prev_[m] +
             theta * (F[0][m] + s1 * (F[1][m] + theta * (F[2][m] + s1 * (F[3][m] + theta * (F[4][m] + s1 * (F[5][m] + theta * F[6][m]))))));
    }
  }

 private:
  // argument = x0 + h sum_{j<i} a_ij k_j
  void combine(int i, S h, State<S>& argument) {
    const S* x = this->x_cur_.data();
    for (std::size_t m = 0; m < argument.size(); ++m) {
      S sum = S(0);
      for (int j = 0; j < i; ++j) sum += tab_.a[i][j] * k_[j][m];
      argument[m] = x[m] + h * sum;
    }
  }

  StepperTolerances<S> tolerances_;
  StepSizeController controller_{kErrorEstimateOrder};
  const Tableau<S>& tab_;
  const S third_order_weight_ = S(kThirdOrderWeight);
  std::array<State<S>, kStagesExtended> k_;
  std::array<State<S>, 3 + kDenseRows> dense_;  // F0..F6 of the last accepted step
  State<S> stage_;
  State<S> last_stage_;  // the argument of stage 11 (c = 1) of the last attempt
};

}  // namespace

template <class S>
std::unique_ptr<Stepper<S>> make_dop853(std::size_t n, const StepperTolerances<S>& tolerances) {
  return std::make_unique<Dop853Stepper<S>>(n, tolerances);
}

#define HYSIM_INSTANTIATE(S) \
  template std::unique_ptr<Stepper<S>> make_dop853<S>(std::size_t, const StepperTolerances<S>&);
HYSIM_FOR_EACH_SCALAR(HYSIM_INSTANTIATE)
#undef HYSIM_INSTANTIATE

}  // namespace hysim::solvers

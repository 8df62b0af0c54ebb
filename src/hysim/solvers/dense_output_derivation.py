#!/usr/bin/env python3
"""Exact-arithmetic derivations behind the dense outputs and test constants of solvers/.

Run: python3 solvers/dense_output_derivation.py   (standard library only: fractions)

1. Internal stage orders of Cash-Karp 5(4) and Fehlberg 7(8) (as tabulated in Boost.Odeint):
   the largest r with sum_j a_ij Phi_j(tau) = c_i^|tau| / gamma(tau) for every rooted tree
   |tau| <= r (Butcher; Hairer, Norsett & Wanner, Solving ODE I, II.2).
2. Cash-Karp: the weights w of x_1/2 = x0 + h sum_i w_i k_i (k7 = f(t1, x1)) that satisfy the
   order conditions of a continuous extension at theta = 1/2 through order 4 (HNW I, II.6):
   a one-parameter family; the member without k6 (used in odeint_steppers.cpp) and the one
   with the smallest order-5 residuals.
3. Fehlberg 7(8): continuous extensions from its 13 stages and f1 exist through order 5 and
   not of order 6 (the order-6 conditions are inconsistent).
4. The quadrature errors asserted in tests/stepper_test.cpp.
5. RODAS (rosenbrock4): one step on x' = p t^(p-1) with rodas.f's d4 = -0.0362 and with
   Boost.Odeint's d4 = +0.0362, and the quadrature error on x' = 6 t^5 over [0, 1].
"""
from fractions import Fraction as F
from functools import lru_cache


# ---- rooted trees ---------------------------------------------------------------------------
@lru_cache(None)
def trees(n):
    """Rooted trees with n vertices, each a sorted tuple of (order, subtree) children."""
    if n == 1:
        return ((),)
    found = set()

    def fill(rest, largest, children):
        if rest == 0:
            found.add(tuple(sorted(children)))
            return
        for k in range(1, rest + 1):
            for t in trees(k):
                if largest is None or (k, t) <= largest:
                    fill(rest - k, (k, t), children + [(k, t)])

    fill(n - 1, None, [])
    return tuple(sorted(found))


def order(t):
    return 1 + sum(k for k, _ in t)


def gamma(t):
    g = order(t)
    for _, child in t:
        g *= gamma(child)
    return g


class Tableau:
    def __init__(self, rows, b, c):
        self.s = len(c)
        self.A = [[F(0)] * self.s for _ in range(self.s)]
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                self.A[i + 1][j] = F(v)
        self.b = [F(v) for v in b]
        self.c = [F(v) for v in c]
        self.memo = {}

    def phi(self, j, t):
        """Weight of tree t in the slope k_j = f(Y_j) (Phi_j(bullet) = 1)."""
        key = (j, t)
        if key not in self.memo:
            v = F(1)
            for _, child in t:
                v *= sum(self.A[j][l] * self.phi(l, child) for l in range(self.s))
            self.memo[key] = v
        return self.memo[key]

    def internal_order(self, i, limit):
        r = 0
        for n in range(1, limit + 1):
            if all(sum(self.A[i][j] * self.phi(j, t) for j in range(self.s)) == self.c[i] ** n / gamma(t)
                   for t in trees(n)):
                r = n
            else:
                break
        return r

    def with_end_slope(self):
        """The tableau plus a stage k_{s+1} = f(t0 + h, x1): row b, node 1."""
        rows = [self.A[i][:i] for i in range(1, self.s)] + [self.b]
        return Tableau(rows, self.b + [F(0)], self.c + [F(1)])


# ---- linear algebra over the rationals ------------------------------------------------------
def rref(matrix):
    m = [row[:] for row in matrix]
    pivots, r = [], 0
    for col in range(len(m[0])):
        p = next((i for i in range(r, len(m)) if m[i][col] != 0), None)
        if p is None:
            continue
        m[r], m[p] = m[p], m[r]
        m[r] = [v / m[r][col] for v in m[r]]
        for i in range(len(m)):
            if i != r and m[i][col] != 0:
                m[i] = [a - m[i][col] * b for a, b in zip(m[i], m[r])]
        pivots.append(col)
        r += 1
    return m, pivots


def rank(matrix):
    return len(rref(matrix)[1])


def continuous_extension_system(tab, theta, max_order):
    rows, rhs = [], []
    for n in range(1, max_order + 1):
        for t in trees(n):
            rows.append([tab.phi(j, t) for j in range(tab.s)])
            rhs.append(F(theta) ** n / gamma(t))
    return rows, rhs


# ---- the tableaux (Boost.Odeint's coefficients) ---------------------------------------------
CASH_KARP = Tableau(
    [[F(1, 5)], [F(3, 40), F(9, 40)], [F(3, 10), F(-9, 10), F(6, 5)],
     [F(-11, 54), F(5, 2), F(-70, 27), F(35, 27)],
     [F(1631, 55296), F(175, 512), F(575, 13824), F(44275, 110592), F(253, 4096)]],
    [F(37, 378), 0, F(250, 621), F(125, 594), 0, F(512, 1771)],
    [0, F(1, 5), F(3, 10), F(3, 5), 1, F(7, 8)])

FEHLBERG_78 = Tableau(
    [[F(2, 27)], [F(1, 36), F(1, 12)], [F(1, 24), 0, F(1, 8)], [F(5, 12), 0, F(-25, 16), F(25, 16)],
     [F(1, 20), 0, 0, F(1, 4), F(1, 5)],
     [F(-25, 108), 0, 0, F(125, 108), F(-65, 27), F(125, 54)],
     [F(31, 300), 0, 0, 0, F(61, 225), F(-2, 9), F(13, 900)],
     [2, 0, 0, F(-53, 6), F(704, 45), F(-107, 9), F(67, 90), 3],
     [F(-91, 108), 0, 0, F(23, 108), F(-976, 135), F(311, 54), F(-19, 60), F(17, 6), F(-1, 12)],
     [F(2383, 4100), 0, 0, F(-341, 164), F(4496, 1025), F(-301, 82), F(2133, 4100), F(45, 82), F(45, 164),
      F(18, 41)],
     [F(3, 205), 0, 0, 0, 0, F(-6, 41), F(-3, 205), F(-3, 41), F(3, 41), F(6, 41), 0],
     [F(-1777, 4100), 0, 0, F(-341, 164), F(4496, 1025), F(-289, 82), F(2193, 4100), F(51, 82), F(33, 164),
      F(12, 41), 0, 1]],
    [0, 0, 0, 0, 0, F(34, 105), F(9, 35), F(9, 35), F(9, 280), F(9, 280), 0, F(41, 840), F(41, 840)],
    [0, F(2, 27), F(1, 9), F(1, 6), F(5, 12), F(1, 2), F(5, 6), F(1, 6), F(2, 3), F(1, 3), 1, 0, 1])

BS3_B, BS3_C = [F(2, 9), F(1, 3), F(4, 9), 0], [0, F(1, 2), F(3, 4), 1]
CASH_KARP_MID = [F(89, 864), 0, F(575, 1512), F(25, 1728), F(-13, 448), 0, F(1, 32)]  # odeint_steppers.cpp


def section(title):
    print("\n== " + title)


def main():
    section("1. internal stage orders")
    for name, tab in (("cashkarp54", CASH_KARP), ("rkf78", FEHLBERG_78)):
        print(name, [(i + 1, str(tab.c[i]), tab.internal_order(i, 6)) for i in range(1, tab.s)])

    section("2. cashkarp54 midpoint weights (order 4 at theta = 1/2, over k1..k6 and f1)")
    ext = CASH_KARP.with_end_slope()
    rows, rhs = continuous_extension_system(ext, F(1, 2), 4)
    print("conditions", len(rows), "rank", rank(rows), "augmented rank", rank([r + [v] for r, v in zip(rows, rhs)]))
    residual4 = [sum(w * p for w, p in zip(CASH_KARP_MID, r)) - v for r, v in zip(rows, rhs)]
    print("weights used", [str(w) for w in CASH_KARP_MID], "order <= 4 residuals all zero:",
          all(x == 0 for x in residual4), "; sum =", sum(CASH_KARP_MID))
    # The family: w(lambda) = w_used + lambda * null, null spanning the null space with w6 free.
    m, pivots = rref([r + [v] for r, v in zip(rows, rhs)])
    free = [j for j in range(ext.s) if j not in pivots]
    print("free weights (0-based):", free)
    null = [F(0)] * ext.s
    null[free[0]] = F(1)
    for row, p in zip(m, pivots):
        null[p] = -row[free[0]]
    rows5, rhs5 = continuous_extension_system(ext, F(1, 2), 5)
    rows5, rhs5 = rows5[len(rows):], rhs5[len(rows):]

    def residual5(lam):
        w = [a + lam * b for a, b in zip(CASH_KARP_MID, null)]
        return [sum(x * p for x, p in zip(w, r)) - v for r, v in zip(rows5, rhs5)]

    # minimize sum r_k(lam)^2, r_k affine in lam
    r0, r1 = residual5(F(0)), residual5(F(1))
    slope = [b - a for a, b in zip(r0, r1)]
    best = -sum(a * s for a, s in zip(r0, slope)) / sum(s * s for s in slope)
    norm = lambda r: float(sum(x * x for x in r)) ** 0.5
    print("order-5 residual norm: used %.6e, smallest %.6e (ratio %.4f)" % (
        norm(r0), norm(residual5(best)), norm(r0) / norm(residual5(best))))

    section("3. rkf78 continuous extensions over its 13 stages and f1")
    ext78 = FEHLBERG_78.with_end_slope()
    for p in (4, 5, 6):
        for theta in (F(1, 3), F(1, 2)):
            rows, rhs = continuous_extension_system(ext78, theta, p)
            print("order %d at theta = %s: conditions %d, rank %d, augmented rank %d" % (
                p, theta, len(rows), rank(rows), rank([r + [v] for r, v in zip(rows, rhs)])))

    section("4. quadrature errors: one step over [0, 1] on x' = (p+1) t^p, i.e. (p+1) sum b_i c_i^p - 1")
    for name, b, c, p in (("bs3", BS3_B, BS3_C, 3), ("cashkarp54", CASH_KARP.b, CASH_KARP.c, 5),
                          ("rkf78", FEHLBERG_78.b, FEHLBERG_78.c, 8)):
        print(name, "p =", p, ":", (p + 1) * sum(bi * F(ci) ** p for bi, ci in zip(b, c)) - 1,
              "; exact below:", all((k + 1) * sum(bi * F(ci) ** k for bi, ci in zip(b, c)) == 1 for k in range(p)))

    section("5. rosenbrock4 (RODAS) on x' = p t^(p-1): J = 0, exact f_t")
    coefficients = dict(
        gamma="0.25", d1="0.25", d2="-0.1043", d3="0.1035", c2="0.386", c3="0.21", c4="0.63", c21="-5.6688",
        a21="1.544", c31="-2.430093356833875", c32="-0.2063599157091915", a31="0.9466785280815826",
        a32="0.2557011698983284", c41="-0.1073529058151375", c42="-9.594562251023355", c43="-20.47028614809616",
        a41="3.314825187068521", a42="2.896124015972201", a43="0.9986419139977817", c51="7.496443313967647",
        c52="-10.24680431464352", c53="-33.99990352819905", c54="11.70890893206160", a51="1.221224509226641",
        a52="6.019134481288629", a53="12.53708332932087", a54="-0.6878860361058950", c61="8.083246795921522",
        c62="-7.981132988064893", c63="-31.52159432874371", c64="16.31930543123136", c65="-6.058818238834054")

    def rodas_step(d4, p, t0, h):
        k = {name: F(v) for name, v in coefficients.items()}
        k["d4"] = F(d4)
        g = lambda t: p * t ** (p - 1) if p > 0 else F(0)
        ft = p * (p - 1) * t0 ** (p - 2) if p > 1 else F(0)
        m = 1 / (k["gamma"] * h)  # M = I / (gamma h), J = 0
        g1 = (g(t0) + h * k["d1"] * ft) / m
        g2 = (g(t0 + k["c2"] * h) + h * k["d2"] * ft + k["c21"] * g1 / h) / m
        g3 = (g(t0 + k["c3"] * h) + h * k["d3"] * ft + (k["c31"] * g1 + k["c32"] * g2) / h) / m
        g4 = (g(t0 + k["c4"] * h) + h * k["d4"] * ft + (k["c41"] * g1 + k["c42"] * g2 + k["c43"] * g3) / h) / m
        x = t0 ** p + k["a51"] * g1 + k["a52"] * g2 + k["a53"] * g3 + k["a54"] * g4
        g5 = (g(t0 + h) + (k["c51"] * g1 + k["c52"] * g2 + k["c53"] * g3 + k["c54"] * g4) / h) / m
        x += g5
        g6 = (g(t0 + h) + (k["c61"] * g1 + k["c62"] * g2 + k["c63"] * g3 + k["c64"] * g4 + k["c65"] * g5) / h) / m
        return x + g6

    for label, d4 in (("rodas.f d4 = -0.0362", "-0.03620000000000023"), ("odeint d4 = +0.0362", "0.03620000000000023")):
        print(label, ": x(3) - 3^p from t = 1, h = 2:",
              ["p=%d: %.3e" % (p, float(rodas_step(d4, p, F(1), F(2)) - 3 ** p)) for p in range(7)])
    print("quadrature error, x' = 6 t^5 over [0, 1] (rodas.f d4):",
          float(rodas_step("-0.03620000000000023", 6, F(0), F(1)) - 1))


if __name__ == "__main__":
    main()

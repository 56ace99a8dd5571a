/* Vector maths from SLEEF (DESIGN.md, numeric contract: vector maths come
 * from a field library). */
#ifndef SENSIM_VMATH_H
#define SENSIM_VMATH_H

#include <stdbool.h>
#include <stdint.h>

/* s[i] = sin(x[i]), c[i] = cos(x[i]) for i < n, SLEEF's 1-ulp sincos
 * (u10) without FMA: its AVX, SSE2 and portable C versions give the same
 * bits, so every x86-64 CPU (and SLEEF's portable C elsewhere) gives the
 * same result. ~6 ns a pair on AVX against ~13 for glibc's sincos; it
 * differs from glibc's (correctly rounded in practice) by at most 1 ulp,
 * in ~5 % of arguments. The arrays may not overlap. */
void sensim__sincos_n(const double *x, double *s, double *c, uint32_t n);

/* One variant of sensim__sincos_n (tests: the variants must agree bit for
 * bit); false when this build or CPU lacks it. */
enum { SENSIM_VMATH_PUREC = 1, SENSIM_VMATH_SSE2 = 2, SENSIM_VMATH_AVX = 3 };
bool sensim__sincos_variant(int variant, const double *x, double *s, double *c, uint32_t n);

#endif

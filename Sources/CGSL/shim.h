#ifndef WIDGETSIM_CGSL_SHIM_H
#define WIDGETSIM_CGSL_SHIM_H

#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_qrng.h>
#include <stddef.h>
#include <stdint.h>

/* GSL exposes its generator types as mutable global pointers, which Swift 6's
   strict concurrency checking rejects. These accessors return them by value. */
static inline const gsl_rng_type *widgetsim_rng_mt19937(void) { return gsl_rng_mt19937; }
static inline const gsl_rng_type *widgetsim_rng_taus2(void) { return gsl_rng_taus2; }
static inline const gsl_rng_type *widgetsim_rng_ranlxd2(void) { return gsl_rng_ranlxd2; }
static inline const gsl_rng_type *widgetsim_rng_gfsr4(void) { return gsl_rng_gfsr4; }
/* The same for the quasi-random sequences (gsl_qrng). */
static inline const gsl_qrng_type *widgetsim_qrng_sobol(void) { return gsl_qrng_sobol; }
static inline const gsl_qrng_type *widgetsim_qrng_halton(void) { return gsl_qrng_halton; }

/* Turn GSL's default abort-on-error handler off once, so that a bad argument
   surfaces as a return value the caller checks, never as an abort. */
static inline void widgetsim_gsl_disable_abort(void) { gsl_set_error_handler_off(); }

/* GSL's taus2 generator, drawn without the indirect calls of gsl_rng_uniform: the
   combined Tausworthe generator of L'Ecuyer ("Maximally equidistributed combined
   Tausworthe generators", Math. Comp. 65 (1996) 203-213), with its three 32-bit
   components kept as GSL keeps them, in three unsigned longs at gsl_rng's state.
   Seeding stays GSL's (gsl_rng_set), so each draw is the same double GSL returns;
   WidgetSimSampling uses it only when the state has exactly that size, and its tests
   compare the two draw for draw. */
typedef struct { unsigned long component[3]; } widgetsim_taus_state;

static inline uint32_t widgetsim_taus_step(uint32_t s, int q, int k, uint32_t mask, int shift) {
    /* One component on 32 bits (the state holds values below 2^32). */
    return ((s & mask) << shift) ^ (((s << q) ^ s) >> k);
}

/* The three components as values, which a caller's loop can keep in registers
   (WidgetSimSampling's TausUniforms): one step of each, and the uniform of the new
   state, as gsl_rng_uniform gives it. */
typedef struct { uint32_t c0, c1, c2; } widgetsim_taus_words;

static inline double widgetsim_taus_next(widgetsim_taus_words *w) {
    w->c0 = widgetsim_taus_step(w->c0, 13, 19, 4294967294U, 12);
    w->c1 = widgetsim_taus_step(w->c1, 2, 25, 4294967288U, 4);
    w->c2 = widgetsim_taus_step(w->c2, 3, 11, 4294967280U, 17);
    return (double)(w->c0 ^ w->c1 ^ w->c2) * (1.0 / 4294967296.0);
}

static inline double widgetsim_taus_uniform(void *state) {
    widgetsim_taus_state *t = (widgetsim_taus_state *)state;
    widgetsim_taus_words w = {
        (uint32_t)t->component[0], (uint32_t)t->component[1], (uint32_t)t->component[2] };
    double u = widgetsim_taus_next(&w);
    t->component[0] = w.c0;
    t->component[1] = w.c1;
    t->component[2] = w.c2;
    return u;
}

static inline int widgetsim_taus_fits(const gsl_rng *r) {
    return gsl_rng_size(r) == sizeof(widgetsim_taus_state);
}

/* A double's integer part, for a value known to fit in 64 bits (one conversion
   instruction; Swift's Int64(_:) checks the range first). */
static inline int64_t widgetsim_trunc_i64(double x) { return (int64_t)x; }

/* CRC-32C with the SSE4.2 `crc32` instruction, which computes exactly this checksum
   (polynomial 0x1EDC6F41, reflected). `crc` and the result are the running register,
   without the initial and final inversion. Call only when widgetsim_crc32c_hardware()
   says the processor has the instruction. */
#if defined(__x86_64__)
#include <cpuid.h>
#include <string.h>

static inline int widgetsim_crc32c_hardware(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
static inline uint32_t widgetsim_crc32c_update(uint32_t crc, const void *data, size_t count) {
    const uint8_t *bytes = (const uint8_t *)data;
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t v;
        memcpy(&v, bytes, 8);
        c = __builtin_ia32_crc32di(c, v);
        bytes += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *bytes);
        bytes += 1;
        count -= 1;
    }
    return c32;
}
#else
static inline int widgetsim_crc32c_hardware(void) { return 0; }
static inline uint32_t widgetsim_crc32c_update(uint32_t crc, const void *data, size_t count) {
    (void)data;
    (void)count;
    return crc;
}
#endif

#endif

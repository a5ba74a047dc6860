#ifndef WIDGETSIM_CSAMPLING_H
#define WIDGETSIM_CSAMPLING_H

/* The steps of WidgetSimSampling's hot loops that Swift cannot express as cheaply:
   taus2 drawn inline, and a double's integer part in one instruction. */

#include <stdint.h>

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
   (WidgetSimSampling's TausUniforms): one step of each, and the new state's 32-bit
   word, or its uniform (the word / 2^32) as gsl_rng_uniform gives it. */
typedef struct { uint32_t c0, c1, c2; } widgetsim_taus_words;

static inline uint32_t widgetsim_taus_next_word(widgetsim_taus_words *w) {
    w->c0 = widgetsim_taus_step(w->c0, 13, 19, 4294967294U, 12);
    w->c1 = widgetsim_taus_step(w->c1, 2, 25, 4294967288U, 4);
    w->c2 = widgetsim_taus_step(w->c2, 3, 11, 4294967280U, 17);
    return w->c0 ^ w->c1 ^ w->c2;
}

/* The uniform of a 32-bit word: the word / 2^32 (exact), as gsl_rng_uniform gives it. */
static inline double widgetsim_taus_uniform_of_word(uint32_t word) {
    return (double)word * (1.0 / 4294967296.0);
}

static inline double widgetsim_taus_next(widgetsim_taus_words *w) {
    return widgetsim_taus_uniform_of_word(widgetsim_taus_next_word(w));
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

/* A double's integer part, for a value known to fit in 64 bits (one conversion
   instruction; Swift's Int64(_:) checks the range first). */
static inline int64_t widgetsim_trunc_i64(double x) { return (int64_t)x; }

#endif

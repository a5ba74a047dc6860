#ifndef WIDGETSIM_CSAMPLING_EXPONENTIAL_H
#define WIDGETSIM_CSAMPLING_EXPONENTIAL_H

/* The unit exponential of a taus2 draw, −log1p(−u) for u = word / 2^32, with the bits
   glibc's log1p gives on a processor with FMA, specialised for those inputs: a direct
   call (widgetsim_exponential_of_word), or steps inlined into the loop of
   WidgetSimModel's LocalHours arrivals (widgetsim_hour_arrivals_run).

   glibc (2.36 on x86-64) chooses its log1p when the program loads: on a processor with
   FMA and AVX2, fdlibm's algorithm compiled with fused multiply-adds (in the polynomial
   and the last step), else the same algorithm without them. The two differ on
   1,904,533 of the 2^32 words, so only the fused arithmetic can stand in for it, and
   only where glibc runs it: widgetsim_exponential_usable() says so once (the processor
   has FMA and AVX2 with their registers enabled, and glibc's log1p gives the fused
   bits on words where the two differ). scripts/check-exponential compares
   widgetsim_exponential_of_word with glibc on all 2^32 words.

   The steps are fdlibm's (log1p: x = −u in (−1, 0]), with what these inputs make
   constant left out: x is never −1 or below, nor infinite, and u = 1 + x is exact, so
   fdlibm's correction term c is +0 (and k·ln2_lo + c is the product alone). The words
   below 8 (|x| < 2^−29) and those whose reduced argument is within 2^−20 of 1 (fdlibm's
   hu == 0), 10,265 words in all, go to glibc's log1p itself. */

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sampling.h"

/* Below this word, x > −0.2929 and fdlibm takes f = x (k = 0); from it on it reduces
   1 + x by its power of two. The bound is |x| = 0x3fd2bec4_00000000 scaled by 2^32. */
#define WIDGETSIM_EXPONENTIAL_REDUCED 0x4AFB1000u

/* Words on which glibc's log1p without FMA gives other bits than with it (and than
   widgetsim_exponential_of_word), three in each of fdlibm's branches. */
#define WIDGETSIM_EXPONENTIAL_PROBES 6
static const uint32_t widgetsim_exponential_probes[WIDGETSIM_EXPONENTIAL_PROBES] = {
    11085199u, 14522422u, 20181102u, 1257967761u, 1257969306u, 1257970689u };

/* The rare steps of the hot loops below (glibc's log1p on the words the direct steps
   leave to it, nextafter where a piece has no room), out of line. Under preserve_most
   such a call keeps every general register but r11, so a loop that makes it can hold
   its generator words and counters in registers rather than spill them for a call it
   almost never makes. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(preserve_most)
#define WIDGETSIM_RARE __attribute__((noinline, cold, preserve_most))
#endif
#endif
#ifndef WIDGETSIM_RARE
#define WIDGETSIM_RARE __attribute__((noinline, cold))
#endif

WIDGETSIM_RARE static double widgetsim_exponential_by_log1p(double x) { return -1 * log1p(x); }

WIDGETSIM_RARE static double widgetsim_next_up(double t) { return nextafter(t, INFINITY); }

#if defined(__x86_64__)
#include <cpuid.h>
#define WIDGETSIM_FMA_TARGET __attribute__((target("fma")))

WIDGETSIM_FMA_TARGET __attribute__((always_inline))
static inline double widgetsim_exponential_inline(uint32_t word) {
#pragma STDC FP_CONTRACT OFF
    static const double ln2_hi = 6.93147180369123816490e-01;
    static const double ln2_lo = 1.90821492927058770002e-10;
    static const double lp1 = 6.666666666666735130e-01, lp2 = 3.999999999940941908e-01,
        lp3 = 2.857142874366239149e-01, lp4 = 2.222219843214978396e-01,
        lp5 = 1.818357216161805012e-01, lp6 = 1.531383769920937332e-01,
        lp7 = 1.479819860511658591e-01;
    double x = -((double)word * (1.0 / 4294967296.0));
    if (word < 8u) return widgetsim_exponential_by_log1p(x);
    double f;
    int k;
    if (word < WIDGETSIM_EXPONENTIAL_REDUCED) {
        k = 0;
        f = x;
    } else {
        double u = 1.0 + x;
        uint64_t bits;
        memcpy(&bits, &u, sizeof bits);
        uint32_t hu = (uint32_t)(bits >> 32);
        k = (int)(hu >> 20) - 1023;
        hu &= 0xfffffu;
        uint32_t high;
        if (hu < 0x6a09eu) {
            if (hu == 0) return widgetsim_exponential_by_log1p(x);
            high = hu | 0x3ff00000u; /* u scaled into [1, √2) */
        } else {
            if (hu >= 0xffffdu) return widgetsim_exponential_by_log1p(x);
            k += 1;
            high = hu | 0x3fe00000u; /* u scaled into [√2/2, 1) */
        }
        bits = (bits & 0xffffffffu) | ((uint64_t)high << 32);
        memcpy(&u, &bits, sizeof u);
        f = u - 1.0;
    }
    double hfsq = 0.5 * f * f;
    double s = f / (2.0 + f);
    double z = s * s;
    double r2 = fma(z, lp3, lp2), r3 = fma(z, lp5, lp4), r4 = fma(z, lp7, lp6);
    double z2 = z * z;
    double z4 = z2 * z2;
    double z6 = z2 * z4;
    double r = fma(z6, r4, fma(z4, r3, fma(z, lp1, z2 * r2)));
    double t = s * (hfsq + r);
    /* fdlibm's result negated: −(a − b) is b − a and −fma(a, b, −c) is fma(−a, b, c),
       bit for bit (the result is never 0 here). */
    if (k == 0) return (hfsq - t) - f;
    double kd = (double)k;
    double lo = kd * ln2_lo;
    return fma(-kd, ln2_hi, (hfsq - (t + lo)) - f);
}

WIDGETSIM_FMA_TARGET
static double widgetsim_exponential_of_word(uint32_t word) { return widgetsim_exponential_inline(word); }

static inline int widgetsim_exponential_usable(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & bit_FMA) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return 0;
    unsigned int lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6u) != 6u) return 0; /* the OS saves the vector registers */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2)) return 0;
    for (int i = 0; i < WIDGETSIM_EXPONENTIAL_PROBES; i++) {
        /* Read as volatile: with a constant argument the compiler would work glibc's
           answer out with its own log1p, on the machine that builds. */
        uint32_t word = ((const volatile uint32_t *)widgetsim_exponential_probes)[i];
        double ours = widgetsim_exponential_of_word(word);
        double glibc = -1 * log1p(-((double)word * (1.0 / 4294967296.0)));
        if (memcmp(&ours, &glibc, sizeof ours) != 0) return 0;
    }
    return 1;
}
#else
static inline double widgetsim_exponential_of_word(uint32_t word) {
    return -1 * log1p(-((double)word * (1.0 / 4294967296.0)));
}
static inline int widgetsim_exponential_usable(void) { return 0; }
#define WIDGETSIM_FMA_TARGET
#define widgetsim_exponential_inline widgetsim_exponential_of_word
#endif

/* The arrivals of WidgetSimModel's LocalHours (a Poisson process whose rate is that of
   each span's local hour), drawn from a taus2 stream held as words with
   widgetsim_exponential_inline's exponentials: WidgetSimSampling's poissonArrivals
   with LocalHours.Pieces, step for step, in one function that keeps the generator's
   state and the loop's in registers (a call per draw spills them). Used only where
   widgetsim_exponential_usable() says so; ModelTests compare it with the general loop.

   `spans` are LocalHours' spans as Swift lays them out: a 64-bit end (ms) and the
   local hour at byte 8, 16 bytes apart; `ends` their ends as doubles. The run writes
   up to `capacity` arrivals to `out`, returns how many, and sets *finished to 1 when no
   arrival is left before `end` (else the state holds where to go on, mid-piece if
   in_piece). */
typedef struct {
    double t;         /* the time reached, ms */
    double need;      /* integrated rate to go before the next arrival */
    double rate;      /* the piece's rate and end, when in_piece */
    double piece_end;
    intptr_t index;   /* the span of the last piece */
    int in_piece;
    widgetsim_taus_words words;
} widgetsim_hour_arrivals;

WIDGETSIM_FMA_TARGET
static intptr_t widgetsim_hour_arrivals_run(
    widgetsim_hour_arrivals *state, const void *spans, const double *ends, const double *hourly_rate,
    double limit, int64_t end, int64_t *out, intptr_t capacity, int *finished) {
    const unsigned char *span = (const unsigned char *)spans;
#define WIDGETSIM_SPAN_END(i) (*(const int64_t *)(const void *)(span + 16 * (i)))
#define WIDGETSIM_SPAN_RATE(i) (hourly_rate[span[16 * (i) + 8]])
    double t = state->t, need = state->need, r = state->rate, piece_end = state->piece_end;
    intptr_t index = state->index, filled = 0;
    widgetsim_taus_words w = state->words;
    *finished = 0;
    if (state->in_piece) goto piece;
    while (t < limit) {
        {
            /* LocalHours.Pieces.piece(containing: t) */
            int64_t ms = t >= 0 ? (int64_t)t : (int64_t)floor(t);
            while (WIDGETSIM_SPAN_END(index) <= ms) index++;
            double span_end = (double)WIDGETSIM_SPAN_END(index);
            r = WIDGETSIM_SPAN_RATE(index);
            piece_end = t + 1 >= span_end ? t + 1 : span_end;
        }
    piece:
        for (;;) {
            double reach = limit < piece_end ? limit : piece_end;
            double stop = reach > t ? reach : widgetsim_next_up(t);
            if (r > 0) {
                double room = r * (stop - t);
                if (need <= room) {
                    if (filled == capacity) {
                        state->in_piece = 1;
                        goto save;
                    }
                    t += need / r;
                    int64_t ms = t >= 0 ? (int64_t)t : (int64_t)floor(t);
                    if (ms >= end) goto done;
                    out[filled++] = ms;
                    need = widgetsim_exponential_inline(widgetsim_taus_next_word(&w));
                    if (t < limit && t + 1 <= piece_end) continue;
                    break;
                }
                need -= room;
            }
            t = stop;
            /* LocalHours.Pieces.skipPieces, at the span's own end before the limit */
            if (t == piece_end && t < limit && t == ends[index]) {
                intptr_t i = index;
                for (;;) {
                    i++;
                    double span_end = ends[i], span_rate = WIDGETSIM_SPAN_RATE(i);
                    if (span_end >= limit) break;
                    if (span_rate > 0) {
                        double capacity_i = span_rate * (span_end - ends[i - 1]);
                        if (need <= capacity_i) break;
                        need -= capacity_i;
                    }
                }
                index = i;
                t = ends[i - 1];
                r = WIDGETSIM_SPAN_RATE(i);
                piece_end = ends[i];
                continue;
            }
            break;
        }
    }
done:
    *finished = 1;
    state->in_piece = 0;
save:
    state->t = t;
    state->need = need;
    state->rate = r;
    state->piece_end = piece_end;
    state->index = index;
    state->words = w;
    return filled;
#undef WIDGETSIM_SPAN_END
#undef WIDGETSIM_SPAN_RATE
}

#endif

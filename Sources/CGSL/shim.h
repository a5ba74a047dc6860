#ifndef WIDGETSIM_CGSL_SHIM_H
#define WIDGETSIM_CGSL_SHIM_H

/* The GNU Scientific Library as WidgetSimSampling and WidgetSimTrace call it. */

#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_qrng.h>

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

#endif

/* `check-exponential all`: every taus2 word through widgetsim_exponential_of_word
   (CSampling's exponential.h) against glibc's log1p: the same bits for all 2^32 words,
   or the first differences and a failing exit; also counts the words it hands to glibc
   itself. `check-exponential probes`, run with glibc's FMA variants turned off
   (GLIBC_TUNABLES): widgetsim_exponential_usable() must say 0, and glibc's bits must
   differ from the fused ones on every probe word. Built and run by
   scripts/check-exponential. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "exponential.h"

static int reduced_to_glibc(uint32_t word) {
    if (word < 8u) return 1;
    if (word < WIDGETSIM_EXPONENTIAL_REDUCED) return 0;
    double u = 1.0 - (double)word * (1.0 / 4294967296.0);
    uint64_t bits;
    memcpy(&bits, &u, sizeof bits);
    uint32_t hu = (uint32_t)(bits >> 32) & 0xfffffu;
    return hu == 0 || hu >= 0xffffdu;
}

static int probes(void) {
    int failed = 0;
    if (widgetsim_exponential_usable()) {
        printf("widgetsim_exponential_usable() is 1 with glibc's FMA variants turned off\n");
        failed = 1;
    }
    for (int i = 0; i < WIDGETSIM_EXPONENTIAL_PROBES; i++) {
        uint32_t word = ((const volatile uint32_t *)widgetsim_exponential_probes)[i];
        double glibc = -1 * log1p(-((double)word * (1.0 / 4294967296.0)));
        double ours = widgetsim_exponential_of_word(word);
        if (memcmp(&ours, &glibc, sizeof ours) == 0) {
            printf("probe word %u: the same bits without FMA (%a)\n", word, glibc);
            failed = 1;
        }
    }
    printf("probes: %d words, %s\n", WIDGETSIM_EXPONENTIAL_PROBES, failed ? "FAILED" : "each tells the two apart");
    return failed;
}

static int all(void) {
    if (!widgetsim_exponential_usable()) {
        printf("widgetsim_exponential_usable() is 0 here: glibc's log1p is not the fused one\n");
        return 2;
    }
    uint64_t differ = 0, to_glibc = 0;
    for (uint64_t m = 0; m <= 0xffffffffu; m++) {
        uint32_t word = (uint32_t)m;
        double glibc = -1 * log1p(-((double)word * (1.0 / 4294967296.0)));
        double ours = widgetsim_exponential_of_word(word);
        if (memcmp(&ours, &glibc, sizeof ours) != 0) {
            if (differ < 10) printf("word %u: %a, glibc %a\n", word, ours, glibc);
            differ++;
        }
        to_glibc += reduced_to_glibc(word);
    }
    printf("words: 4294967296; differing from glibc: %llu; handed to glibc's log1p: %llu\n",
           (unsigned long long)differ, (unsigned long long)to_glibc);
    return differ == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "all") == 0) return all();
    if (argc == 2 && strcmp(argv[1], "probes") == 0) return probes();
    fprintf(stderr, "usage: check-exponential all|probes\n");
    return 64;
}

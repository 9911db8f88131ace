/* "Did you mean": the closest of a set of names to a mistyped word, by
 * edit distance (optimal string alignment: insertions, deletions,
 * substitutions and swaps of two neighbours, each 1). The one helper the
 * client's messages use for subcommands, options and scenario keys;
 * orbbench.cli.nearest is its Python twin, with the same rule. */
#ifndef ORBBENCH_SUGGEST_H
#define ORBBENCH_SUGGEST_H

#include <stddef.h>

/* Names longer than this are never suggested nor compared. */
#define SUGGEST_MAX_BYTES 128

/* One search: suggest_init, suggest_offer for every candidate, then
 * suggest_best. Holds a copy of the best candidate, so a candidate may
 * be a temporary buffer. */
struct suggest {
    const char *word;
    size_t limit;    /* the largest distance suggested */
    size_t distance; /* of best; limit + 1 while none */
    char best[SUGGEST_MAX_BYTES];
};

/* The edit distance between a and b, or SIZE_MAX when either is longer
 * than SUGGEST_MAX_BYTES - 1 bytes. Bytes, not characters: names are
 * ASCII. */
size_t suggest_distance(const char *a, const char *b);

/* Start a search for word (kept by pointer: it must outlive s). The
 * limit: 1 for words of up to 4 bytes, else 2. */
void suggest_init(struct suggest *s, const char *word);

/* Consider candidate: kept when nearer than every earlier one (the
 * first of equals wins: offer in table order) and within the limit. A
 * candidate equal to the word is not a suggestion. */
void suggest_offer(struct suggest *s, const char *candidate);

/* The nearest candidate within the limit, or NULL; owned by s. */
const char *suggest_best(const struct suggest *s);

#endif

/* "Did you mean": see suggest.h. */
#include "core/suggest.h"

#include <stdint.h>
#include <string.h>

#include "core/util.h"

size_t suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= SUGGEST_MAX_BYTES || lb >= SUGGEST_MAX_BYTES)
        return SIZE_MAX;
    /* Three rows of the dynamic programme: i-2, i-1 and i (the swap of
     * two neighbours looks two rows back). */
    size_t rows[3][SUGGEST_MAX_BYTES];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j - 1] + cost;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && before[j - 2] + 1 < d)
                d = before[j - 2] + 1;
            cur[j] = d;
        }
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void suggest_init(struct suggest *s, const char *word)
{
    s->word = word;
    s->limit = strlen(word) <= 4 ? 1 : 2;
    s->distance = s->limit + 1;
    s->best[0] = 0;
}

void suggest_offer(struct suggest *s, const char *candidate)
{
    if (strcmp(candidate, s->word) == 0)
        return;
    size_t d = suggest_distance(s->word, candidate);
    if (d < s->distance) {
        s->distance = d;
        str_copy(s->best, sizeof s->best, candidate);
    }
}

const char *suggest_best(const struct suggest *s)
{
    return s->distance <= s->limit ? s->best : NULL;
}

/* N connections spread over k servers (connection i goes to server
 * i mod k), and whether a step to more of them would pass a limit: pure
 * arithmetic for kind fanin, so its rules can be unit tested. */
#ifndef ORBBENCH_SPREAD_H
#define ORBBENCH_SPREAD_H

#include <stdbool.h>
#include <stdint.h>

/* How many of connections 0..n-1 go to server j of k (0 <= j < k). */
int64_t spread_share(int64_t n, int64_t k, int64_t j);

/* One limit a step may pass: what is in use now, the limit (< 0: none),
 * what one connection was measured to take so far (< 0: not yet) and the
 * least it takes (a socket: one descriptor). */
struct spread_limit {
    int64_t used;
    int64_t limit;
    double per_conn;
    double least;
};

/* What `added` more connections bring l->used to: used + ceil(added *
 * max(per_conn, least)), into *would. True when that is above the
 * limit. */
bool spread_over(const struct spread_limit *l, int64_t added,
                 int64_t *would);

#endif

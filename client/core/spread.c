/* Connections over servers, and limits: see spread.h. */
#include "core/spread.h"

#include <math.h>

int64_t spread_share(int64_t n, int64_t k, int64_t j)
{
    if (n <= 0 || k <= 0 || j < 0 || j >= k)
        return 0;
    return n / k + (j < n % k ? 1 : 0);
}

bool spread_over(const struct spread_limit *l, int64_t added,
                 int64_t *would)
{
    double each = l->per_conn > l->least ? l->per_conn : l->least;
    /* A measured share a hair above a whole number (1.0000001
     * descriptors) is noise, not a second descriptor. */
    double more = added > 0 ? ceil((double)added * each - 1e-3) : 0;
    *would = l->used + (int64_t)(more > 0 ? more : 0);
    return l->limit >= 0 && *would > l->limit;
}

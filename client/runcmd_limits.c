/* orbbench run: the client's descriptor limit raised for the kind's
 * connections, and what was raised recorded in the result. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "kinds/kind.h"
#include "net/transport.h"
#include "runcmd_impl.h"

static long long rlim_json(rlim_t v)
{
    return v == RLIM_INFINITY ? -1 : (long long)v;
}

/* N is bounded by the machine, not a soft limit: the soft limit goes to
 * the hard one, and when the kind needs more than that (its most
 * connections, each side, plus a margin for the client's own files), the
 * hard limit too where this process may (CAP_SYS_RESOURCE, up to
 * fs.nr_open). The spawner and servers inherit it. */
void raise_nofile(const struct kind_ops *what,
                         const struct side_setup *sides, size_t nsides,
                         struct nofile *nf)
{
    memset(nf, 0, sizeof *nf);
    if (getrlimit(RLIMIT_NOFILE, &nf->start) != 0)
        return;
    nf->now = nf->start;
    nf->needed = 256;
    for (size_t i = 0; what->max_connections && i < nsides; i++)
        nf->needed += what->max_connections(&sides[i].sc) *
                      (long long)sides[i].tp->fds_per_conn;
    struct rlimit rl = nf->start;
    if (rl.rlim_max != RLIM_INFINITY && (long long)rl.rlim_max < nf->needed) {
        struct rlimit more = {(rlim_t)nf->needed, (rlim_t)nf->needed};
        if (setrlimit(RLIMIT_NOFILE, &more) == 0)
            rl = more;
        else
            nf->err = errno;
    }
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    getrlimit(RLIMIT_NOFILE, &nf->now);
}

/* Into the result's limits: what the client started with and what it
 * raised it to (limits.nofile is the limit after). */
void record_nofile(json_t *doc, const struct nofile *nf)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I}", "soft_at_start",
                          (json_int_t)rlim_json(nf->start.rlim_cur),
                          "hard_at_start",
                          (json_int_t)rlim_json(nf->start.rlim_max), "soft",
                          (json_int_t)rlim_json(nf->now.rlim_cur), "hard",
                          (json_int_t)rlim_json(nf->now.rlim_max), "needed",
                          (json_int_t)nf->needed);
    if (nf->err)
        json_object_set_new(o, "raise_hard_error",
                            json_string(strerror(nf->err)));
    json_object_set_new(json_object_get(doc, "limits"), "nofile_raised", o);
}

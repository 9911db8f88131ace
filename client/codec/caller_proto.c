/* The caller protocol's lines: see caller_proto.h. */
#include "codec/caller_proto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A line's words, read left to right. */
struct cursor {
    const char *p;
};

/* Only printable ASCII: a line is text to quote in a message. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return false;
    return true;
}

/* The next word (up to a space or the end): its start and length; the
 * cursor moves past the one space between it and the next word (a space
 * that ends the line stays, so that the line is refused). False at the
 * end, or for an empty word (two spaces). */
static bool word(struct cursor *c, const char **w, size_t *len)
{
    if (!*c->p)
        return false;
    *w = c->p;
    *len = strcspn(c->p, " ");
    c->p += *len;
    if (c->p[0] == ' ' && c->p[1])
        c->p++;
    return *len > 0;
}

static bool word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(w, s, len) == 0;
}

/* A decimal number of `len` bytes, no sign, at most `max`. */
static bool number(const char *w, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 20)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (w[i] < '0' || w[i] > '9')
            return false;
        unsigned d = (unsigned)(w[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* The next word as a number. */
static bool next_number(struct cursor *c, uint64_t max, uint64_t *out)
{
    const char *w;
    size_t len;
    return word(c, &w, &len) && number(w, len, max, out);
}

/* The line's first word, quoted for a message (at most 40 bytes). */
static int bad(char *why, size_t why_len, const char *line, const char *what)
{
    snprintf(why, why_len, "%s: \"%.40s%s\"", what, line,
             strlen(line) > 40 ? "..." : "");
    return -EBADMSG;
}

/* A word into a buffer of `cap` bytes. */
static bool copy_word(struct cursor *c, char *dst, size_t cap)
{
    const char *w;
    size_t len;
    if (!word(c, &w, &len) || len >= cap)
        return false;
    memcpy(dst, w, len);
    dst[len] = 0;
    return true;
}

int caller_parse_reply(const char *line, struct caller_reply *r, char *why,
                       size_t why_len)
{
    struct cursor c = {line};
    const char *w;
    size_t len;
    memset(r, 0, sizeof *r);
    r->message = "";
    r->pairs = "";
    if (!printable(line)) {
        snprintf(why, why_len, "a byte outside printable ASCII");
        return -EBADMSG;
    }
    if (!word(&c, &w, &len))
        return bad(why, why_len, line, "an empty line");
    if (word_is(w, len, "ready")) {
        uint64_t pid;
        r->type = CALLER_READY;
        if (!next_number(&c, INT32_MAX, &pid) || pid == 0 ||
            !copy_word(&c, r->mode, sizeof r->mode) || *c.p)
            return bad(why, why_len, line, "expected \"ready PID MODE\"");
        r->pid = (int64_t)pid;
    } else if (word_is(w, len, "ok")) {
        r->type = CALLER_OK;
        if (!next_number(&c, UINT32_MAX, &r->count) || *c.p)
            return bad(why, why_len, line, "expected \"ok K\"");
    } else if (word_is(w, len, "error")) {
        r->type = CALLER_ERROR;
        r->message = c.p;
    } else if (word_is(w, len, "times")) {
        r->type = CALLER_TIMES;
        if (!next_number(&c, UINT64_MAX, &r->seq))
            return bad(why, why_len, line, "expected \"times SEQ S C ...\"");
        r->pairs = c.p;
    } else if (word_is(w, len, "fail")) {
        r->type = CALLER_FAIL;
        if (!next_number(&c, UINT64_MAX, &r->seq) ||
            !next_number(&c, UINT32_MAX, &r->index) ||
            !copy_word(&c, r->word, sizeof r->word))
            return bad(why, why_len, line,
                       "expected \"fail SEQ I WORD MESSAGE\"");
        r->message = c.p;
    } else if (word_is(w, len, "done")) {
        uint64_t ns;
        r->type = CALLER_DONE;
        if (!next_number(&c, UINT64_MAX, &r->seq) ||
            !next_number(&c, UINT32_MAX, &r->calls) ||
            !next_number(&c, UINT32_MAX, &r->failed) ||
            !next_number(&c, INT64_MAX, &ns) || *c.p)
            return bad(why, why_len, line,
                       "expected \"done SEQ CALLS FAILED ROUND_NS\"");
        r->round_ns = (int64_t)ns;
    } else {
        return bad(why, why_len, line, "not a reply of the protocol");
    }
    return 0;
}

int caller_times_next(const char **p, int64_t *service_ns,
                      int64_t *completion_ns)
{
    struct cursor c = {*p};
    uint64_t s, d;
    if (!*c.p)
        return 0;
    if (!next_number(&c, INT64_MAX, &s) || !next_number(&c, INT64_MAX, &d))
        return -EBADMSG;
    *service_ns = (int64_t)s;
    *completion_ns = (int64_t)d;
    *p = c.p;
    return 1;
}

int caller_parse_cmd(const char *line, struct caller_cmd *cmd, char *why,
                     size_t why_len)
{
    struct cursor c = {line};
    const char *w;
    size_t len;
    memset(cmd, 0, sizeof *cmd);
    if (!printable(line)) {
        snprintf(why, why_len, "a byte outside printable ASCII");
        return -EBADMSG;
    }
    if (!word(&c, &w, &len))
        return bad(why, why_len, line, "an empty line");
    if (word_is(w, len, "target")) {
        cmd->type = CALLER_TARGET;
        cmd->ior = c.p;
        if (!*c.p || strchr(c.p, ' '))
            return bad(why, why_len, line, "expected \"target IOR\"");
    } else if (word_is(w, len, "drop")) {
        cmd->type = CALLER_DROP;
        if (!next_number(&c, UINT32_MAX, &cmd->k) || *c.p)
            return bad(why, why_len, line, "expected \"drop K\"");
    } else if (word_is(w, len, "round")) {
        uint64_t rec;
        cmd->type = CALLER_ROUND;
        if (!next_number(&c, UINT64_MAX, &cmd->seq) ||
            !next_number(&c, UINT32_MAX, &cmd->n) || cmd->n == 0 ||
            !next_number(&c, 1, &rec) || *c.p)
            return bad(why, why_len, line,
                       "expected \"round SEQ N RECORD\" (N >= 1, RECORD 0 "
                       "or 1)");
        cmd->record = rec == 1;
    } else if (word_is(w, len, "quit")) {
        cmd->type = CALLER_QUIT;
        if (*c.p)
            return bad(why, why_len, line, "expected \"quit\"");
    } else {
        return bad(why, why_len, line, "not a command of the protocol");
    }
    return 0;
}

int caller_format_times(char *buf, size_t len, uint64_t seq,
                        const int64_t *service_ns,
                        const int64_t *completion_ns, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int k;
        if (i % CALLER_TIMES_PER_LINE == 0) {
            k = snprintf(buf + used, len - used, "%stimes %" PRIu64,
                         i ? "\n" : "", seq);
            if (k < 0 || (size_t)k >= len - used)
                return -ENOSPC;
            used += (size_t)k;
        }
        k = snprintf(buf + used, len - used, " %" PRId64 " %" PRId64,
                     service_ns[i] < 0 ? 0 : service_ns[i],
                     completion_ns[i] < 0 ? 0 : completion_ns[i]);
        if (k < 0 || (size_t)k >= len - used)
            return -ENOSPC;
        used += (size_t)k;
    }
    if (n) {
        if (used + 1 >= len)
            return -ENOSPC;
        buf[used++] = '\n';
        buf[used] = 0;
    }
    return (int)used;
}

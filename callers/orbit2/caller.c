/* ORBit2's own client for orbbench, in C against ORBit2's C mapping: the
 * caller protocol (callers/common/caller.h, docs/callers.md) with calls
 * made by ORBit2.
 *   sync   the static stub, Bench_Echo_echoString, one call after another
 *   async  ORBit_small_invoke_async for every target, then the main loop
 *          until every reply's callback has run: no thread per
 *          outstanding call, one thread in all
 * The ORB is ORBit2's default ("orbit-local-orb": thread-safe, no I/O
 * thread), configured by its command line only (no orbitrc files); it
 * starts no server, so the caller listens on nothing. ORBit2's own call
 * timeout (GIOPTimeoutMSEC) exists only with its I/O thread and over
 * IIOP; the caller keeps --timeout-ms itself the way that timeout does:
 * a call not answered in time is a TIMEOUT and its connection is closed
 * (the next call to that server reconnects). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <orbit/orbit.h>

#include "echo.h"
#include "../common/caller.h"

#ifndef ORBBENCH_ORBIT2_BUILD
#define ORBBENCH_ORBIT2_BUILD "unknown"
#endif

/* linc's main context (exported by libORBit-2, its header not
 * installed): where ORBit2 without an I/O thread reads its connections,
 * and where the caller's timers go so that a blocked call wakes for
 * them. */
extern GMainContext *link_main_get_context(void);
/* Close a GIOP connection (exported, header not installed): what
 * ORBit2's own timeout does to a connection whose reply is late. */
extern void giop_connection_close(ORBitConnection *cnx);

/* Under LeakSanitizer (make SANITIZE=address): what ORBit2 and glib keep
 * until exit is theirs, not the caller's; the caller's own leaks are
 * still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libORBit-2.so\nleak:libglib-2.0.so\n"
           "leak:libgobject-2.0.so\n";
}

static const char *const modes[] = {"sync", "async", NULL};
enum { mode_sync, mode_async };

static struct caller_ops ops;

struct state {
    CORBA_ORB orb;
    int mode;
    CORBA_Object *targets;
    size_t held, cap;
    GMainContext *ctx;
};

static void exception_word(CORBA_Environment *ev, char *word, size_t size)
{
    caller_exception_word(CORBA_exception_id(ev), word, size);
}

static int add_target(void *sp, const char *ior, char *err, size_t err_size)
{
    struct state *s = sp;
    if (s->held == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        CORBA_Object *nt = realloc(s->targets, ncap * sizeof *nt);
        if (!nt) {
            snprintf(err, err_size, "out of memory");
            return -1;
        }
        s->targets = nt;
        s->cap = ncap;
    }
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_Object obj = CORBA_ORB_string_to_object(s->orb, ior, &ev);
    if (ev._major != CORBA_NO_EXCEPTION || obj == CORBA_OBJECT_NIL) {
        char word[64] = "nil object";
        if (ev._major != CORBA_NO_EXCEPTION)
            exception_word(&ev, word, sizeof word);
        snprintf(err, err_size, "string_to_object: %s", word);
        CORBA_exception_free(&ev);
        return -1;
    }
    s->targets[s->held++] = obj;
    return 0;
}

static void drop_targets(void *sp, size_t keep)
{
    struct state *s = sp;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    while (s->held > keep) {
        CORBA_Object_release(s->targets[--s->held], &ev);
        CORBA_exception_free(&ev);
    }
}

/* ---- sync: one stub call after another ------------------------------- */

struct sync_timer {
    CORBA_Object target;
    int fired;
};

/* A call outlived --timeout-ms: end it as ORBit2's own timeout would,
 * by closing its connection (the blocked call then returns). */
static gboolean sync_timeout(gpointer data)
{
    struct sync_timer *t = data;
    t->fired = 1;
    ORBitConnection *cnx = ORBit_small_get_connection(t->target);
    if (cnx)
        giop_connection_close(cnx);
    return G_SOURCE_REMOVE;
}

static void round_sync(struct state *s, struct caller_round *r)
{
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    for (size_t i = 0; i < r->n; i++) {
        struct sync_timer t = {s->targets[i], 0};
        GSource *timer = g_timeout_source_new((guint)r->timeout_ms);
        g_source_set_callback(timer, sync_timeout, &t, NULL);
        g_source_attach(timer, s->ctx);
        r->calls[i].sent_ns = caller_now_ns();
        CORBA_string reply = Bench_Echo_echoString(s->targets[i], r->payload,
                                                   &ev);
        g_source_destroy(timer);
        g_source_unref(timer);
        if (ev._major != CORBA_NO_EXCEPTION) {
            char word[64];
            exception_word(&ev, word, sizeof word);
            if (t.fired)
                caller_call_fail(r, i, "TIMEOUT", "no reply within %ld ms "
                                 "(its connection closed: %s)",
                                 r->timeout_ms, word);
            else
                caller_call_fail(r, i, word, "echoString: %s",
                                 CORBA_exception_id(&ev));
            CORBA_exception_free(&ev);
            continue;
        }
        caller_call_reply(r, i, reply, strlen(reply));
        CORBA_free(reply);
    }
}

/* ---- async: ORBit_small_invoke_async, then the main loop ------------- */

/* One outstanding call. A reply that comes after its round gave up on it
 * (a timeout closed its connection) finds its round gone and is only
 * freed. */
struct async_call {
    struct caller_round *r;      /* NULL once the round has given up */
    size_t index;
    size_t *outstanding;
};

/* Every async call of the running round, by target, to detach the late
 * ones when the round ends. */
static struct async_call **async_calls;
static size_t async_calls_cap;

static void async_reply(CORBA_Object obj, ORBit_IMethod *m_data,
                        ORBitAsyncQueueEntry *aqe, gpointer user_data,
                        CORBA_Environment *ev)
{
    (void)obj, (void)m_data;
    struct async_call *c = user_data;
    struct caller_round *r = c->r;
    if (!r) {
        free(c);
        return;
    }
    async_calls[c->index] = NULL;
    (*c->outstanding)--;
    char word[64];
    if (ev->_major != CORBA_NO_EXCEPTION) {
        exception_word(ev, word, sizeof word);
        caller_call_fail(r, c->index, word, "echoString (async): %s",
                         CORBA_exception_id(ev));
        free(c);
        return;
    }
    CORBA_string reply = NULL;
    CORBA_Environment dev;
    CORBA_exception_init(&dev);
    ORBit_small_demarshal_async(aqe, &reply, NULL, &dev);
    if (dev._major != CORBA_NO_EXCEPTION) {
        exception_word(&dev, word, sizeof word);
        caller_call_fail(r, c->index, word, "echoString (async reply): %s",
                         CORBA_exception_id(&dev));
        CORBA_exception_free(&dev);
    } else {
        caller_call_reply(r, c->index, reply, reply ? strlen(reply) : 0);
    }
    CORBA_free(reply);
    free(c);
}

static gboolean set_flag(gpointer data)
{
    *(int *)data = 1;
    return G_SOURCE_REMOVE;
}

static void round_async(struct state *s, struct caller_round *r)
{
    if (r->n > async_calls_cap) {
        struct async_call **nc = realloc(async_calls, r->n * sizeof *nc);
        if (!nc) {
            for (size_t i = 0; i < r->n; i++)
                caller_call_fail(r, i, "NO_MEMORY", "the caller's call table");
            return;
        }
        async_calls = nc;
        async_calls_cap = r->n;
    }
    ORBit_IMethod *echo_string =
        &Bench_Echo__iinterface.methods._buffer
             [Bench_Echo_echoString__imethods_index];
    /* The round ends T after it began: requests not sent by then are not
     * sent, replies not read by then are TIMEOUTs. */
    int64_t deadline_ns = r->start_ns + r->timeout_ms * 1000000LL;
    size_t outstanding = 0;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    for (size_t i = 0; i < r->n; i++) {
        async_calls[i] = NULL;
        if (caller_now_ns() >= deadline_ns) {
            caller_call_fail(r, i, "TIMEOUT", "not sent: the round's %ld ms "
                             "had passed", r->timeout_ms);
            continue;
        }
        struct async_call *c = malloc(sizeof *c);
        if (!c) {
            caller_call_fail(r, i, "NO_MEMORY", "the caller's call record");
            continue;
        }
        *c = (struct async_call){r, i, &outstanding};
        const char *mesg = r->payload;
        gpointer args[1] = {(gpointer)&mesg};
        r->calls[i].sent_ns = caller_now_ns();
        ORBit_small_invoke_async(s->targets[i], echo_string, async_reply, c,
                                 args, CORBA_OBJECT_NIL, &ev);
        if (ev._major != CORBA_NO_EXCEPTION) {
            char word[64];
            exception_word(&ev, word, sizeof word);
            caller_call_fail(r, i, word, "ORBit_small_invoke_async: %s",
                             CORBA_exception_id(&ev));
            CORBA_exception_free(&ev);
            free(c);
            continue;
        }
        async_calls[i] = c;
        outstanding++;
    }
    int expired = 0;
    int64_t left_ms = (deadline_ns - caller_now_ns()) / 1000000;
    GSource *timer = g_timeout_source_new(left_ms > 0 ? (guint)left_ms : 0);
    g_source_set_callback(timer, set_flag, &expired, NULL);
    g_source_attach(timer, s->ctx);
    while (outstanding > 0 && !expired)
        g_main_context_iteration(s->ctx, TRUE);
    g_source_destroy(timer);
    g_source_unref(timer);
    for (size_t i = 0; i < r->n; i++) {
        struct async_call *c = async_calls[i];
        if (!c)
            continue;
        c->r = NULL;  /* its callback only frees it now */
        caller_call_fail(r, i, "TIMEOUT", "no reply within the round's %ld "
                         "ms (its connection closed)", r->timeout_ms);
        ORBitConnection *cnx = ORBit_small_get_connection(s->targets[i]);
        if (cnx)
            giop_connection_close(cnx);
    }
}

static void round_any(void *sp, struct caller_round *r)
{
    struct state *s = sp;
    if (s->mode == mode_async)
        round_async(s, r);
    else
        round_sync(s, r);
}

/* ORBit2 makes its socket folder at ORB_init (/tmp/orbit-$USER unless
 * ORBIT_SOCKETDIR names one), though a client puts nothing in it. An
 * inherited ORBIT_SOCKETDIR is used as it is; otherwise the caller gives
 * ORBit2 a private folder and removes it once ORB_init is done, so that
 * nothing is left behind, not even after SIGKILL. */
static char private_dir[64];

static int make_socket_dir(void)
{
    if (getenv("ORBIT_SOCKETDIR"))
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(private_dir, sizeof private_dir, "%s/orbbench-caller-XXXXXX",
             tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(private_dir) ||
        setenv("ORBIT_SOCKETDIR", private_dir, 1) != 0) {
        caller_warn(&ops, "a private ORBIT_SOCKETDIR: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    ops = (struct caller_ops){
        .orb_name = "ORBit2", .orb_version = orbit_version,
        .build_info = ORBBENCH_ORBIT2_BUILD, .modes = modes,
        .add_target = add_target, .drop_targets = drop_targets,
        .round = round_any,
    };
    struct caller_options opt;
    int rc = caller_parse(argc, argv, &ops, &opt);
    if (rc >= 0)
        return rc;
    if (caller_die_with_parent() != 0)
        return 3;
    if (make_socket_dir() != 0)
        return 1;
    /* Only the command line configures the ORB: ORBit2 sets its flag
     * options from a word after them (see servers/orbit2). */
    static char *fixed[] = {"-ORBNoSystemRC", "1", "-ORBNoUserRC", "1"};
    enum { nfixed = sizeof fixed / sizeof fixed[0] };
    char **args = calloc((size_t)opt.orb_argc + nfixed + 1, sizeof *args);
    if (!args)
        return 1;
    int nargs = 0;
    args[nargs++] = opt.orb_argv[0];
    for (int i = 0; i < nfixed; i++)
        args[nargs++] = fixed[i];
    for (int i = 1; i < opt.orb_argc; i++)
        args[nargs++] = opt.orb_argv[i];
    args[nargs] = NULL;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    struct state s = {.mode = (int)opt.mode_index};
    s.orb = CORBA_ORB_init(&nargs, args, "orbit-local-orb", &ev);
    if (private_dir[0])
        rmdir(private_dir);
    if (ev._major != CORBA_NO_EXCEPTION) {
        caller_warn(&ops, "ORB_init: %s", CORBA_exception_id(&ev));
        return 1;
    }
    for (int i = 1; i < nargs; i++) {
        if (args[i][0]) {
            caller_warn(&ops, "unknown ORB argument \"%s\"", args[i]);
            return 2;
        }
    }
    s.ctx = link_main_get_context();
    rc = caller_serve(&ops, &s, &opt);
    CORBA_ORB_destroy(s.orb, &ev);
    CORBA_exception_free(&ev);
    free(s.targets);
    free(args);
    return rc;
}

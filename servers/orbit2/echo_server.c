/* ORBit2 echo server for orbbench, in C against ORBit2's C mapping:
 * activates one Bench::Echo object in the RootPOA, prints its stringified
 * IOR as one line on stdout, and serves until killed.
 *   --version      prints "ORBit2 <version>" and, on a second line, how
 *                  this ORBit2 was built (ORBBENCH_ORBIT2_BUILD, from
 *                  scripts/build-orb's BUILD_INFO)
 *   --work-us N    each call burns N us of CPU before replying
 *   --socket-dir D ORBit2's socket folder (ORBIT_SOCKETDIR): where its
 *                  Unix sockets go; without it ORBit2 makes and uses
 *                  /tmp/orbit-$USER
 *   --thread-per-request     ORBIT_THREAD_HINT_PER_REQUEST (on a child POA
 *                            of the ORB_CTRL_MODEL)
 *   --thread-per-connection  ORBIT_THREAD_HINT_PER_CONNECTION (the same)
 * The server model is ORBit2's: by default one thread runs the GMainLoop
 * (linc's sources) and every upcall in it. A thread hint gives the ORB an
 * I/O thread that reads every connection and hands each request to a
 * thread of glib's pool (GThreadPool, unbounded, idle threads kept): any
 * free one (per request), or the one that holds that connection's queue
 * (per connection).
 * Endpoints are ORBit2's options (-ORBIIOPIPv4=1 -ORBIIOPIPName=127.0.0.1,
 * -ORBIIOPUSock=1 -ORBIIOPIPSock=PATH); before them the server turns off
 * what could listen elsewhere: the orbitrc files (system and ~/.orbitrc),
 * IPv6, IrDA and SSL, and it accepts local peers only (ORBLocalOnly).
 * makeObjects (kind objects) makes more Bench::Echo objects, as the C++
 * servers do (servers/common/objects.hh), in C. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <orbit/orbit.h>
#include <orbit/poa/orbit-adaptor.h>

#include "echo.h"
#include "../common/work.h"

#ifndef ORBBENCH_ORBIT2_BUILD
#define ORBBENCH_ORBIT2_BUILD "unknown"
#endif

static const char prog[] = "echo-server";
enum { max_work_us = 1000000 };

static long work_us;
static unsigned long long oneways;

/* The steps that burn work_us of CPU (../common/work.h), counted once at
 * start-up. */
static unsigned long long work_steps_per_call;

static void work(void)
{
    if (work_steps_per_call > 0)
        spin_steps(work_steps_per_call);
}

static CORBA_string echo_string(PortableServer_Servant self,
                                const CORBA_char *mesg,
                                CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return CORBA_string_dup(mesg);
}

static void send_oneway(PortableServer_Servant self, const CORBA_char *mesg,
                        CORBA_Environment *ev)
{
    (void)self, (void)mesg, (void)ev;
    work();
    __atomic_fetch_add(&oneways, 1, __ATOMIC_RELAXED);
}

static CORBA_string oneway_count(PortableServer_Servant self,
                                 CORBA_Environment *ev)
{
    (void)self, (void)ev;
    char buf[24];
    snprintf(buf, sizeof buf, "%llu",
             __atomic_load_n(&oneways, __ATOMIC_RELAXED));
    return CORBA_string_dup(buf);
}

/* The typed payloads (call.payload): each returns a copy of its argument,
 * as the C mapping asks of an out value (the skeleton frees it). */
static void echo_none(PortableServer_Servant self, CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
}

static Bench_Octet1K *echo_octet1k(PortableServer_Servant self,
                                   const Bench_Octet1K *v,
                                   CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return ORBit_copy_value(v, TC_Bench_Octet1K);
}

static Bench_Octet100K *echo_octet100k(PortableServer_Servant self,
                                       const Bench_Octet100K *v,
                                       CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return ORBit_copy_value(v, TC_Bench_Octet100K);
}

static Bench_Odometry echo_odometry(PortableServer_Servant self,
                                    const Bench_Odometry *v,
                                    CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return *v; /* fixed-size: returned by value */
}

static Bench_RangeSensor *echo_range_sensor(PortableServer_Servant self,
                                            const Bench_RangeSensor *v,
                                            CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return ORBit_copy_value(v, TC_Bench_RangeSensor);
}

static Bench_SharedBelief *echo_shared_belief(PortableServer_Servant self,
                                              const Bench_SharedBelief *v,
                                              CORBA_Environment *ev)
{
    (void)self, (void)ev;
    work();
    return ORBit_copy_value(v, TC_Bench_SharedBelief);
}

static CORBA_unsigned_long_long make_objects(PortableServer_Servant self,
                                             CORBA_unsigned_long count,
                                             CORBA_boolean shared,
                                             CORBA_Object *first,
                                             CORBA_Object *last,
                                             CORBA_char **policies,
                                             CORBA_Environment *ev);

static PortableServer_ServantBase__epv base_epv;
static POA_Bench_Echo__epv echo_epv = {
    .echoString = echo_string,
    .sendOneway = send_oneway,
    .onewayCount = oneway_count,
    .echoNone = echo_none,
    .echoOctet1K = echo_octet1k,
    .echoOctet100K = echo_octet100k,
    .echoOdometry = echo_odometry,
    .echoRangeSensor = echo_range_sensor,
    .echoSharedBelief = echo_shared_belief,
    .makeObjects = make_objects,
};
static POA_Bench_Echo__vepv echo_vepv = {&base_epv, &echo_epv};
static POA_Bench_Echo servant = {NULL, &echo_vepv};

/* idl/echo.idl's makeObjects (docs/kinds/objects.md), as the C++ servers
 * make them: one child POA of the RootPOA, "objects", made at the first
 * call under the RootPOA's manager, with USER_ID, RETAIN and
 * USE_ACTIVE_OBJECT_MAP_ONLY (a servant each); object i's ObjectId is i as
 * 8 decimal digits. The POA's thread policy is ORBit2's default for a
 * child (the main loop's thread, as the RootPOA's).
 * One servant for every object is not a default servant here:
 * ORBit2 2.14.19 cannot make a reference in a NON_RETAIN POA (its
 * PortableServer_POA_create_reference_with_id, src/orb/poa/poa.c, hands
 * the object it looked up, NULL for a new id, to ORBit_POA_obj_to_ref
 * instead of the one it made, and that asserts: the server aborts). So
 * the one servant is activated under every id (USER_ID, RETAIN,
 * USE_ACTIVE_OBJECT_MAP_ONLY, MULTIPLE_ID): an entry each in the active
 * object map, as ORBit2 keeps one (an ORBit_POAObject) for every
 * reference it makes in a NON_RETAIN POA too (ORBit_POA_create_object_T
 * inserts it in oid_to_obj_map whatever the policies). */
enum { max_objects_per_call = 1 << 20, max_objects = 99999999 };
static PortableServer_POA objects_poa;
static CORBA_boolean objects_shared;
static POA_Bench_Echo *objects_servant; /* with objects_shared */
static unsigned long objects_made;

static unsigned long long monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* A servant of makeObjects, or NULL with ev set. */
static POA_Bench_Echo *new_servant(CORBA_Environment *ev)
{
    POA_Bench_Echo *sv = calloc(1, sizeof *sv);
    if (!sv) {
        CORBA_exception_set_system(ev, ex_CORBA_NO_MEMORY,
                                   CORBA_COMPLETED_NO);
        return NULL;
    }
    sv->vepv = &echo_vepv;
    POA_Bench_Echo__init(sv, ev);
    if (ev->_major != CORBA_NO_EXCEPTION) {
        free(sv);
        return NULL;
    }
    return sv;
}

/* The POA "objects" under the RootPOA (self's), for `shared` objects. */
static void start_objects(PortableServer_Servant self, CORBA_boolean shared,
                          CORBA_Environment *ev)
{
    PortableServer_POA root = PortableServer_ServantBase__default_POA(self,
                                                                      ev);
    if (ev->_major != CORBA_NO_EXCEPTION)
        return;
    PortableServer_POAManager mgr =
        PortableServer_POA__get_the_POAManager(root, ev);
    CORBA_Policy p[4];
    CORBA_unsigned_long n = 0;
    p[n++] = (CORBA_Policy)PortableServer_POA_create_id_assignment_policy(
        root, PortableServer_USER_ID, ev);
    p[n++] = (CORBA_Policy)PortableServer_POA_create_servant_retention_policy(
        root, PortableServer_RETAIN, ev);
    p[n++] = (CORBA_Policy)
        PortableServer_POA_create_request_processing_policy(
            root, PortableServer_USE_ACTIVE_OBJECT_MAP_ONLY, ev);
    if (shared)
        p[n++] = (CORBA_Policy)PortableServer_POA_create_id_uniqueness_policy(
            root, PortableServer_MULTIPLE_ID, ev);
    CORBA_PolicyList policies = {n, n, p, CORBA_FALSE};
    PortableServer_POA poa = NULL;
    if (ev->_major == CORBA_NO_EXCEPTION)
        poa = PortableServer_POA_create_POA(root, "objects", mgr, &policies,
                                            ev);
    CORBA_Environment quiet;
    CORBA_exception_init(&quiet);
    for (CORBA_unsigned_long i = 0; i < n; i++) {
        CORBA_Policy_destroy(p[i], &quiet);
        CORBA_Object_release((CORBA_Object)p[i], &quiet);
    }
    CORBA_Object_release((CORBA_Object)mgr, &quiet);
    CORBA_Object_release((CORBA_Object)root, &quiet);
    if (ev->_major != CORBA_NO_EXCEPTION)
        return;
    if (shared && !(objects_servant = new_servant(ev)))
        return;
    objects_poa = poa;
    objects_shared = shared;
}

static CORBA_unsigned_long_long make_objects(PortableServer_Servant self,
                                             CORBA_unsigned_long count,
                                             CORBA_boolean shared,
                                             CORBA_Object *first,
                                             CORBA_Object *last,
                                             CORBA_char **policies,
                                             CORBA_Environment *ev)
{
    *first = *last = CORBA_OBJECT_NIL;
    *policies = NULL;
    if (count == 0 || count > max_objects_per_call ||
        count > max_objects - objects_made) {
        CORBA_exception_set_system(ev, ex_CORBA_BAD_PARAM,
                                   CORBA_COMPLETED_NO);
        return 0;
    }
    if (!objects_poa) {
        start_objects(self, shared, ev);
        if (ev->_major != CORBA_NO_EXCEPTION)
            return 0;
    } else if (shared != objects_shared) {
        CORBA_exception_set_system(ev, ex_CORBA_BAD_INV_ORDER,
                                   CORBA_COMPLETED_NO);
        return 0;
    }
    unsigned long long t0 = monotonic_ns();
    for (CORBA_unsigned_long k = 0; k < count; k++) {
        char id[16];
        snprintf(id, sizeof id, "%08lu", objects_made + k);
        PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId(
            id, ev);
        CORBA_Object ref = CORBA_OBJECT_NIL;
        if (ev->_major == CORBA_NO_EXCEPTION) {
            POA_Bench_Echo *sv = shared ? objects_servant : new_servant(ev);
            if (sv)
                PortableServer_POA_activate_object_with_id(objects_poa, oid,
                                                           sv, ev);
            if (ev->_major == CORBA_NO_EXCEPTION)
                ref = PortableServer_POA_id_to_reference(objects_poa, oid,
                                                         ev);
        }
        CORBA_free(oid);
        if (ev->_major != CORBA_NO_EXCEPTION) {
            objects_made += k;
            return 0;
        }
        if (k == 0)
            *first = CORBA_Object_duplicate(ref, ev);
        if (k + 1 == count)
            *last = CORBA_Object_duplicate(ref, ev);
        CORBA_Object_release(ref, ev);
    }
    unsigned long long ns = monotonic_ns() - t0;
    objects_made += count;
    *policies = CORBA_string_dup(
        shared ? "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY MULTIPLE_ID"
               : "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY");
    return ns;
}

/* Take every `NAME V` / `NAME=V` out of argv (the ORB must never see it)
 * into *value (the last one counts); 0, or -1 when one has no value. */
static int take_option(int *argc, char **argv, const char *name,
                       const char **value)
{
    size_t name_len = strlen(name);
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, name);
                return -1;
            }
            *value = argv[++i];
        } else if (strncmp(argv[i], name, name_len) == 0 &&
                   argv[i][name_len] == '=') {
            *value = argv[i] + name_len + 1;
        } else {
            argv[out++] = argv[i];
        }
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

/* `--work-us N`: N an integer in [0, max_work_us], digits only. */
static int take_work_us(int *argc, char **argv)
{
    const char *val = NULL;
    if (take_option(argc, argv, "--work-us", &val) != 0)
        return -1;
    if (!val)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (!isdigit((unsigned char)val[0]) || errno || *end || v < 0 ||
        v > max_work_us) {
        fprintf(stderr, "%s: --work-us: \"%s\" is not an integer in "
                "[0, %d]\n", prog, val, max_work_us);
        return -1;
    }
    work_us = v;
    return 0;
}

/* Take every `name` out of argv; was it there? */
static int take_flag(int *argc, char **argv, const char *name)
{
    int out = 1, seen = 0;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], name) == 0)
            seen = 1;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
    return seen;
}

/* Die with the spawner (nothing may outlive the benchmark); SIGTERM keeps
 * its default action. -1 when the parent is already gone. */
static int die_with_parent(void)
{
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return -1;
    signal(SIGTERM, SIG_DFL);
    return 0;
}

static int failed(const char *what, CORBA_Environment *ev)
{
    if (ev->_major == CORBA_NO_EXCEPTION)
        return 0;
    fprintf(stderr, "%s: %s: CORBA exception %s\n", prog, what,
            CORBA_exception_id(ev));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("ORBit2 %s\n%s\n", orbit_version, ORBBENCH_ORBIT2_BUILD);
        return 0;
    }
    const char *socket_dir = NULL;
    if (take_work_us(&argc, argv) != 0 ||
        take_option(&argc, argv, "--socket-dir", &socket_dir) != 0)
        return 2;
    work_steps_per_call = work_steps(work_us * 1000LL);
    int per_request = take_flag(&argc, argv, "--thread-per-request");
    int per_connection = take_flag(&argc, argv, "--thread-per-connection");
    if (per_request && per_connection) {
        fprintf(stderr, "%s: --thread-per-request and "
                "--thread-per-connection: give one\n", prog);
        return 2;
    }
    if (die_with_parent() != 0)
        return 3;
    /* ORBit2 reads its socket folder from the environment only; the
     * spawner drops an inherited one, so this is the command line's.
     * One it deems unsafe (not ours, or open to others) it ignores
     * without a word for /tmp/orbit-$USER (giop.c, test_safe_socket_dir):
     * refuse it here instead. */
    struct stat st;
    if (socket_dir && (stat(socket_dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
                       (getuid() != 0 && st.st_uid != getuid()) ||
                       (st.st_mode & (S_IRWXG | S_IRWXO)))) {
        fprintf(stderr, "%s: --socket-dir %s: not a folder of this user's "
                "that only it may use (ORBit2 would ignore it)\n", prog,
                socket_dir);
        return 2;
    }
    if (socket_dir && setenv("ORBIT_SOCKETDIR", socket_dir, 1) != 0) {
        fprintf(stderr, "%s: setenv ORBIT_SOCKETDIR: %s\n", prog,
                strerror(errno));
        return 1;
    }
    /* What could listen beyond the command line's endpoints goes first,
     * so that the endpoint words (and server.args) after it decide. The
     * orbitrc files are read before the command line and could turn on
     * IPv6 or name 0.0.0.0; ORBit2 2.14 sets its flag options
     * (ORBNoSystemRC, ORBNoUserRC) only from a word after them that does
     * not start with '-' (ORBit_option_command_line_parse), so each gets
     * one: alone, ~/.orbitrc was read (tests/e2e/test_orbit2.py). */
    static char *fixed[] = {"-ORBNoSystemRC", "1", "-ORBNoUserRC", "1",
                            "-ORBIIOPIPv6=0", "-ORBIIOPIrDA=0",
                            "-ORBIIOPSSL=0", "-ORBLocalOnly=1"};
    enum { nfixed = sizeof fixed / sizeof fixed[0] };
    char **args = calloc((size_t)argc + nfixed + 1, sizeof *args);
    if (!args)
        return 1;
    int nargs = 0;
    args[nargs++] = argv[0];
    for (int i = 0; i < nfixed; i++)
        args[nargs++] = fixed[i];
    for (int i = 1; i < argc; i++)
        args[nargs++] = argv[i];
    args[nargs] = NULL;

    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    /* The ORB's default identity: thread-safe (an I/O thread only when a
     * thread hint asks for one), requests served from the GMainLoop. */
    CORBA_ORB orb = CORBA_ORB_init(&nargs, args, "orbit-local-orb", &ev);
    if (failed("ORB_init", &ev))
        return 1;
    for (int i = 1; i < nargs; i++) {
        if (args[i][0]) {
            fprintf(stderr, "%s: unknown argument \"%s\"\n", prog, args[i]);
            return 2;
        }
    }
    PortableServer_POA poa = (PortableServer_POA)
        CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
    if (failed("resolve RootPOA", &ev))
        return 1;
    PortableServer_POAManager mgr =
        PortableServer_POA__get_the_POAManager(poa, &ev);
    if (failed("the_POAManager", &ev))
        return 1;
    /* ORBit2's POAs, the RootPOA too, have the SINGLE_THREAD_MODEL unless
     * told otherwise (src/orb/poa/poa.c, ORBit_POA_set_policies): upcalls
     * in the main loop's thread, whatever the thread hint says. A thread
     * hint needs a POA of the ORB_CTRL_MODEL: a child of the RootPOA,
     * under its manager. */
    if (per_request || per_connection) {
        CORBA_Policy policy = (CORBA_Policy)
            PortableServer_POA_create_thread_policy(
                poa, PortableServer_ORB_CTRL_MODEL, &ev);
        if (failed("create_thread_policy", &ev))
            return 1;
        CORBA_PolicyList policies = {1, 1, &policy, CORBA_FALSE};
        poa = PortableServer_POA_create_POA(poa, "orbbench", mgr, &policies,
                                            &ev);
        if (failed("create_POA", &ev))
            return 1;
        CORBA_Policy_destroy(policy, &ev);
        CORBA_Object_release(policy, &ev);
        ORBit_ObjectAdaptor_set_thread_hint(
            (ORBit_ObjectAdaptor)poa,
            per_request ? ORBIT_THREAD_HINT_PER_REQUEST
                        : ORBIT_THREAD_HINT_PER_CONNECTION);
    }
    POA_Bench_Echo__init(&servant, &ev);
    if (failed("POA_Bench_Echo__init", &ev))
        return 1;
    PortableServer_ObjectId *oid =
        PortableServer_POA_activate_object(poa, &servant, &ev);
    if (failed("activate_object", &ev))
        return 1;
    CORBA_free(oid);
    CORBA_Object ref = PortableServer_POA_servant_to_reference(poa, &servant,
                                                               &ev);
    if (failed("servant_to_reference", &ev))
        return 1;
    PortableServer_POAManager_activate(mgr, &ev);
    if (failed("POAManager activate", &ev))
        return 1;
    CORBA_char *ior = CORBA_ORB_object_to_string(orb, ref, &ev);
    if (failed("object_to_string", &ev))
        return 1;
    printf("%s\n", ior);
    fflush(stdout);
    CORBA_free(ior);
    CORBA_ORB_run(orb, &ev);
    return failed("ORB run", &ev);
}

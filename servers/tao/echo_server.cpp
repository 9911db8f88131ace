// TAO echo server for orbbench: activates one Bench::Echo object (the
// servant of servers/common/echo_servant.hh) in the RootPOA, prints its
// stringified IOR as one line on stdout, and serves until killed.
//   --version     prints "TAO <version>" and, on a second line, how this
//                 TAO was built (ORBBENCH_TAO_BUILD, from scripts/build-orb)
//   --work-us N   each call burns N µs of CPU before replying
//   --threads K   ORB::run from K threads (TAO's thread pool: the threads
//                 take turns as leader on the reactor); 1 by default
//   --thread-per-connection  TAO's thread-per-connection model: short for
//                 -ORBSvcConfDirective 'static Server_Strategy_Factory
//                 "-ORBConcurrency thread-per-connection"'
// The server model is TAO's: reactive by default (one thread runs the
// reactor), a thread per connection, or a pool of K threads.
// Endpoints are TAO's -ORBListenEndpoints (iiop://127.0.0.1:0,
// uiop:///path). For a uiop:// one the server loads libTAO_Strategies
// before ORB_init, as a TAO program that includes
// tao/Strategies/advanced_resource.h does at start: the library makes
// TAO's Advanced_Resource_Factory the resource factory, which loads UIOP
// beside IIOP. Over TCP the server neither maps that library nor changes
// TAO's default resource factory.
#include <cstdio>
#include <cstring>
#include <vector>

#include <dlfcn.h>

#include "ace/Reactor.h"
#include "ace/Select_Reactor_Base.h"
#include "ace/Thread_Manager.h"
#include "tao/ORB_Core.h"
#include "tao/Server_Strategy_Factory.h"
#include "tao/Version.h"
#include "echoS.h"
#include "../common/activate.hh"
#include "../common/echo_servant.hh"

#ifndef ORBBENCH_TAO_BUILD
#define ORBBENCH_TAO_BUILD "unknown"
#endif

namespace {

const char *const prog = "echo-server";

ACE_THR_FUNC_RETURN run_orb(void *arg)
{
    try {
        static_cast<CORBA::ORB_ptr>(arg)->run();
    } catch (CORBA::Exception &ex) {
        std::fprintf(stderr, "%s: ORB::run in a pool thread: %s\n", prog,
                     ex._name());
        _exit(1);
    }
    return 0;
}

// Take every `name` out of argv; was it there?
bool take_flag(int *argc, char **argv, const char *name)
{
    int out = 1;
    bool seen = false;
    for (int i = 1; i < *argc; i++) {
        if (std::strcmp(argv[i], name) == 0)
            seen = true;
        else
            argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = nullptr;
    return seen;
}

// A server whose connections TAO's reactor serves (reactive, or a pool
// of threads taking turns on it: not thread per connection) can hold no
// descriptor the reactor cannot watch. A select()-based reactor (TAO's
// default ACE_TP_Reactor) watches only those below its size, FD_SETSIZE:
// past it the server accepts a connection and never answers on it
// (measured: fan-in at 1,141 connections, docs/kinds/fanin.md). Say
// so on stderr, before the IOR, in the form orbbench reads from the
// server's log (docs/servers.md#declared-limits).
void declare_limits(CORBA::ORB_ptr orb)
{
    TAO_ORB_Core *core = orb->orb_core();
    if (core->server_factory()->activate_server_connections())
        return;
    ACE_Reactor *reactor = core->reactor();
    if (!reactor ||
        !dynamic_cast<ACE_Select_Reactor_Impl *>(reactor->implementation()))
        return;
    // Its handler table is sized to RLIMIT_NOFILE, but the fd_set that
    // select() is given holds only FD_SETSIZE bits.
    unsigned long size = reactor->size();
    if (size > FD_SETSIZE)
        size = FD_SETSIZE;
    std::fprintf(stderr, "orbbench-limit descriptors %lu: TAO's reactor "
                 "(select(): descriptors below FD_SETSIZE, %d; its handler "
                 "table holds %lu)\n", size, FD_SETSIZE,
                 static_cast<unsigned long>(reactor->size()));
}

// Does any argument name a UIOP endpoint?
bool wants_uiop(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (std::strstr(argv[i], "uiop://"))
            return true;
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("TAO %s\n%s\n", TAO_VERSION, ORBBENCH_TAO_BUILD);
        return 0;
    }
    long work_us = 0, threads = 1;
    if (orbbench::take_int_option(&argc, argv, prog, "--work-us", 0,
                                  orbbench::max_work_us, &work_us) != 0 ||
        orbbench::take_int_option(&argc, argv, prog, "--threads", 1, 1024,
                                  &threads) != 0)
        return 2;
    bool tpc = take_flag(&argc, argv, "--thread-per-connection");
    if (!orbbench::die_with_parent())
        return 3;
    // Only what the command line says configures the ORB: not a svc.conf
    // that happens to be in the working directory (the client's).
    static char no_default_conf[] = "-ORBIgnoreDefaultSvcConfFile";
    static char directive_opt[] = "-ORBSvcConfDirective";
    static char per_connection[] = "static Server_Strategy_Factory "
                                   "\"-ORBConcurrency thread-per-connection\"";
    std::vector<char *> args(argv, argv + argc);
    args.insert(args.begin() + 1, no_default_conf);
    // Found by the executable's RPATH (the TAO build's lib/).
    if (wants_uiop(argc, argv) &&
        !dlopen("libTAO_Strategies.so", RTLD_NOW | RTLD_GLOBAL)) {
        std::fprintf(stderr, "%s: uiop endpoint, but TAO's UIOP library: "
                     "%s\n", prog, dlerror());
        return 1;
    }
    if (tpc)
        args.insert(args.begin() + 1, {directive_opt, per_connection});
    int nargs = static_cast<int>(args.size());
    args.push_back(nullptr);
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(nargs, args.data());
        declare_limits(orb.in());
        CORBA::Object_var ref =
            activate_in_root_poa(orb, new orbbench::EchoImpl(work_us));
        CORBA::String_var ior = orb->object_to_string(ref);
        std::printf("%s\n", static_cast<const char *>(ior));
        std::fflush(stdout);
        if (threads > 1 &&
            ACE_Thread_Manager::instance()->spawn_n(
                static_cast<size_t>(threads - 1), run_orb, orb.in()) == -1) {
            std::fprintf(stderr, "%s: cannot start %ld ORB threads\n", prog,
                         threads - 1);
            return 1;
        }
        orb->run();
        orb->destroy();
    } catch (CORBA::SystemException &ex) {
        std::fprintf(stderr, "%s: CORBA system exception %s minor 0x%x\n",
                     prog, ex._name(), static_cast<unsigned>(ex.minor()));
        return 1;
    } catch (CORBA::Exception &ex) {
        std::fprintf(stderr, "%s: CORBA exception %s\n", prog, ex._name());
        return 1;
    }
    return 0;
}

// MICO echo server for orbbench: activates one Bench::Echo object (the
// servant of servers/common/echo_servant.hh) in the RootPOA, prints its
// stringified IOR as one line on stdout, and serves until killed.
//   --version     prints "MICO <version>" and, on a second line, how this
//                 MICO was built (ORBBENCH_MICO_BUILD, from scripts/build-orb)
//   --work-us N   each call burns N µs of CPU before replying
//   --work-ns N   N ns more
// Every other argument is MICO's: its endpoints are -ORBIIOPAddr
// inet:127.0.0.1:0 (with -ORBNoResolve, so that the IOR names the
// address, not a host name) and unix:PATH (MICO's own UIOP profile); its
// server model is MICO's thread pool (the main thread's dispatcher reads
// every connection, a pool of threads runs the upcalls) unless
// -ORBThreadPerConnection (a thread reads each connection and runs its
// upcalls).
// Before the command line the server gives MICO -ORBConfFile /dev/null
// (no ~/.micorc or $MICORC: MICO would listen on 0.0.0.0 without an
// -ORBIIOPAddr, and an rc file could name one) and GIOP/IIOP 1.2, the
// client's version (MICO's default is 1.0, and a MICO server refuses a
// request of a higher version than its own).
#include <cstdio>
#include <cstring>
#include <vector>

#include <CORBA.h>
#include <mico/impl.h> // MTManager, SelectDispatcher: declare_limits
#include <mico/version.h>

#include "echo.h"
#include "../common/activate.hh"
#include "../common/echo_servant.hh"

#ifndef ORBBENCH_MICO_BUILD
#define ORBBENCH_MICO_BUILD "unknown"
#endif

namespace {

// In the thread pool model the main thread's dispatcher watches every
// connection, and MICO's default dispatcher is select()'s: it watches
// only descriptors below FD_SETSIZE, and past it the server accepts a
// connection and never answers on it (a fan-in stopped so at 1,058
// connections). Say so on stderr, before the IOR, in the form orbbench
// reads from the server's log (docs/servers.md#declared-limits).
// -ORBUsePoll (poll()) and thread per connection have no such limit.
void declare_limits(CORBA::ORB_ptr orb)
{
    if (!MICO::MTManager::thread_pool() ||
        !dynamic_cast<MICO::SelectDispatcher *>(orb->dispatcher()))
        return;
    std::fprintf(stderr, "orbbench-limit descriptors %d: MICO's thread "
                 "pool (its dispatcher's select(): descriptors below "
                 "FD_SETSIZE, %d; -ORBUsePoll has none)\n", FD_SETSIZE,
                 FD_SETSIZE);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("MICO %s\n%s\n", MICO_VERSION, ORBBENCH_MICO_BUILD);
        return 0;
    }
    long work_us = 0, work_ns = 0;
    if (orbbench::take_int_option(&argc, argv, "echo-server", "--work-us", 0,
                                  orbbench::max_work_us, &work_us) != 0 ||
        orbbench::take_int_option(&argc, argv, "echo-server", "--work-ns", 0,
                                  orbbench::max_work_ns, &work_ns) != 0)
        return 2;
    if (!orbbench::die_with_parent())
        return 3;
    static char conf[] = "-ORBConfFile", no_conf[] = "/dev/null";
    static char giop[] = "-ORBGIOPVersion", iiop[] = "-ORBIIOPVersion";
    static char v12[] = "1.2";
    std::vector<char *> args(argv, argv + argc);
    args.insert(args.begin() + 1, {conf, no_conf, giop, v12, iiop, v12});
    int nargs = static_cast<int>(args.size());
    args.push_back(nullptr);
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(nargs, args.data());
        // MICO leaves what it does not know in argv: a typo would
        // otherwise be measured as the default.
        if (nargs > 1) {
            std::fprintf(stderr, "echo-server: unknown argument \"%s\"\n",
                         args[1]);
            return 2;
        }
        declare_limits(orb.in());
        CORBA::Object_var ref = activate_in_root_poa(
            orb, new orbbench::EchoImpl(work_us, work_ns));
        CORBA::String_var ior = orb->object_to_string(ref);
        std::printf("%s\n", static_cast<const char *>(ior));
        std::fflush(stdout);
        orb->run();
        orb->destroy();
    } catch (CORBA::SystemException &ex) {
        std::fprintf(stderr, "echo-server: CORBA system exception %s minor "
                     "%lu\n", ex._repoid(),
                     static_cast<unsigned long>(ex.minor()));
        return 1;
    } catch (CORBA::Exception &ex) {
        std::fprintf(stderr, "echo-server: CORBA exception %s\n",
                     ex._repoid());
        return 1;
    }
    return 0;
}

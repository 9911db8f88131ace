// omniORB echo server for orbbench: activates one Bench::Echo object (the
// servant of servers/common/echo_servant.hh), prints its stringified IOR
// as one line on stdout, and serves until killed. `--version` prints
// "omniORB <version>" and, for a build of scripts/build-orb that recorded
// how it was made (ORBBENCH_OMNI_BUILD), that as a second line, and exits;
// `--work-us N` makes each call burn N µs of CPU before replying, `--work-ns
// N` N ns more.
#include <cstdio>
#include <cstring>

#include "echo.hh"
#include "../common/activate.hh"
#include "../common/echo_servant.hh"

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("omniORB %s\n", omniORB::versionString());
#ifdef ORBBENCH_OMNI_BUILD
        std::printf("%s\n", ORBBENCH_OMNI_BUILD);
#endif
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
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
        CORBA::Object_var ref =
            activate_in_root_poa(orb, new orbbench::EchoImpl(work_us, work_ns));
        CORBA::String_var ior = orb->object_to_string(ref);
        std::printf("%s\n", static_cast<const char *>(ior));
        std::fflush(stdout);
        orb->run();
        orb->destroy();
    } catch (CORBA::SystemException &ex) {
        std::fprintf(stderr, "echo-server: CORBA system exception %s\n",
                     ex._name());
        return 1;
    } catch (CORBA::Exception &ex) {
        std::fprintf(stderr, "echo-server: CORBA exception %s\n", ex._name());
        return 1;
    }
    return 0;
}

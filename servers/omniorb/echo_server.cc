// omniORB echo server for orbbench: activates one Bench::Echo object, prints
// its stringified IOR as one line on stdout, and serves until killed.
// `--version` prints "omniORB <version>" and exits.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/prctl.h>
#include <unistd.h>

#include "echo.hh"

namespace {

class EchoImpl : public POA_Bench::Echo {
  public:
    char *echoString(const char *mesg) override
    {
        return CORBA::string_dup(mesg);
    }
};

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("omniORB %s\n", omniORB::versionString());
        return 0;
    }
    // Die with the spawner: nothing may outlive the benchmark.
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return 3;
    // SIGTERM keeps its default action (immediate exit): with thousands of
    // servers a graceful ORB shutdown would only slow the teardown.
    std::signal(SIGTERM, SIG_DFL);
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
        CORBA::Object_var obj = orb->resolve_initial_references("RootPOA");
        PortableServer::POA_var poa = PortableServer::POA::_narrow(obj);
        EchoImpl *servant = new EchoImpl();
        PortableServer::ObjectId_var oid = poa->activate_object(servant);
        servant->_remove_ref();
        CORBA::Object_var ref = poa->id_to_reference(oid);
        CORBA::String_var ior = orb->object_to_string(ref);
        PortableServer::POAManager_var pman = poa->the_POAManager();
        pman->activate();
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

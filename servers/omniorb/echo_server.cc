// omniORB echo server for orbbench: activates one Bench::Echo object, prints
// its stringified IOR as one line on stdout, and serves until killed.
// `--version` prints "omniORB <version>" and exits. `--work-us N` makes each
// call burn N µs of CPU before replying (a known cost per call). Oneway
// sendOneway calls are counted; onewayCount returns the count. The typed
// payloads' echo operations (idl/payloads.idl) return their argument.
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/prctl.h>
#include <unistd.h>

#include "activate.hh"
#include "echo.hh"

namespace {

const long max_work_us = 1000000;

// The thread's own CPU time in ns.
long long thread_cpu_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// Spin until this thread has used work_us more CPU time than when the call
// began. Why the thread's CPU clock: wall time would count time spent
// preempted or descheduled, and a calibrated loop count drifts with the CPU
// and its frequency; this way each call costs at least work_us of CPU,
// however loaded the machine is.
void burn_cpu(long work_us)
{
    long long until_ns = thread_cpu_ns() + work_us * 1000LL;
    volatile unsigned acc = 0; // volatile: the compiler must keep the work
    do {
        for (int i = 0; i < 256; i++)
            acc = acc * 1664525u + 1013904223u;
    } while (thread_cpu_ns() < until_ns);
}

class EchoImpl : public POA_Bench::Echo {
  public:
    explicit EchoImpl(long work_us) : work_us_(work_us) {}
    char *echoString(const char *mesg) override
    {
        if (work_us_ > 0)
            burn_cpu(work_us_);
        return CORBA::string_dup(mesg);
    }
    void sendOneway(const char *) override
    {
        if (work_us_ > 0)
            burn_cpu(work_us_);
        oneways_.fetch_add(1, std::memory_order_relaxed);
    }
    char *onewayCount() override
    {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%llu",
                      oneways_.load(std::memory_order_relaxed));
        return CORBA::string_dup(buf);
    }
    // The typed payloads (call.payload): each returns a copy of its
    // argument, as the C++ mapping asks of an echo.
    void echoNone() override { work(); }
    Bench::Octet1K *echoOctet1K(const Bench::Octet1K &v) override
    {
        return work(), new Bench::Octet1K(v);
    }
    Bench::Octet100K *echoOctet100K(const Bench::Octet100K &v) override
    {
        return work(), new Bench::Octet100K(v);
    }
    Bench::Odometry echoOdometry(const Bench::Odometry &v) override
    {
        return work(), v;
    }
    Bench::RangeSensor *echoRangeSensor(const Bench::RangeSensor &v) override
    {
        return work(), new Bench::RangeSensor(v);
    }
    Bench::SharedBelief *echoSharedBelief(const Bench::SharedBelief &v)
        override
    {
        return work(), new Bench::SharedBelief(v);
    }

  private:
    void work()
    {
        if (work_us_ > 0)
            burn_cpu(work_us_);
    }
    long work_us_;
    std::atomic<unsigned long long> oneways_{0};
};

// Take every `--work-us N` / `--work-us=N` out of argv (the ORB must never
// see it) into *work_us. 0, or -1 after printing a one-line error.
int take_work_us(int *argc, char **argv, long *work_us)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *val;
        if (std::strcmp(argv[i], "--work-us") == 0)
            val = i + 1 < *argc ? argv[++i] : "";
        else if (std::strncmp(argv[i], "--work-us=", 10) == 0)
            val = argv[i] + 10;
        else {
            argv[out++] = argv[i];
            continue;
        }
        char *end;
        errno = 0;
        long v = std::strtol(val, &end, 10);
        // Digits only: strtol alone would take " 5", "+5" and "-0".
        if (!std::isdigit((unsigned char)val[0]) || errno || *end ||
            v > max_work_us) {
            std::fprintf(stderr,
                         "echo-server: --work-us: \"%s\" is not an integer "
                         "in [0, %ld]\n",
                         val, max_work_us);
            return -1;
        }
        *work_us = v;
    }
    *argc = out;
    argv[out] = nullptr;
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("omniORB %s\n", omniORB::versionString());
        return 0;
    }
    long work_us = 0;
    if (take_work_us(&argc, argv, &work_us) != 0)
        return 2;
    // Die with the spawner: nothing may outlive the benchmark.
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return 3;
    // SIGTERM keeps its default action (immediate exit): with thousands of
    // servers a graceful ORB shutdown would only slow the teardown.
    std::signal(SIGTERM, SIG_DFL);
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
        CORBA::Object_var ref =
            activate_in_root_poa(orb, new EchoImpl(work_us));
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

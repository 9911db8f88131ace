// The Bench::Echo servant and command-line helpers every C++ echo server
// of orbbench shares (servers/omniorb, servers/tao): both ORBs follow the
// standard C++ mapping, so one servant serves either. Include it after the
// ORB's skeleton header for idl/echo.idl (it needs POA_Bench::Echo).
// echoString and the typed payloads' echo operations return their
// argument; oneway sendOneway calls are counted, onewayCount returns the
// count; `--work-us N` makes each call burn N µs of CPU before replying
// (`--work-ns N`, in the servers that take it, N ns more): a loop of a
// fixed count of steps, calibrated on the thread's CPU clock at start-up.
#ifndef ORBBENCH_ECHO_SERVANT_HH
#define ORBBENCH_ECHO_SERVANT_HH

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

#include "objects.hh"
#include "work.h"

namespace orbbench {

const long max_work_us = 1000000;
const long max_work_ns = 1000000000;

class EchoImpl : public POA_Bench::Echo {
  public:
    // Each call burns work_us µs and work_ns ns of CPU (`--work-ns`: a
    // step finer than a µs).
    explicit EchoImpl(long work_us, long work_ns = 0)
        : work_steps_(::work_steps(work_us * 1000LL + work_ns))
    {
    }
    char *echoString(const char *mesg) override
    {
        work();
        return CORBA::string_dup(mesg);
    }
    void sendOneway(const char *) override
    {
        work();
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
    // Kind objects: `count` more objects, each a servant like this one
    // (the same work a call) or served by one default servant.
    CORBA::ULongLong makeObjects(CORBA::ULong count,
                                 CORBA::Boolean defaultServant,
                                 CORBA::Object_out first,
                                 CORBA::Object_out last,
                                 CORBA::String_out policies) override
    {
        unsigned long long steps = work_steps_;
        return objects().make(this, count, defaultServant, first, last,
                              policies,
                              [steps]() { return new EchoImpl(steps); });
    }

  private:
    // A servant of makeObjects: the work its maker's calls do.
    explicit EchoImpl(unsigned long long work_steps)
        : work_steps_(work_steps)
    {
    }
    void work()
    {
        if (work_steps_ > 0)
            spin_steps(work_steps_);
    }
    unsigned long long work_steps_; // calibrated at start-up: work_steps
    std::atomic<unsigned long long> oneways_{0};
};

// Take every `NAME N` / `NAME=N` out of argv (the ORB must never see it)
// into *value, N an integer in [min, max]. 0, or -1 after printing a
// one-line error naming the program.
inline int take_int_option(int *argc, char **argv, const char *prog,
                           const char *name, long min, long max, long *value)
{
    size_t name_len = std::strlen(name);
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *val;
        if (std::strcmp(argv[i], name) == 0)
            val = i + 1 < *argc ? argv[++i] : "";
        else if (std::strncmp(argv[i], name, name_len) == 0 &&
                 argv[i][name_len] == '=')
            val = argv[i] + name_len + 1;
        else {
            argv[out++] = argv[i];
            continue;
        }
        char *end;
        errno = 0;
        long v = std::strtol(val, &end, 10);
        // Digits only: strtol alone would take " 5", "+5" and "-0".
        if (!std::isdigit((unsigned char)val[0]) || errno || *end ||
            v < min || v > max) {
            std::fprintf(stderr,
                         "%s: %s: \"%s\" is not an integer in [%ld, %ld]\n",
                         prog, name, val, min, max);
            return -1;
        }
        *value = v;
    }
    *argc = out;
    argv[out] = nullptr;
    return 0;
}

// Die with the spawner: nothing may outlive the benchmark. SIGTERM keeps
// its default action (immediate exit): with thousands of servers a
// graceful ORB shutdown would only slow the teardown. false when the
// parent is already gone.
inline bool die_with_parent()
{
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return false;
    std::signal(SIGTERM, SIG_DFL);
    return true;
}

} // namespace orbbench

#endif

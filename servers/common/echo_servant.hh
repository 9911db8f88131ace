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

namespace orbbench {

const long max_work_us = 1000000;
const long max_work_ns = 1000000000;

// The thread's own CPU time in ns.
inline long long thread_cpu_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// The busy loop's steps: a chain of dependent multiply-adds on a volatile,
// so the compiler must keep every one. The same loop in every server that
// burns CPU per call (servers/orbit2/echo_server.c has it in C).
inline void spin_steps(unsigned long long steps)
{
    volatile unsigned acc = 0;
    for (unsigned long long i = 0; i < steps; i++)
        acc = acc * 1664525u + 1013904223u;
}

// The loop's steps per ns of this thread's CPU: the median of 5 passes of
// 2^16 steps (about 0.2 ms each here), timed on the thread's CPU clock, so
// that time spent preempted does not count. Called once, at start-up.
inline double calibrate_steps_per_ns()
{
    const unsigned long long pass_steps = 1ull << 16;
    double rate[5];
    spin_steps(pass_steps); // warm the loop and the clock
    for (int p = 0; p < 5; p++) {
        long long t0 = thread_cpu_ns();
        spin_steps(pass_steps);
        long long dt = thread_cpu_ns() - t0;
        rate[p] = (double)pass_steps / (double)(dt > 0 ? dt : 1);
    }
    for (int i = 1; i < 5; i++) // insertion sort: five numbers
        for (int j = i; j > 0 && rate[j] < rate[j - 1]; j--) {
            double t = rate[j];
            rate[j] = rate[j - 1];
            rate[j - 1] = t;
        }
    return rate[2];
}

// The steps that burn work_ns of CPU at the speed calibrated at start-up.
// Why a count and not the thread's CPU clock read in the call (as before
// 2026-12-05): that clock is a system call here (about 0.5 us in this KVM
// guest), read once per pass of the loop, so a call could not cost less
// than about 1.6 us of work, nor anything between passes: +5% of a 45 us
// call could not be set (docs/measured/2026-12-04-capacity-gate.md). A
// count has no floor and no clock in the call; it is a fixed amount of
// code, like the server's own, so it slows down and speeds up with the
// host as the rest of the call does.
inline unsigned long long work_steps(long long work_ns)
{
    if (work_ns <= 0)
        return 0;
    double steps = (double)work_ns * calibrate_steps_per_ns() + 0.5;
    return steps < 1 ? 1 : (unsigned long long)steps;
}

class EchoImpl : public POA_Bench::Echo {
  public:
    // Each call burns work_us µs and work_ns ns of CPU (`--work-ns`: a
    // step finer than a µs).
    explicit EchoImpl(long work_us, long work_ns = 0)
        : work_steps_(work_steps(work_us * 1000LL + work_ns))
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

  private:
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

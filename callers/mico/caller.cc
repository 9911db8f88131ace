// MICO's own C++ client as a caller (docs/callers.md): each round's calls
// made by MICO on orbbench's command, so that the client half of MICO is
// measured the way its servers are.
//
//   caller [--mode MODE] [--payload-bytes B] [--timeout-ms T]
//          [-- ORB-ARGS...]
//
// Modes (--modes lists them, the default first):
//   sync      static stubs, one echoString after another
//   deferred  DII: a Request per target, send_deferred() for every target,
//             then get_response() for each in turn
// MICO's client model is its own (-ORBClientThreaded, the default: a
// dispatcher and a reader thread per connection; -ORBClientReactive: the
// ORB's one dispatcher, no thread; -ORBClientThreadedBlocking), and its
// dispatchers select() unless -ORBUsePoll: all ORB-ARGS, which go to
// ORB_init unchanged after the caller's own:
//   -ORBConfFile /dev/null   no ~/.micorc or $MICORC
//   -ORBNoIIOPServer         it listens on nothing (MICO's ORB_init
//                            would otherwise listen, on every address)
//   -ORBGIOPVersion 1.2      MICO's client speaks GIOP 1.0 unless told
//                            (the lower of this and the IOR's version);
//                            orbbench's servers speak 1.2, giop-min 1.2
//                            alone
// MICO as built here (scripts/build-orb: --disable-messaging) has no call
// timeout, so the caller keeps one of its own: a watchdog thread that,
// when a call has waited T (sync) or a round T (deferred), answers the
// round with that call failed (TIMEOUT, saying when a descriptor past
// select()'s FD_SETSIZE is open under MICO's select() dispatchers, the
// likely cause), and then takes only quit: MICO's call cannot be undone.
// The commands come on stdin, the answers go to stdout, one line each;
// errors to stderr. The lines are parsed and the times formatted by
// orbbench's own codec (client/codec/caller_proto.c).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <unistd.h>

#include <CORBA.h>
#include <mico/impl.h> // SelectDispatcher: the watchdog's diagnosis
#include <mico/version.h>

#include "echo.h"

extern "C" {
#include "codec/caller_proto.h"
}

#ifndef ORBBENCH_MICO_BUILD
#define ORBBENCH_MICO_BUILD "unknown"
#endif

namespace {

const char *const modes[] = {"sync", "deferred"};
const size_t nmodes = sizeof modes / sizeof *modes;

long long now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

[[noreturn]] void die(int code, const std::string &what)
{
    std::fprintf(stderr, "mico-caller: %s\n", what.c_str());
    std::exit(code);
}

long number_arg(const char *opt, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    long x = v ? std::strtol(v, &end, 10) : 0;
    if (!v || errno || end == v || *end || x < min || x > max)
        die(2, std::string(opt) + ": expected a number from " +
                   std::to_string(min) + " to " + std::to_string(max));
    return x;
}

// Write the answer whole.
void reply(const std::string &s)
{
    size_t done = 0;
    while (done < s.size()) {
        ssize_t n = write(1, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            std::exit(1); // the harness is gone
        done += (size_t)n;
    }
}

// One line of a message: printable ASCII only.
std::string clean(const char *s)
{
    std::string out;
    for (; s && *s && out.size() < 300; s++)
        out += (*s >= 0x20 && *s < 0x7f) ? *s : '?';
    return out;
}

// An exception's name from its repository id:
// "IDL:omg.org/CORBA/TRANSIENT:1.0" -> "TRANSIENT".
std::string ex_word(const CORBA::Exception &ex)
{
    std::string id = clean(ex._repoid());
    size_t colon = id.rfind(':');
    if (colon != std::string::npos && colon > 0)
        id.erase(colon);
    size_t slash = id.find_last_of("/:");
    if (slash != std::string::npos)
        id.erase(0, slash + 1);
    return id.empty() ? "UNKNOWN" : id;
}

std::string sys_message(const CORBA::SystemException &ex)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "minor 0x%lx, completed %s",
                  (unsigned long)ex.minor(),
                  ex.completed() == CORBA::COMPLETED_YES  ? "yes"
                  : ex.completed() == CORBA::COMPLETED_NO ? "no"
                                                          : "maybe");
    return buf;
}

// What one round did, call by call.
struct Round {
    unsigned long long seq;
    size_t n;
    long long t0;
    std::vector<long long> sent, got; // ns; got 0: not completed
    std::string fails;
    size_t failed;
    void start(unsigned long long s, size_t calls)
    {
        seq = s;
        n = calls;
        sent.assign(calls, 0);
        got.assign(calls, 0);
        fails.clear();
        failed = 0;
        t0 = now_ns();
    }
    void fail(size_t i, const std::string &word, const std::string &msg)
    {
        if (failed++ >= CALLER_FAILS_LISTED)
            return;
        fails += "fail " + std::to_string(seq) + " " + std::to_string(i) +
                 " " + word + " " + msg + "\n";
    }
    void fail(size_t i, const CORBA::SystemException &ex)
    {
        fail(i, ex_word(ex), sys_message(ex));
    }
    // The answer: times (when recorded), fail lines, done.
    std::string answer(bool record)
    {
        std::vector<int64_t> service, completion;
        for (size_t i = 0; i < n; i++)
            if (got[i]) {
                service.push_back(got[i] - sent[i]);
                completion.push_back(got[i] - t0);
            }
        std::string out;
        if (record && !service.empty()) {
            std::vector<char> buf(40 * service.size() + 32 *
                                  (service.size() / CALLER_TIMES_PER_LINE +
                                   1));
            int len = caller_format_times(buf.data(), buf.size(), seq,
                                          service.data(), completion.data(),
                                          service.size());
            if (len < 0)
                die(3, "formatting a round's times");
            out.assign(buf.data(), (size_t)len);
        }
        out += fails;
        out += "done " + std::to_string(seq) + " " +
               std::to_string(service.size()) + " " +
               std::to_string(n - service.size()) + " " +
               std::to_string(now_ns() - t0) + "\n";
        return out;
    }
};

struct Caller {
    std::string mode;
    std::string payload;
    long timeout_ms = 5000;
    CORBA::ORB_var orb;
    std::vector<Bench::Echo_var> targets;
    Round r;
    // The watchdog's view of the round (under `lock`): the call that
    // waits (-1: none), until when; abandoned once it has answered.
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
    long pending = -1;
    long long deadline_ns = 0;
    bool abandoned = false;
    bool idle = false; // the watchdog waits for a call, with no deadline

    // Call i is about to wait until `deadline` (ns); 0 then a call may
    // be made. A round the watchdog answered stops here for good.
    void waiting(long i, long long deadline);
    // Call i's wait ended (recorded under the lock by `record`).
    template <class F> void done_waiting(F record);
    void watch();

    // An answer to call i: its reply (checked) at `at`.
    void reply_of(size_t i, const char *ret, long long at)
    {
        if (ret && payload == ret)
            r.got[i] = at;
        else
            r.fail(i, "BAD_REPLY", "the echo differs from the argument");
    }

    void add_target(const char *ior);
    void drop(size_t k);
    void round(unsigned long long seq, size_t n, bool record);
    void sync_round();
    void deferred_round();
};

void Caller::add_target(const char *ior)
{
    try {
        CORBA::Object_var obj = orb->string_to_object(ior);
        // MICO has no unchecked narrow; its _narrow makes no remote call
        // when the IOR's type id is the interface's, as orbbench's
        // servers' are. The first echoString connects.
        Bench::Echo_var e = Bench::Echo::_narrow(obj);
        if (CORBA::is_nil(e)) {
            reply("error BAD_PARAM: a nil reference, or not a Bench::Echo\n");
            return;
        }
        targets.push_back(e);
    } catch (CORBA::SystemException &ex) {
        reply("error " + ex_word(ex) + ": " + sys_message(ex) + "\n");
        return;
    }
    reply("ok " + std::to_string(targets.size()) + "\n");
}

void Caller::drop(size_t k)
{
    // The last reference to a server's object gone, MICO closes its
    // connection.
    while (targets.size() > k)
        targets.pop_back();
    reply("ok " + std::to_string(targets.size()) + "\n");
}

// A round the watchdog has answered is over for this thread: MICO's
// call returned late, and nothing more of it may be written.
[[noreturn]] void stay()
{
    for (;;)
        pause();
}

void Caller::waiting(long i, long long deadline)
{
    pthread_mutex_lock(&lock);
    if (abandoned) {
        pthread_mutex_unlock(&lock);
        stay();
    }
    pending = i;
    deadline_ns = deadline;
    // Woken only from its idle wait: with a deadline under way it wakes
    // at that deadline and reads the new one (no wake-up per call).
    if (idle)
        pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

template <class F> void Caller::done_waiting(F record)
{
    pthread_mutex_lock(&lock);
    if (abandoned) {
        pthread_mutex_unlock(&lock);
        stay();
    }
    record();
    pending = -1;
    pthread_mutex_unlock(&lock);
}

void Caller::sync_round()
{
    for (size_t i = 0; i < r.n; i++) {
        long long t = now_ns();
        waiting((long)i, t + timeout_ms * 1000000LL);
        r.sent[i] = t;
        try {
            CORBA::String_var ret = targets[i]->echoString(payload.c_str());
            long long at = now_ns();
            done_waiting([&] { reply_of(i, ret, at); });
        } catch (CORBA::SystemException &ex) {
            done_waiting([&] { r.fail(i, ex); });
        } catch (CORBA::Exception &ex) {
            done_waiting([&] { r.fail(i, ex_word(ex), "an exception"); });
        }
    }
}

void Caller::deferred_round()
{
    std::vector<CORBA::Request_var> reqs(r.n);
    for (size_t i = 0; i < r.n; i++) {
        try {
            reqs[i] = targets[i]->_request("echoString");
            reqs[i]->add_in_arg() <<= payload.c_str();
            reqs[i]->set_return_type(CORBA::_tc_string);
            r.sent[i] = now_ns();
            reqs[i]->send_deferred();
        } catch (CORBA::SystemException &ex) {
            r.fail(i, ex);
            reqs[i] = CORBA::Request::_nil();
        }
    }
    long long deadline = r.t0 + timeout_ms * 1000000LL;
    for (size_t i = 0; i < r.n; i++) {
        if (CORBA::is_nil(reqs[i]))
            continue;
        waiting((long)i, deadline);
        try {
            reqs[i]->get_response();
            long long at = now_ns();
            CORBA::Exception *ex = reqs[i]->env()->exception();
            CORBA::SystemException *sys =
                ex ? CORBA::SystemException::_downcast(ex) : 0;
            const char *ret = 0;
            done_waiting([&] {
                if (sys)
                    r.fail(i, *sys);
                else if (ex)
                    r.fail(i, ex_word(*ex), "an exception");
                else if (!(reqs[i]->return_value() >>= ret))
                    r.fail(i, "BAD_REPLY", "the reply is not a string");
                else
                    reply_of(i, ret, at);
            });
        } catch (CORBA::SystemException &ex) {
            done_waiting([&] { r.fail(i, ex); });
        }
    }
}

// The highest descriptor open in this process (-1: none read).
int highest_fd()
{
    int top = -1;
    DIR *d = opendir("/proc/self/fd");
    for (dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
            top = std::max(top, std::atoi(e->d_name));
    if (d)
        closedir(d);
    return top;
}

// The watchdog: a call that waits past its deadline fails the round
// (TIMEOUT); the answer goes out, the round is abandoned, and only quit
// (or EOF) is taken after it.
void Caller::watch()
{
    pthread_mutex_lock(&lock);
    for (;;) {
        while (pending < 0) {
            idle = true;
            pthread_cond_wait(&changed, &lock);
        }
        idle = false;
        long long left = deadline_ns - now_ns();
        if (left > 0) {
            timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            long long at = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec +
                           left;
            ts.tv_sec = (time_t)(at / 1000000000LL);
            ts.tv_nsec = (long)(at % 1000000000LL);
            pthread_cond_timedwait(&changed, &lock, &ts);
            continue; // the deadline now may be a later call's: look again
        }
        std::string why = "no reply in " + std::to_string(timeout_ms) +
                          " ms (the caller's watchdog)";
        int top = highest_fd();
        if (dynamic_cast<MICO::SelectDispatcher *>(orb->dispatcher()) &&
            top >= FD_SETSIZE)
            why += "; descriptor " + std::to_string(top) + " is open, past "
                   "select()'s FD_SETSIZE " + std::to_string(FD_SETSIZE) +
                   " (MICO's dispatchers; -ORBUsePoll polls)";
        r.fail((size_t)pending, "TIMEOUT", why);
        abandoned = true;
        reply(r.answer(false));
        break;
    }
    pthread_mutex_unlock(&lock);
    // Only quit now; MICO's call cannot be taken back.
    char buf[4096];
    for (;;) {
        ssize_t got = read(0, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || memmem(buf, (size_t)got, "quit\n", 5))
            _exit(0);
        if (std::memchr(buf, '\n', (size_t)got))
            die(3, "a command after a call that did not return");
    }
}

void *watchdog(void *c)
{
    static_cast<Caller *>(c)->watch();
    return nullptr;
}

void Caller::round(unsigned long long seq, size_t n, bool record)
{
    if (n > targets.size())
        die(3, "a round of " + std::to_string(n) + " calls with " +
                   std::to_string(targets.size()) + " targets");
    r.start(seq, n);
    if (mode == "sync")
        sync_round();
    else
        deferred_round();
    pthread_mutex_lock(&lock);
    if (abandoned) {
        pthread_mutex_unlock(&lock);
        stay();
    }
    reply(r.answer(record));
    pthread_mutex_unlock(&lock);
}

// Read commands until quit or EOF (as quit).
void serve(Caller &c)
{
    const size_t cap = CALLER_LINE_MAX + 1;
    std::vector<char> buf(cap);
    size_t len = 0, start = 0;
    for (;;) {
        char *nl = (char *)std::memchr(&buf[start], '\n', len - start);
        if (!nl) {
            std::memmove(&buf[0], &buf[start], len - start);
            len -= start;
            start = 0;
            if (len >= cap - 1)
                die(2, "a command line over 64 KiB");
            ssize_t got = read(0, &buf[len], cap - 1 - len);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return;
            len += (size_t)got;
            continue;
        }
        *nl = 0;
        const char *line = &buf[start];
        start = (size_t)(nl + 1 - &buf[0]);
        struct caller_cmd cmd;
        char why[200];
        if (caller_parse_cmd(line, &cmd, why, sizeof why) != 0)
            die(2, std::string("not a command of the protocol: ") + why);
        switch (cmd.type) {
        case CALLER_TARGET:
            c.add_target(cmd.ior);
            break;
        case CALLER_DROP:
            c.drop((size_t)cmd.k);
            break;
        case CALLER_ROUND:
            c.round(cmd.seq, (size_t)cmd.n, cmd.record);
            break;
        case CALLER_QUIT:
            return;
        }
    }
}

} // namespace

int main(int argc, char **argv)
{
    Caller c;
    long payload_bytes = 16;
    c.mode = "sync";
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
        if (std::strcmp(a, "--version") == 0) {
            std::printf("MICO %s\n%s\n", MICO_VERSION, ORBBENCH_MICO_BUILD);
            return 0;
        } else if (std::strcmp(a, "--modes") == 0) {
            for (size_t k = 0; k < nmodes; k++)
                std::printf("%s\n", modes[k]);
            return 0;
        } else if (std::strcmp(a, "--mode") == 0 && v) {
            c.mode = v;
            i++;
        } else if (std::strcmp(a, "--payload-bytes") == 0) {
            payload_bytes = number_arg(a, v, 0, 1048576);
            i++;
        } else if (std::strcmp(a, "--timeout-ms") == 0) {
            c.timeout_ms = number_arg(a, v, 1, 600000);
            i++;
        } else if (std::strcmp(a, "--") == 0) {
            i++;
            break;
        } else {
            die(2, std::string("unknown argument ") + clean(a));
        }
    }
    bool known = false;
    for (size_t k = 0; k < nmodes; k++)
        known = known || c.mode == modes[k];
    if (!known)
        die(2, "no mode " + clean(c.mode.c_str()) +
                   " in MICO's caller (see --modes)");
    c.payload.assign((size_t)payload_bytes, 'x');
    // ORB_init gets argv[0], the caller's own options, then what came
    // after "--" (a later -ORBGIOPVersion wins).
    static char conf[] = "-ORBConfFile", no_conf[] = "/dev/null";
    static char no_server[] = "-ORBNoIIOPServer";
    static char giop[] = "-ORBGIOPVersion", v12[] = "1.2";
    std::vector<char *> orb_argv = {argv[0], conf, no_conf, no_server, giop,
                                    v12};
    for (; i < argc; i++)
        orb_argv.push_back(argv[i]);
    int orb_argc = (int)orb_argv.size();
    orb_argv.push_back(0);
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return 3;
    signal(SIGPIPE, SIG_IGN);
    try {
        c.orb = CORBA::ORB_init(orb_argc, &orb_argv[0]);
        // MICO leaves what it does not know in argv.
        if (orb_argc > 1)
            die(2, std::string("ORB_init did not take ") +
                       clean(orb_argv[1]));
        pthread_t dog;
        if (pthread_create(&dog, nullptr, watchdog, &c) != 0)
            die(1, "no thread for the watchdog");
        reply("ready " + std::to_string((long)getpid()) + " " + c.mode +
              "\n");
        serve(c);
        c.targets.clear();
        c.orb->destroy();
    } catch (CORBA::SystemException &ex) {
        die(1, "CORBA system exception " + ex_word(ex) + " (" +
                   sys_message(ex) + ")");
    } catch (CORBA::Exception &ex) {
        die(1, "CORBA exception " + ex_word(ex));
    }
    return 0;
}

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
// timeout: T bounds nothing in the caller, and a server that never
// answers holds its call until the harness's bound ends the run.
// The commands come on stdin, the answers go to stdout, one line each;
// errors to stderr. The lines are parsed and the times formatted by
// orbbench's own codec (client/codec/caller_proto.c).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CORBA.h>
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
    CORBA::ORB_var orb;
    std::vector<Bench::Echo_var> targets;
    Round r;

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

void Caller::sync_round()
{
    for (size_t i = 0; i < r.n; i++) {
        r.sent[i] = now_ns();
        try {
            CORBA::String_var ret = targets[i]->echoString(payload.c_str());
            reply_of(i, ret, now_ns());
        } catch (CORBA::SystemException &ex) {
            r.fail(i, ex);
        } catch (CORBA::Exception &ex) {
            r.fail(i, ex_word(ex), "an exception");
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
    for (size_t i = 0; i < r.n; i++) {
        if (CORBA::is_nil(reqs[i]))
            continue;
        try {
            reqs[i]->get_response();
            long long at = now_ns();
            CORBA::Exception *ex = reqs[i]->env()->exception();
            CORBA::SystemException *sys =
                ex ? CORBA::SystemException::_downcast(ex) : 0;
            const char *ret = 0;
            if (sys)
                r.fail(i, *sys);
            else if (ex)
                r.fail(i, ex_word(*ex), "an exception");
            else if (!(reqs[i]->return_value() >>= ret))
                r.fail(i, "BAD_REPLY", "the reply is not a string");
            else
                reply_of(i, ret, at);
        } catch (CORBA::SystemException &ex) {
            r.fail(i, ex);
        }
    }
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
    reply(r.answer(record));
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
            number_arg(a, v, 1, 600000); // no call timeout in this MICO
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

// omniORB's own C++ client as a caller (docs/callers.md): each round's
// calls made by omniORB on orbbench's command, so that the client half of
// omniORB is measured the way its servers are.
//
//   omniorb-caller [--mode MODE] [--payload-bytes B] [--timeout-ms T]
//                  [-- ORB-ARGS...]
//
// Modes (--modes lists this build's, the default first):
//   sync          static stubs, one echoString after another
//   deferred      DII: a Request per target, send_deferred() for every
//                 target, then get_response() for each in turn (omniORB
//                 runs each deferred request on a thread of its async
//                 invoker: -ORBmaxClientThreadPoolSize in 4.2 and later,
//                 -ORBmaxServerThreadPoolSize in 4.0 and 4.1)
//   ami-poller    AMI (4.2 and later, omniidl -Wbami): sendp_echoString to
//                 every target, then each poller's echoString(T)
//   ami-callback  AMI: sendc_echoString with a reply handler per target
//                 (a servant in the RootPOA: this mode listens, on
//                 loopback, for the handlers' local calls)
// ORB-ARGS go to ORB_init unchanged; T is omniORB's client call timeout
// (omniORB::setClientCallTimeout). The commands come on stdin, the
// answers go to stdout, one line each; errors to stderr.
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

#include "echo.hh"

namespace {

const char *const modes[] = {
    "sync", "deferred",
#ifdef ORBBENCH_AMI
    "ami-poller", "ami-callback",
#endif
};
const size_t nmodes = sizeof modes / sizeof *modes;

long long now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void die(int code, const std::string &what)
{
    std::fprintf(stderr, "omniorb-caller: %s\n", what.c_str());
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

std::string sys_word(const CORBA::SystemException &ex)
{
    return clean(ex._name());
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
    size_t listed;
    void start(unsigned long long s, size_t calls)
    {
        seq = s;
        n = calls;
        sent.assign(calls, 0);
        got.assign(calls, 0);
        fails.clear();
        failed = listed = 0;
        t0 = now_ns();
    }
    void fail(size_t i, const std::string &word, const std::string &msg)
    {
        failed++;
        if (listed++ >= 16) // CALLER_FAILS_LISTED
            return;
        fails += "fail " + std::to_string(seq) + " " + std::to_string(i) +
                 " " + word + " " + msg + "\n";
    }
    // The answer: times (when recorded), fail lines, done.
    std::string answer(bool record)
    {
        std::string out;
        size_t pairs = 0, calls = 0;
        for (size_t i = 0; i < n; i++) {
            if (!got[i])
                continue;
            calls++;
            if (!record)
                continue;
            if (pairs % 1024 == 0) // CALLER_TIMES_PER_LINE
                out += (pairs ? "\ntimes " : "times ") + std::to_string(seq);
            out += " " + std::to_string(got[i] - sent[i]) + " " +
                   std::to_string(got[i] - t0);
            pairs++;
        }
        if (pairs)
            out += "\n";
        out += fails;
        out += "done " + std::to_string(seq) + " " + std::to_string(calls) +
               " " + std::to_string(n - calls) + " " +
               std::to_string(now_ns() - t0) + "\n";
        return out;
    }
};

struct Caller;

#ifdef ORBBENCH_AMI
// The reply handler of one target: its answers go into the round under
// way, by the target's position.
class Handler : public POA_Bench::AMI_EchoHandler {
  public:
    Handler(Caller *c, size_t i) : c_(c), i_(i) {}
    void echoString(const char *ret);
    void echoString_excep(Messaging::ExceptionHolder *h);
    // The other operations are never called.
    void onewayCount(const char *) {}
    void onewayCount_excep(Messaging::ExceptionHolder *) {}
    void echoNone() {}
    void echoNone_excep(Messaging::ExceptionHolder *) {}
    void echoOctet1K(const Bench::Octet1K &) {}
    void echoOctet1K_excep(Messaging::ExceptionHolder *) {}
    void echoOctet100K(const Bench::Octet100K &) {}
    void echoOctet100K_excep(Messaging::ExceptionHolder *) {}
    void echoOdometry(const Bench::Odometry &) {}
    void echoOdometry_excep(Messaging::ExceptionHolder *) {}
    void echoRangeSensor(const Bench::RangeSensor &) {}
    void echoRangeSensor_excep(Messaging::ExceptionHolder *) {}
    void echoSharedBelief(const Bench::SharedBelief &) {}
    void echoSharedBelief_excep(Messaging::ExceptionHolder *) {}
    // The objects kind's operation: never called by a caller.
    void makeObjects(CORBA::ULongLong, CORBA::Object_ptr, CORBA::Object_ptr,
                     const char *) {}
    void makeObjects_excep(Messaging::ExceptionHolder *) {}

  private:
    Caller *c_;
    size_t i_;
};
#endif

struct Caller {
    std::string mode;
    std::string payload;
    long timeout_ms;
    CORBA::ORB_var orb;
    std::vector<Bench::Echo_var> targets;
#ifdef ORBBENCH_AMI
    PortableServer::POA_var poa;
    std::vector<Bench::AMI_EchoHandler_var> handlers;
#endif
    Round r;
    omni_mutex lock; // ami-callback: the handlers' answers
    omni_condition answered;
    size_t answers;

    Caller() : timeout_ms(5000), answered(&lock), answers(0) {}

    // An answer to call i: its reply (checked) at `at`, or a failure.
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
#ifdef ORBBENCH_AMI
    void poller_round();
    void callback_round();
#endif
};

#ifdef ORBBENCH_AMI
void Handler::echoString(const char *ret)
{
    long long at = now_ns();
    omni_mutex_lock l(c_->lock);
    c_->reply_of(i_, ret, at);
    c_->answers++;
    c_->answered.signal();
}

void Handler::echoString_excep(Messaging::ExceptionHolder *h)
{
    omni_mutex_lock l(c_->lock);
    try {
        h->raise_exception();
    } catch (CORBA::SystemException &ex) {
        c_->r.fail(i_, sys_word(ex), sys_message(ex));
    } catch (CORBA::Exception &ex) {
        c_->r.fail(i_, clean(ex._name()), "a user exception");
    }
    c_->answers++;
    c_->answered.signal();
}
#endif

void Caller::add_target(const char *ior)
{
    try {
        CORBA::Object_var obj = orb->string_to_object(ior);
        // No remote call: the first echoString connects.
        Bench::Echo_var e = Bench::Echo::_unchecked_narrow(obj);
        if (CORBA::is_nil(e)) {
            reply("error BAD_PARAM: a nil reference\n");
            return;
        }
#ifdef ORBBENCH_AMI
        if (mode == "ami-callback") {
            Handler *h = new Handler(this, targets.size());
            PortableServer::ObjectId_var oid = poa->activate_object(h);
            h->_remove_ref();
            CORBA::Object_var ref = poa->id_to_reference(oid);
            handlers.push_back(Bench::AMI_EchoHandler::_narrow(ref));
        }
#endif
        targets.push_back(e);
    } catch (CORBA::SystemException &ex) {
        reply("error " + sys_word(ex) + ": " + sys_message(ex) + "\n");
        return;
    }
    reply("ok " + std::to_string(targets.size()) + "\n");
}

void Caller::drop(size_t k)
{
    while (targets.size() > k) {
        targets.pop_back();
#ifdef ORBBENCH_AMI
        if (!handlers.empty()) {
            PortableServer::ObjectId_var oid =
                poa->reference_to_id(handlers.back());
            poa->deactivate_object(oid);
            handlers.pop_back();
        }
#endif
    }
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
            r.fail(i, sys_word(ex), sys_message(ex));
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
            r.fail(i, sys_word(ex), sys_message(ex));
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
                r.fail(i, sys_word(*sys), sys_message(*sys));
            else if (ex)
                r.fail(i, clean(ex->_name()), "an exception");
            else if (!(reqs[i]->return_value() >>= ret))
                r.fail(i, "BAD_REPLY", "the reply is not a string");
            else
                reply_of(i, ret, at);
        } catch (CORBA::SystemException &ex) {
            r.fail(i, sys_word(ex), sys_message(ex));
        }
    }
}

#ifdef ORBBENCH_AMI
void Caller::poller_round()
{
    std::vector<Bench::AMI_EchoPoller_var> polls(r.n);
    for (size_t i = 0; i < r.n; i++) {
        try {
            r.sent[i] = now_ns();
            polls[i] = targets[i]->sendp_echoString(payload.c_str());
        } catch (CORBA::SystemException &ex) {
            r.fail(i, sys_word(ex), sys_message(ex));
        }
    }
    for (size_t i = 0; i < r.n; i++) {
        if (!polls[i].in())
            continue;
        try {
            CORBA::String_var ret;
            polls[i]->echoString((CORBA::ULong)timeout_ms, ret.out());
            reply_of(i, ret, now_ns());
        } catch (CORBA::SystemException &ex) {
            r.fail(i, sys_word(ex), sys_message(ex));
        }
    }
}

void Caller::callback_round()
{
    size_t sent_ok = 0;
    {
        omni_mutex_lock l(lock);
        answers = 0;
    }
    for (size_t i = 0; i < r.n; i++) {
        try {
            r.sent[i] = now_ns();
            targets[i]->sendc_echoString(handlers[i], payload.c_str());
            sent_ok++;
        } catch (CORBA::SystemException &ex) {
            omni_mutex_lock l(lock);
            r.fail(i, sys_word(ex), sys_message(ex));
        }
    }
    // Every handler answers, with a reply or an exception (TIMEOUT at
    // the latest); a wait beyond that is bounded all the same.
    omni_mutex_lock l(lock);
    unsigned long s, ns;
    omni_thread::get_time(&s, &ns, timeout_ms / 1000 + 5, 0);
    while (answers < sent_ok)
        if (answered.timedwait(s, ns) == 0)
            break;
    for (size_t i = 0; i < r.n && answers < sent_ok; i++)
        if (!r.got[i])
            r.fail(i, "TIMEOUT", "no reply handler call in time");
    answers = sent_ok; // late answers are no longer counted
}
#endif

void Caller::round(unsigned long long seq, size_t n, bool record)
{
    if (n == 0 || n > targets.size())
        die(3, "a round of " + std::to_string(n) + " calls with " +
                   std::to_string(targets.size()) + " targets");
    r.start(seq, n);
    if (mode == "sync")
        sync_round();
    else if (mode == "deferred")
        deferred_round();
#ifdef ORBBENCH_AMI
    else if (mode == "ami-poller")
        poller_round();
    else
        callback_round();
    omni_mutex_lock l(lock); // the handlers write into r
#endif
    reply(r.answer(record));
}

// "word N" etc.: the command's words.
bool number_word(const char *&p, unsigned long long &v)
{
    char *end;
    if (*p < '0' || *p > '9')
        return false;
    errno = 0;
    v = std::strtoull(p, &end, 10);
    if (errno || (*end && *end != ' '))
        return false;
    p = *end ? end + 1 : end;
    return true;
}

void serve(Caller &c)
{
    const size_t cap = 64 * 1024 + 1; // CALLER_LINE_MAX
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
                return; // EOF: as quit
            len += (size_t)got;
            continue;
        }
        *nl = 0;
        const char *line = &buf[start];
        start = (size_t)(nl + 1 - &buf[0]);
        unsigned long long a, b, rec;
        const char *p;
        if (std::strncmp(line, "target ", 7) == 0) {
            c.add_target(line + 7);
        } else if (std::strncmp(line, "drop ", 5) == 0 &&
                   number_word(p = line + 5, a) && !*p) {
            c.drop((size_t)a);
        } else if (std::strncmp(line, "round ", 6) == 0 &&
                   number_word(p = line + 6, a) && number_word(p, b) &&
                   number_word(p, rec) && !*p && b > 0 && rec <= 1) {
            c.round(a, (size_t)b, rec == 1);
        } else if (std::strcmp(line, "quit") == 0) {
            return;
        } else {
            die(2, "not a command of the protocol: \"" +
                       clean(line).substr(0, 60) + "\"");
        }
    }
}

bool has_endpoint(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strncasecmp(argv[i], "-ORBendPoint", 12) == 0)
            return true;
    return false;
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
            std::printf("omniORB %s\n", omniORB::versionString());
#ifdef ORBBENCH_OMNI_BUILD
            std::printf("%s\n", ORBBENCH_OMNI_BUILD);
#endif
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
                   " in this build (see --modes)");
    c.payload.assign((size_t)payload_bytes, 'x');
    // ORB_init gets argv[0] and what came after "--"; the reply
    // handlers' POA listens on loopback unless an endpoint was given.
    std::vector<char *> orb_argv(1, argv[0]);
    for (; i < argc; i++)
        orb_argv.push_back(argv[i]);
    char ep_opt[] = "-ORBendPoint", ep[] = "giop:tcp:127.0.0.1:";
    if (c.mode == "ami-callback" &&
        !has_endpoint((int)orb_argv.size(), &orb_argv[0])) {
        orb_argv.push_back(ep_opt);
        orb_argv.push_back(ep);
    }
    int orb_argc = (int)orb_argv.size();
    orb_argv.push_back(0);
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return 3;
    signal(SIGPIPE, SIG_IGN);
    try {
        c.orb = CORBA::ORB_init(orb_argc, &orb_argv[0]);
        if (orb_argc > 1)
            die(2, std::string("ORB_init did not take ") +
                       clean(orb_argv[1]));
        omniORB::setClientCallTimeout((CORBA::ULong)c.timeout_ms);
#ifdef ORBBENCH_AMI
        if (c.mode == "ami-callback") {
            CORBA::Object_var obj =
                c.orb->resolve_initial_references("RootPOA");
            c.poa = PortableServer::POA::_narrow(obj);
            PortableServer::POAManager_var pman = c.poa->the_POAManager();
            pman->activate();
        }
#endif
        reply("ready " + std::to_string((long)getpid()) + " " + c.mode +
              "\n");
        serve(c);
        c.targets.clear();
#ifdef ORBBENCH_AMI
        c.handlers.clear();
#endif
        c.orb->destroy();
    } catch (CORBA::SystemException &ex) {
        die(1, "CORBA system exception " + sys_word(ex) + " (" +
                   sys_message(ex) + ")");
    } catch (CORBA::Exception &ex) {
        die(1, "CORBA exception " + clean(ex._name()));
    }
    return 0;
}

// TAO's own client for orbbench: the caller protocol
// (callers/common/caller.h, docs/callers.md) with calls made by TAO.
//   sync          the static stub, echoString, one call after another
//   deferred      DII: send_deferred to every target, then each reply
//                 (poll_response, get_response) while the ORB does its
//                 work (TAO_DynamicInterface; no thread per call)
//   ami-callback  AMI: sendc_echoString to every target (stubs of
//                 tao_idl -GC), then ORB::perform_work until every reply
//                 handler has run (TAO_Messaging; no thread per call)
// TAO 2.2.1 has no AMI poller (tao/orbconf.h: "We dont have AMI_POLLER
// support in TAO").
// --timeout-ms is TAO's RelativeRoundtripTimeoutPolicy, set on the ORB
// (it covers sync and AMI calls, connecting included); a round of
// deferred or AMI calls also ends that long after it began.
// The ORB's options come after "--", unchanged, with
// -ORBIgnoreDefaultSvcConfFile before them (no svc.conf from the working
// directory). TAO takes some client options only from its service
// configurator (-ORBWaitStrategy, -ORBTransportMuxStrategy,
// -ORBConnectionCacheMax, ...): the caller gathers those, each with its
// value, into one -ORBSvcConfDirective per factory (Client_Strategy_Factory,
// and Advanced_Resource_Factory: the caller links libTAO_Strategies, so
// that it reads UIOP IORs too, and that factory then replaces the
// default one with the same defaults).
// Only ami-callback activates an object (a reply handler per target, in
// the RootPOA): TAO then opens its acceptors, so in that mode the caller
// listens on 127.0.0.1 (any port) unless the ORB options name endpoints;
// nobody connects to it. In the other modes it listens on nothing.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ace/Log_Msg.h"
#include "ace/Log_Msg_Callback.h"
#include "ace/Log_Record.h"
#include "tao/AnyTypeCode/TypeCode_Constants.h"
#include "tao/DynamicInterface/Request.h"
#include "tao/Messaging/Messaging.h"
#include "tao/PortableServer/PortableServer.h"
#include "tao/Strategies/advanced_resource.h"
#include "tao/Version.h"
#include "echoS.h"
#include "../common/caller.h"

#ifndef ORBBENCH_TAO_BUILD
#define ORBBENCH_TAO_BUILD "unknown"
#endif

// Under LeakSanitizer (make SANITIZE=address): what TAO and ACE keep
// until exit, or lose (a failed send_deferred's reply dispatcher, in
// DII_Deferred_Invocation_Adapter::invoke), is theirs, not the caller's;
// the caller's own leaks are still reported.
extern "C" const char *__lsan_default_suppressions();
extern "C" const char *__lsan_default_suppressions()
{
    return "leak:libTAO.so\nleak:libTAO_\nleak:libACE.so\n";
}

namespace {

const char *const modes[] = {"sync", "deferred", "ami-callback", nullptr};
enum { mode_sync, mode_deferred, mode_ami_callback };

caller_ops ops;

// Wait for the ORB's work at most this long at a time while a round
// waits for replies (the round's own deadline is checked between).
const long max_wait_us = 100000;

// ---- the ORB's own options, and the factories' -----------------------

// Options TAO reads only through its service configurator, by factory
// (TAO 2.2.1: tao/default_client.cpp, tao/default_resource.cpp,
// tao/Strategies/advanced_resource.cpp). Each takes one value.
const char *const client_factory_options[] = {
    "-ORBWaitStrategy", "-ORBTransportMuxStrategy",
    "-ORBTransportMuxStrategyLock", "-ORBConnectStrategy",
    "-ORBClientConnectionHandler", "-ORBReplyDispatcherTableSize",
    "-ORBConnectionHandlerCleanup", "-ORBForwardOnCommFailureLimit",
    "-ORBForwardOnTransientLimit", "-ORBForwardOnObjectNotExistLimit",
    "-ORBForwardOnInvObjrefLimit", "-ORBForwardOnReplyClosedLimit", nullptr};
const char *const resource_factory_options[] = {
    "-ORBConnectionCacheMax", "-ORBConnectionCachePurgePercentage",
    "-ORBConnectionPurgingStrategy", "-ORBConnectionCacheLock",
    "-ORBMuxedConnectionMax", "-ORBFlushingStrategy", "-ORBReactorType",
    "-ORBReactorThreadQueue", "-ORBReactorMaskSignals",
    "-ORBDropRepliesDuringShutdown", "-ORBInputCDRAllocator",
    "-ORBAMIResponseHandlerAllocator", "-ORBResourceUsage",
    "-ORBZeroCopyWrite", "-ORBOutputCDRAllocator", nullptr};

bool listed(const char *const *names, const char *word)
{
    for (; *names; names++)
        if (strcasecmp(*names, word) == 0)
            return true;
    return false;
}

// The words ORB_init gets: -ORBIgnoreDefaultSvcConfFile, the caller's
// defaults for a mode, the factories' directives, then the rest of
// ORB-ARGS as they were. Returns false (said on stderr) when a factory
// option has no value.
bool orb_words(int argc, char **argv, int mode, std::vector<std::string> *out)
{
    std::string client, resource;
    std::vector<std::string> rest;
    bool endpoints = false;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        bool is_client = listed(client_factory_options, w);
        if (is_client || listed(resource_factory_options, w)) {
            if (i + 1 >= argc) {
                caller_warn(&ops, "ORB option %s needs a value", w);
                return false;
            }
            std::string &dir = is_client ? client : resource;
            dir += std::string(dir.empty() ? "" : " ") + w + " " + argv[++i];
            continue;
        }
        if (strcasecmp(w, "-ORBListenEndpoints") == 0 ||
            strcasecmp(w, "-ORBEndpoint") == 0)
            endpoints = true;
        rest.push_back(w);
    }
    out->push_back(argv[0]);
    out->push_back("-ORBIgnoreDefaultSvcConfFile");
    if (mode == mode_ami_callback && !endpoints) {
        out->push_back("-ORBListenEndpoints");
        out->push_back("iiop://127.0.0.1:0");
        out->push_back("-ORBDottedDecimalAddresses");
        out->push_back("1");
    }
    if (!client.empty()) {
        out->push_back("-ORBSvcConfDirective");
        out->push_back("static Client_Strategy_Factory \"" + client + "\"");
    }
    if (!resource.empty()) {
        out->push_back("-ORBSvcConfDirective");
        out->push_back("static Advanced_Resource_Factory \"" + resource +
                       "\"");
    }
    out->insert(out->end(), rest.begin(), rest.end());
    return true;
}

// ---- DII deferred: the replies TAO drops -----------------------------

// TAO 2.2.1 answers a deferred request whose reply is a system exception
// (the COMM_FAILURE it makes up when the connection closes, too) with
// the error "unhandled reply status" and leaves the request without a
// response for ever (CORBA::Request::handle_response): get_response
// would wait for ever. Counting those messages tells a round how many of
// its outstanding requests will never be answered, not which exception
// (SYSTEM_EXCEPTION is all a program can know).
class Dropped_Replies : public ACE_Log_Msg_Callback {
public:
    unsigned long count = 0;
    void log(ACE_Log_Record &record) override
    {
        if (std::strstr(record.msg_data(), "unhandled reply status"))
            count++;
    }
};
Dropped_Replies dropped;

// ---- AMI: a reply handler per target ---------------------------------

class Reply_Handler : public POA_Bench::AMI_EchoHandler {
public:
    caller_round *round = nullptr;  // the round waiting for this target
    size_t index = 0;
    size_t *outstanding = nullptr;
    // Calls of earlier rounds that gave up on them: TAO still runs their
    // handler once each (a late reply, TAO's TIMEOUT, a COMM_FAILURE),
    // and the next ones to come are taken for them. (On one connection
    // replies come in order, so the late reply is the one taken.)
    size_t stale = 0;

    void echoString(const char *ret) override
    {
        if (caller_round *r = take())
            caller_call_reply(r, index, ret, std::strlen(ret));
    }
    void echoString_excep(::Messaging::ExceptionHolder *holder) override
    {
        caller_round *r = take();
        if (!r)
            return;
        try {
            holder->raise_exception();
            caller_call_fail(r, index, "UNKNOWN", "echoString (AMI): an "
                             "exception holder without an exception");
        } catch (const CORBA::Exception &ex) {
            caller_call_fail(r, index, ex._name(), "echoString (AMI): %s",
                             ex._rep_id());
        }
    }
    // The other operations' replies: never asked for.
    void onewayCount(const char *) override {}
    void onewayCount_excep(::Messaging::ExceptionHolder *) override {}
    void echoNone() override {}
    void echoNone_excep(::Messaging::ExceptionHolder *) override {}
    void echoOctet1K(const Bench::Octet1K &) override {}
    void echoOctet1K_excep(::Messaging::ExceptionHolder *) override {}
    void echoOctet100K(const Bench::Octet100K &) override {}
    void echoOctet100K_excep(::Messaging::ExceptionHolder *) override {}
    void echoOdometry(const Bench::Odometry &) override {}
    void echoOdometry_excep(::Messaging::ExceptionHolder *) override {}
    void echoRangeSensor(const Bench::RangeSensor &) override {}
    void echoRangeSensor_excep(::Messaging::ExceptionHolder *) override {}
    void echoSharedBelief(const Bench::SharedBelief &) override {}
    void echoSharedBelief_excep(::Messaging::ExceptionHolder *) override {}
    // The objects kind's operation: never called by a caller.
    void makeObjects(::CORBA::ULongLong, ::CORBA::Object_ptr,
                     ::CORBA::Object_ptr, const char *) override {}
    void makeObjects_excep(::Messaging::ExceptionHolder *) override {}

private:
    // The round this reply is for (once only), or nullptr.
    caller_round *take()
    {
        if (stale) {
            stale--;
            return nullptr;
        }
        caller_round *r = round;
        if (r) {
            round = nullptr;
            (*outstanding)--;
        }
        return r;
    }
};

// ---- the caller's state ----------------------------------------------

struct Target {
    Bench::Echo_var echo;
    Reply_Handler *handler = nullptr;         // ami-callback only
    Bench::AMI_EchoHandler_var handler_ref;   // its reference
    PortableServer::ObjectId_var handler_id;
};

struct State {
    CORBA::ORB_var orb;
    PortableServer::POA_var poa;  // ami-callback only
    int mode = mode_sync;
    std::vector<Target> targets;
    // Deferred requests a round gave up on. TAO's reply dispatcher holds
    // a plain pointer to its request (DII_Deferred_Reply_Dispatcher::req_)
    // and calls it when the reply, or the connection's end, comes: such a
    // request is kept until the ORB is destroyed (a late reply to a
    // released one was a use after free, SIGSEGV).
    std::vector<CORBA::Request_var> abandoned;
};

const char *exception_id(const CORBA::Exception &ex)
{
    return ex._rep_id();
}

int add_target(void *sp, const char *ior, char *err, size_t err_size)
{
    State *s = static_cast<State *>(sp);
    try {
        CORBA::Object_var obj = s->orb->string_to_object(ior);
        if (CORBA::is_nil(obj.in())) {
            std::snprintf(err, err_size, "string_to_object: a nil object");
            return -1;
        }
        Target t;
        t.echo = Bench::Echo::_unchecked_narrow(obj.in());
        if (s->mode == mode_ami_callback) {
            t.handler = new Reply_Handler;
            t.handler_id = s->poa->activate_object(t.handler);
            t.handler->_remove_ref();  // the POA holds it
            CORBA::Object_var h = s->poa->id_to_reference(t.handler_id.in());
            t.handler_ref = Bench::AMI_EchoHandler::_narrow(h.in());
        }
        s->targets.push_back(t);
        return 0;
    } catch (const CORBA::Exception &ex) {
        std::snprintf(err, err_size, "string_to_object: %s (%s)", ex._name(),
                      exception_id(ex));
        return -1;
    }
}

void drop_targets(void *sp, size_t keep)
{
    State *s = static_cast<State *>(sp);
    while (s->targets.size() > keep) {
        Target &t = s->targets.back();
        if (t.handler) {
            try {
                s->poa->deactivate_object(t.handler_id.in());
            } catch (const CORBA::Exception &ex) {
                caller_warn(&ops, "deactivating a reply handler: %s",
                            ex._name());
            }
        }
        s->targets.pop_back();
    }
}

// Let the ORB work until *done says so or deadline_ns has passed.
template <typename Done>
void work_until(State *s, int64_t deadline_ns, Done done)
{
    while (!done()) {
        int64_t left_ns = deadline_ns - caller_now_ns();
        if (left_ns <= 0)
            return;
        long wait_us = static_cast<long>(left_ns / 1000);
        if (wait_us > max_wait_us)
            wait_us = max_wait_us;
        ACE_Time_Value tv(0, wait_us);
        s->orb->perform_work(tv);
    }
}

// A round of deferred or AMI calls ends T after it began: requests not
// sent by then are not sent, replies not read by then are TIMEOUTs. (A
// send that connects can take T itself: TAO's timeout bounds it.)
int64_t round_deadline_ns(const caller_round *r)
{
    return r->start_ns + r->timeout_ms * 1000000LL;
}

void not_sent(caller_round *r, size_t i)
{
    caller_call_fail(r, i, "TIMEOUT", "not sent: the round's %ld ms had "
                     "passed", r->timeout_ms);
}

void round_sync(State *s, caller_round *r)
{
    for (size_t i = 0; i < r->n; i++) {
        r->calls[i].sent_ns = caller_now_ns();
        try {
            CORBA::String_var reply =
                s->targets[i].echo->echoString(r->payload);
            caller_call_reply(r, i, reply.in(), std::strlen(reply.in()));
        } catch (const CORBA::Exception &ex) {
            caller_call_fail(r, i, ex._name(), "echoString: %s",
                             exception_id(ex));
        }
    }
}

void round_deferred(State *s, caller_round *r)
{
    std::vector<CORBA::Request_var> requests(r->n);
    unsigned long dropped_before = dropped.count;
    int64_t deadline_ns = round_deadline_ns(r);
    for (size_t i = 0; i < r->n; i++) {
        r->calls[i].sent_ns = caller_now_ns();
        if (r->calls[i].sent_ns >= deadline_ns) {
            not_sent(r, i);
            continue;
        }
        try {
            CORBA::Request_var req = s->targets[i].echo->_request("echoString");
            req->add_in_arg() <<= r->payload;
            req->set_return_type(CORBA::_tc_string);
            req->send_deferred();
            requests[i] = req;
        } catch (const CORBA::Exception &ex) {
            caller_call_fail(r, i, ex._name(), "send_deferred: %s",
                             exception_id(ex));
        }
    }
    // Is every request of the round still unanswered one whose reply TAO
    // dropped? (Only counted once a drop was seen: it polls each.)
    auto all_dropped = [&] {
        unsigned long drops = dropped.count - dropped_before;
        if (drops == 0)
            return false;
        size_t unanswered = 0;
        for (size_t j = 0; j < r->n; j++)
            if (requests[j].in() && !requests[j]->poll_response())
                unanswered++;
        return drops >= unanswered;
    };
    for (size_t i = 0; i < r->n; i++) {
        if (!requests[i].in())
            continue;
        CORBA::Request_ptr req = requests[i].in();
        try {
            work_until(s, deadline_ns,
                       [&] { return req->poll_response() || all_dropped(); });
            if (!req->poll_response())
                continue;  // dropped, or late: below
            req->get_response();
            const char *reply = nullptr;
            if (req->return_value() >>= reply)
                caller_call_reply(r, i, reply, std::strlen(reply));
            else
                caller_call_fail(r, i, "BAD_REPLY", "the reply is not a "
                                 "string");
        } catch (const CORBA::Exception &ex) {
            caller_call_fail(r, i, ex._name(), "get_response: %s",
                             exception_id(ex));
        }
        requests[i] = CORBA::Request::_nil();
    }
    bool dropped_all = all_dropped();
    unsigned long drops = dropped.count - dropped_before;
    for (size_t i = 0; i < r->n; i++) {
        if (!requests[i].in())
            continue;
        s->abandoned.push_back(requests[i]);
        if (dropped_all)
            caller_call_fail(r, i, "SYSTEM_EXCEPTION", "TAO 2.2.1's DII "
                             "deferred request dropped its reply, a system "
                             "exception (the server's, or COMM_FAILURE for "
                             "a closed connection): %lu such this round",
                             drops);
        else
            caller_call_fail(r, i, "TIMEOUT", "no reply within the "
                             "round's %ld ms", r->timeout_ms);
    }
}

void round_ami(State *s, caller_round *r)
{
    size_t outstanding = 0;
    int64_t deadline_ns = round_deadline_ns(r);
    for (size_t i = 0; i < r->n; i++) {
        Target &t = s->targets[i];
        if (caller_now_ns() >= deadline_ns) {
            not_sent(r, i);
            continue;
        }
        t.handler->round = r;
        t.handler->index = i;
        t.handler->outstanding = &outstanding;
        r->calls[i].sent_ns = caller_now_ns();
        outstanding++;
        try {
            t.echo->sendc_echoString(t.handler_ref.in(), r->payload);
        } catch (const CORBA::Exception &ex) {
            if (t.handler->round) {  // its handler will not run
                t.handler->round = nullptr;
                outstanding--;
            }
            caller_call_fail(r, i, ex._name(), "sendc_echoString: %s",
                             exception_id(ex));
        }
    }
    try {
        work_until(s, deadline_ns, [&] { return outstanding == 0; });
    } catch (const CORBA::Exception &ex) {
        caller_warn(&ops, "perform_work: %s", ex._name());
    }
    for (size_t i = 0; i < r->n; i++) {
        Reply_Handler *h = s->targets[i].handler;
        if (!h->round)
            continue;
        h->round = nullptr;
        h->stale++;
        caller_call_fail(r, i, "TIMEOUT", "no reply within the round's "
                         "%ld ms", r->timeout_ms);
    }
}

void round_any(void *sp, caller_round *r)
{
    State *s = static_cast<State *>(sp);
    switch (s->mode) {
    case mode_deferred:
        round_deferred(s, r);
        break;
    case mode_ami_callback:
        round_ami(s, r);
        break;
    default:
        round_sync(s, r);
    }
}

// --timeout-ms as TAO's RelativeRoundtripTimeoutPolicy on the ORB's
// policy manager (units of 100 ns).
void set_timeout(CORBA::ORB_ptr orb, long timeout_ms)
{
    CORBA::Object_var obj = orb->resolve_initial_references("ORBPolicyManager");
    CORBA::PolicyManager_var manager = CORBA::PolicyManager::_narrow(obj.in());
    CORBA::Any value;
    value <<= static_cast<TimeBase::TimeT>(timeout_ms) * 10000;
    CORBA::PolicyList policies(1);
    policies.length(1);
    policies[0] = orb->create_policy(
        Messaging::RELATIVE_RT_TIMEOUT_POLICY_TYPE, value);
    manager->set_policy_overrides(policies, CORBA::SET_OVERRIDE);
    policies[0]->destroy();
}

} // namespace

int main(int argc, char **argv)
{
    ops.orb_name = "TAO";
    ops.orb_version = TAO_VERSION;
    ops.build_info = ORBBENCH_TAO_BUILD;
    ops.modes = modes;
    ops.add_target = add_target;
    ops.drop_targets = drop_targets;
    ops.round = round_any;
    caller_options opt;
    int rc = caller_parse(argc, argv, &ops, &opt);
    if (rc >= 0)
        return rc;
    if (caller_die_with_parent() != 0)
        return 3;
    State s;
    s.mode = static_cast<int>(opt.mode_index);
    std::vector<std::string> words;
    if (!orb_words(opt.orb_argc, opt.orb_argv, s.mode, &words))
        return 2;
    std::vector<char *> args;
    for (std::string &w : words)
        args.push_back(&w[0]);
    int nargs = static_cast<int>(args.size());
    args.push_back(nullptr);
    ACE_LOG_MSG->msg_callback(&dropped);
    ACE_LOG_MSG->set_flags(ACE_Log_Msg::MSG_CALLBACK);
    try {
        s.orb = CORBA::ORB_init(nargs, args.data());
    } catch (const CORBA::Exception &ex) {
        caller_warn(&ops, "ORB_init: %s (%s)%s", ex._name(), exception_id(ex),
                    std::strcmp(ex._name(), "BAD_PARAM") == 0
                        ? ": an ORB option TAO does not know?" : "");
        return 1;
    }
    try {
        for (int i = 1; i < nargs; i++) {
            caller_warn(&ops, "unknown ORB argument \"%s\"", args[i]);
            return 2;
        }
        set_timeout(s.orb.in(), opt.timeout_ms);
        if (s.mode == mode_ami_callback) {
            CORBA::Object_var obj =
                s.orb->resolve_initial_references("RootPOA");
            s.poa = PortableServer::POA::_narrow(obj.in());
            PortableServer::POAManager_var manager = s.poa->the_POAManager();
            manager->activate();
        }
        rc = caller_serve(&ops, &s, &opt);
        s.targets.clear();
        if (s.mode == mode_ami_callback)
            s.poa->destroy(true, false);
        s.orb->destroy();
        s.abandoned.clear();
    } catch (const CORBA::Exception &ex) {
        caller_warn(&ops, "CORBA exception %s (%s)", ex._name(),
                    exception_id(ex));
        return 1;
    }
    return rc;
}

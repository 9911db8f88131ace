// omniORB push consumer for orbbench's event channel kind: implements
// CosEventComm::PushConsumer and appends every event it is pushed to a
// memory-mapped log file, as Miro's logger does (client/codec/event_log.h:
// the event marshaled in CDR, after a record of its send, receive and
// logged times). With --factory it makes an event channel (omniEvents's
// factory, a CosLifeCycle::GenericFactory), with --channel it takes one,
// and connects to it as push consumer; with neither it is pushed to
// directly. Prints one line, "CONSUMER_IOR" or "CONSUMER_IOR CHANNEL_IOR",
// and serves until killed. `--version` prints "omniORB <version>".
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <omniEvents/CosEventChannelAdmin.hh>
#include <omniEvents/CosEventComm.hh>
#include <omniEvents/CosLifeCycle.hh>

#include "../common/activate.hh"
#include "codec/event_log.h"
#include "payloads.hh"

namespace {

const char *const prog = "event-consumer";

uint64_t now_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// One event type of idl/payloads.idl: its name (the client's payload
// name) and how to take it out of an any and marshal it. Extraction
// tries each in turn, as a consumer that knows the types would.
struct event_type {
    const char *name;
    // The event's sent_ns and its CDR bytes in `out`; false when the any
    // holds another type.
    bool (*take)(const CORBA::Any &a, uint64_t *sent_ns, cdrMemoryStream &out);
};

template <class Event>
bool take_event(const CORBA::Any &a, uint64_t *sent_ns, cdrMemoryStream &out)
{
    const Event *e;
    if (!(a >>= e))
        return false;
    *sent_ns = e->sent_ns;
    *e >>= out;
    return true;
}

const event_type types[] = {
    {"None", take_event<Bench::NoneEvent>},
    {"Octet1K", take_event<Bench::Octet1KEvent>},
    {"Octet100K", take_event<Bench::Octet100KEvent>},
    {"Odometry", take_event<Bench::OdometryEvent>},
    {"RangeSensor", take_event<Bench::RangeSensorEvent>},
    {"SharedBelief", take_event<Bench::SharedBeliefEvent>},
};
const size_t ntypes = sizeof types / sizeof *types;

// The mapped log. append() is called by omniORB's threads: one lock.
class EventLog {
  public:
    // Create `path` of `bytes` bytes and map it. 0, or -1 after printing
    // a one-line error.
    int create(const char *path, uint64_t bytes)
    {
        path_ = path;
        uint64_t header = sizeof(event_log_header) +
                          ntypes * EVENT_LOG_NAME_BYTES;
        header = (header + 7) & ~(uint64_t)7;
        if (bytes < header) {
            std::fprintf(stderr, "%s: --log-bytes %llu: below the log's "
                         "%llu-byte header\n", prog,
                         (unsigned long long)bytes,
                         (unsigned long long)header);
            return -1;
        }
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
            std::fprintf(stderr, "%s: log %s: %s\n", prog, path,
                         std::strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                       fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            std::fprintf(stderr, "%s: log %s: mmap: %s\n", prog, path,
                         std::strerror(errno));
            return -1;
        }
        map_ = static_cast<uint8_t *>(m);
        h_ = static_cast<event_log_header *>(m);
        std::memcpy(h_->magic, EVENT_LOG_MAGIC, 8);
        h_->header_bytes = (uint32_t)header;
        h_->ntypes = (uint32_t)ntypes;
        h_->capacity_bytes = bytes;
        h_->used_bytes = header;
        char *names = reinterpret_cast<char *>(h_ + 1);
        for (size_t i = 0; i < ntypes; i++)
            std::strncpy(names + i * EVENT_LOG_NAME_BYTES, types[i].name,
                         EVENT_LOG_NAME_BYTES - 1);
        return 0;
    }

    void append(const CORBA::Any &a)
    {
        uint64_t received = now_ns();
        std::lock_guard<std::mutex> hold(lock_);
        uint64_t sent = 0;
        uint32_t type = EVENT_LOG_TYPE_UNKNOWN;
        buf_.rewindPtrs();
        for (size_t i = 0; i < ntypes && type == EVENT_LOG_TYPE_UNKNOWN; i++)
            if (types[i].take(a, &sent, buf_))
                type = (uint32_t)i;
        uint64_t bytes = type == EVENT_LOG_TYPE_UNKNOWN ? 0
                                                        : buf_.bufSize();
        uint64_t at = h_->used_bytes, need = event_log_record_bytes(bytes);
        if (need > h_->capacity_bytes - at) {
            if (h_->dropped++ == 0)
                std::fprintf(stderr, "%s: log %s is full (%llu bytes): "
                             "events from here on are dropped\n", prog,
                             path_, (unsigned long long)h_->capacity_bytes);
            return;
        }
        event_log_record *r = reinterpret_cast<event_log_record *>(map_ + at);
        std::memcpy(r + 1, buf_.bufPtr(), bytes);
        r->logged_ns = now_ns();
        r->sent_ns = sent;
        r->received_ns = received;
        r->type = type;
        r->bytes = (uint32_t)bytes;
        if (type == EVENT_LOG_TYPE_UNKNOWN)
            h_->unknown++;
        __atomic_store_n(&h_->used_bytes, at + need, __ATOMIC_RELAXED);
        __atomic_store_n(&h_->records, h_->records + 1, __ATOMIC_RELEASE);
    }

  private:
    const char *path_ = "";
    uint8_t *map_ = nullptr;
    event_log_header *h_ = nullptr;
    cdrMemoryStream buf_;
    std::mutex lock_;
};

class Consumer : public POA_CosEventComm::PushConsumer {
  public:
    Consumer(EventLog &log, uint64_t hang_after)
        : log_(log), hang_after_(hang_after)
    {
    }
    void push(const CORBA::Any &data) override
    {
        log_.append(data);
        // --hang-after N: event N is logged, and its push (and every later
        // one) never replies: an event that reached the consumer while the
        // client saw no reply. Bounded: the client ends the process.
        if (hang_after_ &&
            __atomic_add_fetch(&pushes_, 1, __ATOMIC_RELAXED) >= hang_after_)
            for (int s = 0; s < 600; s++)
                sleep(1);
    }
    // The channel went away: the client sees no more events logged.
    void disconnect_push_consumer() override {}

  private:
    EventLog &log_;
    uint64_t hang_after_; // 0: never
    uint64_t pushes_ = 0;
};

struct options {
    const char *factory = nullptr; // an omniEvents factory reference
    const char *channel = nullptr; // an event channel reference
    const char *log = nullptr;
    uint64_t log_bytes = 64u << 20;
    long long cycle_period_ns = -1; // -1: omniEvents's default (0.1 s)
    bool connect = true;
    uint64_t hang_after = 0; // --hang-after: a fault for tests; 0: never
};

// A whole decimal number within [0, max]. 0, or -1.
int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (!(s[0] >= '0' && s[0] <= '9') || errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

void usage(FILE *f)
{
    std::fprintf(f,
                 "usage: %s --log FILE [--log-bytes N] [--factory REF "
                 "[--cycle-period-ns N] | --channel REF] [--no-connect] "
                 "[--hang-after N] [-ORB...]\n"
                 "       %s --version\n",
                 prog, prog);
}

// The options left after ORB_init took its own. 0, or 2 after a one-line
// error.
int parse(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        uint64_t n;
        bool takes = std::strcmp(a, "--no-connect") != 0;
        if (takes && !v) {
            std::fprintf(stderr, "%s: %s needs a value\n", prog, a);
            return 2;
        }
        if (std::strcmp(a, "--factory") == 0)
            o->factory = v;
        else if (std::strcmp(a, "--channel") == 0)
            o->channel = v;
        else if (std::strcmp(a, "--log") == 0)
            o->log = v;
        else if (std::strcmp(a, "--log-bytes") == 0) {
            if (parse_u64(v, (uint64_t)1 << 40, &n) != 0) {
                std::fprintf(stderr, "%s: --log-bytes: \"%s\" is not a "
                             "number of bytes\n", prog, v);
                return 2;
            }
            o->log_bytes = n;
        } else if (std::strcmp(a, "--cycle-period-ns") == 0) {
            // omniEvents takes an unsigned long and ignores 0.
            if (parse_u64(v, 4294967295u, &n) != 0 || n == 0) {
                std::fprintf(stderr, "%s: --cycle-period-ns: \"%s\" is not "
                             "in [1, 4294967295]\n", prog, v);
                return 2;
            }
            o->cycle_period_ns = (long)n;
        } else if (std::strcmp(a, "--hang-after") == 0) {
            if (parse_u64(v, (uint64_t)1 << 40, &n) != 0 || n == 0) {
                std::fprintf(stderr, "%s: --hang-after: \"%s\" is not a "
                             "number of events above 0\n", prog, v);
                return 2;
            }
            o->hang_after = n;
        } else if (!takes)
            o->connect = false;
        else {
            std::fprintf(stderr, "%s: unknown option \"%s\"\n", prog, a);
            usage(stderr);
            return 2;
        }
        if (takes)
            i++;
    }
    if (!o->log || (o->factory && o->channel) ||
        (o->cycle_period_ns >= 0 && !o->factory)) {
        std::fprintf(stderr, "%s: give --log, at most one of --factory and "
                     "--channel, and --cycle-period-ns only with "
                     "--factory\n", prog);
        return 2;
    }
    return 0;
}

// A new channel from omniEvents's factory: create_object with the key
// "EventChannel"."object interface" and, when set, the CyclePeriod_ns
// criterion (omniEvents's channel moves events from suppliers to
// consumers once a cycle: 0.1 s by default).
CosEventChannelAdmin::EventChannel_ptr
make_channel(CORBA::ORB_ptr orb, const options &o)
{
    CORBA::Object_var obj = orb->string_to_object(o.factory);
    CosLifeCycle::GenericFactory_var factory =
        CosLifeCycle::GenericFactory::_narrow(obj);
    if (CORBA::is_nil(factory))
        throw CORBA::BAD_PARAM();
    CosLifeCycle::Key key;
    key.length(1);
    key[0].id = "EventChannel";
    key[0].kind = "object interface";
    CosLifeCycle::Criteria criteria;
    if (o.cycle_period_ns >= 0) {
        criteria.length(1);
        criteria[0].name = "CyclePeriod_ns";
        criteria[0].value <<= (CORBA::ULong)o.cycle_period_ns;
    }
    obj = factory->create_object(key, criteria);
    return CosEventChannelAdmin::EventChannel::_narrow(obj);
}

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
    std::signal(SIGTERM, SIG_DFL);
    const char *step = "ORB_init";
    try {
        CORBA::ORB_var orb = CORBA::ORB_init(argc, argv);
        options o;
        int rc = parse(argc, argv, &o);
        if (rc)
            return rc;
        EventLog log;
        if (log.create(o.log, o.log_bytes) != 0)
            return 1;
        step = "activating the consumer";
        CORBA::Object_var ref =
            activate_in_root_poa(orb, new Consumer(log, o.hang_after));
        CosEventComm::PushConsumer_var self =
            CosEventComm::PushConsumer::_narrow(ref);
        CORBA::String_var ior = orb->object_to_string(ref);
        CORBA::String_var channel_ior;
        if (o.factory || o.channel) {
            step = o.factory ? "making a channel with the factory"
                             : "resolving the channel";
            CosEventChannelAdmin::EventChannel_var channel =
                o.factory ? make_channel(orb, o)
                          : CosEventChannelAdmin::EventChannel::_narrow(
                                CORBA::Object_var(
                                    orb->string_to_object(o.channel)));
            if (CORBA::is_nil(channel))
                throw CORBA::BAD_PARAM();
            channel_ior = orb->object_to_string(channel);
            if (o.connect) {
                step = "connecting to the channel";
                CosEventChannelAdmin::ConsumerAdmin_var admin =
                    channel->for_consumers();
                CosEventChannelAdmin::ProxyPushSupplier_var proxy =
                    admin->obtain_push_supplier();
                proxy->connect_push_consumer(self);
            }
        }
        if (channel_ior.in())
            std::printf("%s %s\n", ior.in(), channel_ior.in());
        else
            std::printf("%s\n", ior.in());
        std::fflush(stdout);
        step = "serving";
        orb->run();
        orb->destroy();
    } catch (CORBA::SystemException &ex) {
        std::fprintf(stderr, "%s: %s: CORBA system exception %s (minor "
                     "0x%lx)\n", prog, step, ex._name(),
                     (unsigned long)ex.minor());
        return 1;
    } catch (CORBA::Exception &ex) {
        std::fprintf(stderr, "%s: %s: CORBA exception %s\n", prog, step,
                     ex._name());
        return 1;
    }
    return 0;
}

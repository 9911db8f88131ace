// omniORB's marshaling alone, for the Miro table (kind marshal): for each
// payload the client sends, unmarshal its bytes into the C++ type, then
// marshal that value into a cdrMemoryStream `--encodes M` times per
// repeat, `--repeats R` times, and print one JSON object on stdout with
// the ns per marshal of every repeat. The bytes marshaled must equal the
// bytes given (the client's CDR, host byte order, from an 8-aligned
// start; padding zeroed): both codecs agree on every byte. With an event any after the
// value, it is unmarshaled as a CORBA::Any and extracted as
// Bench::<Name>Event: omniORB must accept the any the client builds.
//
// Input, one line per payload: NAME VALUE_HEX [SENT_NS EVENT_HEX]
// ("-" for an empty value). `--version` prints "omniORB <version>".
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "payloads.hh"

namespace {

typedef std::vector<unsigned char> Bytes;

long long mono_ns()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct Options {
    long encodes;
    long repeats;
};

// What one payload gave: the JSON fields after its name.
struct Outcome {
    std::vector<double> ns_per_encode;
    std::string error; // empty: the bytes agreed
    std::string event; // "ok", "not given", or what went wrong
};

bool from_hex(const std::string &hex, Bytes &out)
{
    out.clear();
    if (hex == "-")
        return true;
    if (hex.size() % 2)
        return false;
    for (size_t i = 0; i < hex.size(); i += 2) {
        char *end;
        std::string two = hex.substr(i, 2);
        unsigned long v = std::strtoul(two.c_str(), &end, 16);
        if (*end || !std::isxdigit((unsigned char)two[0]))
            return false;
        out.push_back((unsigned char)v);
    }
    return true;
}

// Time `o.encodes` marshals of v per repeat; check the bytes against in.
template <class T> void time_marshal(const T &v, const Bytes &in,
                                     const Options &o, Outcome &out)
{
    cdrMemoryStream ws;
    for (long r = 0; r < o.repeats; r++) {
        long long t0 = mono_ns();
        for (long m = 0; m < o.encodes; m++) {
            ws.rewindPtrs();
            v >>= ws;
        }
        long long t1 = mono_ns();
        out.ns_per_encode.push_back((double)(t1 - t0) / (double)o.encodes);
    }
    // omniORB skips padding without writing it: zero the buffer, marshal
    // once more, so that padding compares as the client's (zeros).
    std::memset(ws.bufPtr(), 0, ws.bufSize());
    ws.rewindPtrs();
    v >>= ws;
    size_t n = ws.bufSize();
    const unsigned char *p = static_cast<const unsigned char *>(ws.bufPtr());
    std::ostringstream why;
    if (n != in.size())
        why << "omniORB marshaled " << n << " bytes, the client "
            << in.size();
    for (size_t i = 0; why.str().empty() && i < n; i++)
        if (p[i] != in[i])
            why << "omniORB's byte " << i << " is " << (unsigned)p[i]
                << ", the client's " << (unsigned)in[i];
    out.error = why.str();
}

// The event any: TypeCode and value, extracted as the payload's event.
template <class E> std::string check_event(const Bytes &any_bytes,
                                           unsigned long long sent_ns)
{
    try {
        cdrMemoryStream s(const_cast<unsigned char *>(any_bytes.data()),
                          any_bytes.size());
        CORBA::Any a;
        a <<= s;
        const E *e;
        if (!(a >>= e))
            return "omniORB did not extract the any as the event type";
        if (e->sent_ns != sent_ns)
            return "the event's sent_ns differs";
        if (s.checkInputOverrun(1, 1))
            return "bytes after the any";
        return "ok";
    } catch (CORBA::SystemException &ex) {
        return std::string("omniORB could not unmarshal the any: ") +
               ex._name();
    }
}

// One payload type: unmarshal, time, check; then its event.
template <class T, class E> Outcome bench(const Bytes &in, const Options &o,
                                          const Bytes &any_bytes,
                                          unsigned long long sent_ns)
{
    Outcome out;
    T v;
    try {
        cdrMemoryStream rs(const_cast<unsigned char *>(in.data()),
                           in.size());
        v <<= rs;
        if (rs.checkInputOverrun(1, 1))
            out.error = "bytes after the value";
    } catch (CORBA::SystemException &ex) {
        out.error = std::string("omniORB could not unmarshal the value: ") +
                    ex._name();
    }
    if (out.error.empty())
        time_marshal(v, in, o, out);
    out.event = any_bytes.empty() ? "not given"
                                  : check_event<E>(any_bytes, sent_ns);
    return out;
}

// None: nothing to marshal; the loop alone, and its event.
Outcome bench_none(const Bytes &in, const Options &o, const Bytes &any_bytes,
                   unsigned long long sent_ns)
{
    Outcome out;
    if (!in.empty())
        out.error = "None has no value";
    cdrMemoryStream ws;
    for (long r = 0; r < o.repeats; r++) {
        long long t0 = mono_ns();
        for (long m = 0; m < o.encodes; m++)
            ws.rewindPtrs();
        long long t1 = mono_ns();
        out.ns_per_encode.push_back((double)(t1 - t0) / (double)o.encodes);
    }
    out.event = any_bytes.empty()
                    ? "not given"
                    : check_event<Bench::NoneEvent>(any_bytes, sent_ns);
    return out;
}

typedef Outcome (*BenchFn)(const Bytes &, const Options &, const Bytes &,
                           unsigned long long);

const struct {
    const char *name;
    BenchFn fn;
} payloads[] = {
    {"None", bench_none},
    {"Octet1K", bench<Bench::Octet1K, Bench::Octet1KEvent>},
    {"Octet100K", bench<Bench::Octet100K, Bench::Octet100KEvent>},
    {"Odometry", bench<Bench::Odometry, Bench::OdometryEvent>},
    {"RangeSensor", bench<Bench::RangeSensor, Bench::RangeSensorEvent>},
    {"SharedBelief", bench<Bench::SharedBelief, Bench::SharedBeliefEvent>},
};

std::string json_string(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if ((unsigned char)c >= 0x20)
            out += c;
    }
    return out + "\"";
}

// A whole number in [1, max] from text, or -1.
long parse_count(const char *s, long max)
{
    char *end;
    errno = 0;
    long v = std::strtol(s, &end, 10);
    if (!std::isdigit((unsigned char)s[0]) || errno || *end || v < 1 ||
        v > max)
        return -1;
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::printf("omniORB %s\n", omniORB::versionString());
        return 0;
    }
    Options o = {10000, 11};
    for (int i = 1; i < argc; i++) {
        bool enc = std::strcmp(argv[i], "--encodes") == 0;
        bool rep = std::strcmp(argv[i], "--repeats") == 0;
        long v = (enc || rep) && i + 1 < argc
                     ? parse_count(argv[++i], enc ? 100000000L : 100000L)
                     : -1;
        if (v < 0) {
            std::fprintf(stderr, "marshal-bench: usage: marshal-bench "
                                 "[--encodes M] [--repeats R] < payloads\n");
            return 2;
        }
        (enc ? o.encodes : o.repeats) = v;
    }
    std::ostringstream json;
    json << "{\"orb\": " << json_string(std::string("omniORB ") +
                                        omniORB::versionString())
         << ", \"encodes\": " << o.encodes << ", \"repeats\": " << o.repeats
         << ", \"payloads\": [";
    std::string line;
    for (int n = 0; std::getline(std::cin, line); n++) {
        std::istringstream words(line);
        std::string name, value_hex, sent, any_hex;
        words >> name >> value_hex >> sent >> any_hex;
        Bytes value, any_bytes;
        char *end = nullptr;
        unsigned long long sent_ns =
            sent.empty() ? 0 : std::strtoull(sent.c_str(), &end, 10);
        BenchFn fn = nullptr;
        for (const auto &p : payloads)
            if (name == p.name)
                fn = p.fn;
        if (!fn || !from_hex(value_hex, value) ||
            (!sent.empty() && (*end || !from_hex(any_hex, any_bytes)))) {
            std::fprintf(stderr, "marshal-bench: line %d: expected NAME "
                                 "VALUE_HEX [SENT_NS EVENT_HEX] with NAME a "
                                 "payload of idl/payloads.idl\n", n + 1);
            return 2;
        }
        Outcome out = fn(value, o, any_bytes, sent_ns);
        json << (n ? ", " : "") << "{\"name\": " << json_string(name)
             << ", \"value_bytes\": " << value.size()
             << ", \"ns_per_encode\": [";
        for (size_t i = 0; i < out.ns_per_encode.size(); i++)
            json << (i ? ", " : "") << out.ns_per_encode[i];
        json << "], \"error\": "
             << (out.error.empty() ? "null" : json_string(out.error))
             << ", \"event\": " << json_string(out.event) << "}";
    }
    json << "]}";
    std::cout << json.str() << std::endl;
    return 0;
}

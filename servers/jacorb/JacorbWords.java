// JacORB's words on the command line of orbbench's JacORB programs (the
// echo server here, the caller of callers/jacorb), taken the same way by
// both:
//   -Dkey=value    a JacORB property for ORB.init, above every file's and
//                  the JVM's system properties
//   -ORBName V     JacORB's own options (-ORBName=V too), given to ORB.init
//                  as they are
//   -ORBListenEndpoints E   only with iiop:// endpoints on loopback
// A property that could move a listener off loopback, change what an IOR
// publishes, add transports or read a file orbbench does not check is
// refused, on the command line and among the JVM's system properties.
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

final class JacorbWords {
    // What the words said: the properties, ORB.init's arguments, whether
    // an endpoint was named.
    final Properties props = new Properties();
    final List<String> orbArgs = new ArrayList<>();
    boolean endpoint;
    // Who listens, in the refusals' words ("servers", "callers").
    private final String who;

    JacorbWords(String who) {
        this.who = who;
    }

    // A refused word: its one-line reason.
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
    }

    // Take argv[i] (and its value) when it is one of JacORB's words: the
    // index of the word after it; i itself when the word is not JacORB's.
    int take(String[] argv, int i) throws Refused {
        String a = argv[i];
        String v = i + 1 < argv.length ? argv[i + 1] : null;
        if (a.startsWith("-D") && a.indexOf('=') > 2) {
            String key = a.substring(2, a.indexOf('='));
            String why = refusedProperty(key);
            if (why != null)
                throw new Refused(a + ": " + why);
            props.setProperty(key, a.substring(a.indexOf('=') + 1));
            return i + 1;
        }
        if (a.equalsIgnoreCase("-ORBListenEndpoints")) {
            if (v == null || !loopbackEndpoints(v))
                throw new Refused(a + " " + (v == null ? "" : v) + ": " +
                                  who + " listen on loopback only " +
                                  "(iiop://HOST:PORT with HOST 127.x.x.x, " +
                                  "localhost or ::1)");
            orbArgs.add(a);
            orbArgs.add(v);
            endpoint = true;
            return i + 2;
        }
        if (a.startsWith("-ORB")) {
            // JacORB reads "-ORBName value" and "-ORBName=value" (a
            // property ORBName: none of the refused ones).
            orbArgs.add(a);
            if (a.indexOf('=') < 0 && v != null) {
                orbArgs.add(v);
                return i + 2;
            }
            return i + 1;
        }
        return i;
    }

    // The first of the JVM's system properties that is refused, as
    // "system property KEY: why"; null when none is.
    static String refusedSystemProperty() {
        for (Map.Entry<Object, Object> e : System.getProperties().entrySet()) {
            String why = refusedProperty(e.getKey().toString());
            if (why != null)
                return "system property " + e.getKey() + ": " + why;
        }
        return null;
    }

    // JacORB properties that could move the listener off loopback, change
    // what the IOR publishes, add transports, or read a file orbbench does
    // not check (the endpoint is -ORBListenEndpoints); null when `key` is
    // not one of them.
    static String refusedProperty(String key) {
        if (key.startsWith("OA"))
            return "the endpoint is -ORBListenEndpoints iiop://127.x.x.x:PORT";
        if (key.startsWith("jacorb.ior_proxy_") ||
            key.equals("jacorb.transport.factories") ||
            key.equals("jacorb.transport.server.listeners") ||
            key.startsWith("jacorb.net.") ||
            key.startsWith("jacorb.security.") ||
            key.startsWith("jacorb.ssl.") ||
            key.equals("jacorb.dns.enable"))
            return "servers listen on loopback only, with JacORB's IIOP alone";
        if (key.equals("custom.props") || key.equals("jacorb.config.dir") ||
            key.equals("jacorb.home") || key.equals("ORBid"))
            return "a configuration file can set endpoints orbbench does " +
                   "not check; give the properties on the command line";
        return null;
    }

    // An -ORBListenEndpoints value: iiop:// endpoints on loopback hosts
    // only ("iiop://127.0.0.1:0", ";"- or ","-separated).
    static boolean loopbackEndpoints(String v) {
        String list = v.trim();
        if (list.length() >= 2 && list.startsWith("'") && list.endsWith("'"))
            list = list.substring(1, list.length() - 1);
        boolean any = false;
        for (String e : list.split("[;,]")) {
            e = e.trim();
            if (e.isEmpty())
                continue;
            if (!e.regionMatches(true, 0, "iiop://", 0, 7))
                return false;
            String addr = e.substring(7);
            int at = addr.indexOf('@');
            if (at >= 0)
                addr = addr.substring(at + 1); // a version: 1.2@host:port
            int slash = addr.indexOf('/', addr.lastIndexOf(']') + 1);
            if (slash >= 0)
                addr = addr.substring(0, slash);
            String host;
            if (addr.startsWith("[")) {
                int close = addr.indexOf(']');
                if (close < 0)
                    return false;
                host = addr.substring(1, close);
            } else {
                int colon = addr.lastIndexOf(':');
                host = colon >= 0 ? addr.substring(0, colon) : addr;
            }
            if (!(host.startsWith("127.") || host.equals("localhost") ||
                  host.equals("::1")))
                return false;
            any = true;
        }
        return any;
    }
}

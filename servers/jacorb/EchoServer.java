// JacORB echo server for orbbench: activates one Bench::Echo object in the
// RootPOA, prints its stringified IOR as one line on stdout, and serves
// until killed. Started by its launcher (launcher.c, the echo-server
// executable), which gives the JVM its options and this class path.
//   --version      prints "JacORB <version>" (JacORB's own Version) and, on
//                  a second line, how this JacORB was built (the launcher's
//                  orbbench.build property: scripts/build-orb's BUILD_INFO)
//   --work-us N    each call burns N µs of CPU before replying
//   --work-ns N    and N ns more (a step finer than a µs)
//   -Dkey=value    a JacORB property for ORB.init (jacorb.poa.thread_pool_max
//                  ...), above any file's and the JVM's system properties
//   -ORBName V     JacORB's own options (-ORBName=V too), given to ORB.init
//                  as they are (-ORBListenEndpoints iiop://127.0.0.1:0: the
//                  endpoint)
// Anything else is exit 2. The server model is JacORB's: an acceptor
// thread, one receptor thread per connection that reads its requests
// (jacorb.connection.server.max_receptor_threads, 1,000 by default), and
// the RootPOA's pool of request processors that runs the upcalls
// (jacorb.poa.thread_pool_min 5, thread_pool_max 20).
// It listens on loopback only: a property that would move its listener
// or what it publishes, or read settings from a file orbbench does not
// check, is refused (exit 2), whether given here or to the JVM (the words
// are JacorbWords', which callers/jacorb's caller shares); JacORB's
// default endpoint is pinned to 127.0.0.1, and JacORB's own configuration
// folder is the server's (which holds no jacorb.properties).
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

public final class EchoServer {
    static final String PROG = "echo-server";
    static final long MAX_WORK_US = 1000000;
    static final long MAX_WORK_NS = 1000000000;

    // What a call's work is (servers/common/work.h, the same loop): a
    // fixed count of steps of a chain of dependent multiply-adds, counted
    // once at start-up on the thread's CPU clock.
    static final class Work {
        // Keeps the chain's result alive: the JIT may not drop the loop.
        static volatile int sink;

        static void spin(long steps) {
            int acc = sink;
            for (long i = 0; i < steps; i++)
                acc = acc * 1664525 + 1013904223;
            sink = acc;
        }

        // The loop's steps per ns of this thread's CPU: the fastest of 5
        // passes of 2^16 steps, as work.h times them, after a warm-up that
        // lets the JIT compile spin() (HotSpot's tiered thresholds: a few
        // hundred calls and a loop's back edges), so that the passes time
        // the code the calls will run, not the interpreter's.
        static double stepsPerNs() {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            final long passSteps = 1L << 16;
            for (int i = 0; i < 2000; i++)
                spin(1L << 12);
            double best = 0;
            for (int p = 0; p < 5; p++) {
                long t0 = mx.getCurrentThreadCpuTime();
                spin(passSteps);
                long dt = mx.getCurrentThreadCpuTime() - t0;
                double rate = (double)passSteps / (double)(dt > 0 ? dt : 1);
                if (rate > best)
                    best = rate;
            }
            return best;
        }

        // The steps that burn workNs of CPU at the speed measured now (0
        // for none; once, at start-up).
        static long steps(long workNs) {
            if (workNs <= 0)
                return 0;
            double s = (double)workNs * stepsPerNs() + 0.5;
            return s < 1 ? 1 : (long)s;
        }
    }

    static final class Echo extends Bench.EchoPOA {
        private final long workSteps;
        private final AtomicLong oneways = new AtomicLong();

        Echo(long workSteps) {
            this.workSteps = workSteps;
        }

        private void work() {
            if (workSteps > 0)
                Work.spin(workSteps);
        }

        public String echoString(String mesg) {
            work();
            return mesg;
        }

        public void sendOneway(String mesg) {
            work();
            oneways.incrementAndGet();
        }

        public String onewayCount() {
            return Long.toString(oneways.get());
        }

        // The typed payloads (call.payload): each returns its argument,
        // which the skeleton marshals and then drops.
        public void echoNone() {
            work();
        }

        public byte[] echoOctet1K(byte[] v) {
            work();
            return v;
        }

        public byte[] echoOctet100K(byte[] v) {
            work();
            return v;
        }

        public Bench.Odometry echoOdometry(Bench.Odometry v) {
            work();
            return v;
        }

        public Bench.RangeSensor echoRangeSensor(Bench.RangeSensor v) {
            work();
            return v;
        }

        public Bench.BeliefObject[] echoSharedBelief(Bench.BeliefObject[] v) {
            work();
            return v;
        }

        // Kind objects: `count` more objects, each a servant like this one
        // (the same work a call) or served by one default servant.
        public long makeObjects(int count, boolean defaultServant,
                                org.omg.CORBA.ObjectHolder first,
                                org.omg.CORBA.ObjectHolder last,
                                org.omg.CORBA.StringHolder policies) {
            return Objects.make(this, count, defaultServant, first, last,
                                policies);
        }
    }

    // idl/echo.idl's makeObjects (docs/kinds/objects.md), as the C++
    // servers make them (servers/common/objects.hh): one child POA of the
    // RootPOA, "objects", made at the first call under the RootPOA's
    // manager, with USER_ID, RETAIN and USE_ACTIVE_OBJECT_MAP_ONLY (a
    // servant each) or USER_ID, NON_RETAIN, USE_DEFAULT_SERVANT and
    // MULTIPLE_ID (one default servant); object i's ObjectId is i as 8
    // decimal digits. Calls are serialized (the POA's request processors
    // may run several at once).
    static final class Objects {
        static final long MAX_PER_CALL = 1L << 20;
        static final long MAX = 99999999L;
        private static org.omg.PortableServer.POA poa;
        private static boolean shared;
        private static long made;

        static synchronized long make(Echo parent, int countArg,
                                      boolean defaultServant,
                                      org.omg.CORBA.ObjectHolder first,
                                      org.omg.CORBA.ObjectHolder last,
                                      org.omg.CORBA.StringHolder policies) {
            long count = countArg & 0xffffffffL; // an unsigned long
            if (count == 0 || count > MAX_PER_CALL || count > MAX - made)
                throw new org.omg.CORBA.BAD_PARAM();
            try {
                if (poa == null)
                    start(parent, defaultServant);
                else if (defaultServant != shared)
                    throw new org.omg.CORBA.BAD_INV_ORDER();
                long t0 = System.nanoTime();
                for (long k = 0; k < count; k++) {
                    String n = Long.toString(made + k);
                    byte[] oid = ("00000000".substring(n.length()) + n)
                        .getBytes(StandardCharsets.US_ASCII);
                    org.omg.CORBA.Object ref;
                    if (shared) {
                        ref = poa.create_reference_with_id(
                            oid, "IDL:Bench/Echo:1.0");
                    } else {
                        poa.activate_object_with_id(
                            oid, new Echo(parent.workSteps));
                        ref = poa.id_to_reference(oid);
                    }
                    if (k == 0)
                        first.value = ref;
                    if (k + 1 == count)
                        last.value = ref;
                }
                long ns = System.nanoTime() - t0;
                made += count;
                policies.value = shared
                    ? "USER_ID NON_RETAIN USE_DEFAULT_SERVANT MULTIPLE_ID"
                    : "USER_ID RETAIN USE_ACTIVE_OBJECT_MAP_ONLY";
                return ns;
            } catch (org.omg.CORBA.UserException e) {
                throw new org.omg.CORBA.INTERNAL(e.toString());
            }
        }

        private static void start(Echo parent, boolean defaultServant)
            throws org.omg.CORBA.UserException {
            org.omg.PortableServer.POA root = parent._default_POA();
            org.omg.CORBA.Policy[] policies = defaultServant
                ? new org.omg.CORBA.Policy[] {
                    root.create_id_assignment_policy(
                        org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID),
                    root.create_servant_retention_policy(
                        org.omg.PortableServer.ServantRetentionPolicyValue
                            .NON_RETAIN),
                    root.create_request_processing_policy(
                        org.omg.PortableServer.RequestProcessingPolicyValue
                            .USE_DEFAULT_SERVANT),
                    root.create_id_uniqueness_policy(
                        org.omg.PortableServer.IdUniquenessPolicyValue
                            .MULTIPLE_ID)}
                : new org.omg.CORBA.Policy[] {
                    root.create_id_assignment_policy(
                        org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID),
                    root.create_servant_retention_policy(
                        org.omg.PortableServer.ServantRetentionPolicyValue
                            .RETAIN),
                    root.create_request_processing_policy(
                        org.omg.PortableServer.RequestProcessingPolicyValue
                            .USE_ACTIVE_OBJECT_MAP_ONLY)};
            org.omg.PortableServer.POA child =
                root.create_POA("objects", root.the_POAManager(), policies);
            for (org.omg.CORBA.Policy p : policies)
                p.destroy();
            if (defaultServant)
                child.set_servant(new Echo(parent.workSteps));
            poa = child;
            shared = defaultServant;
        }
    }

    static int usage(String fmt, Object... args) {
        System.err.println(PROG + ": " + String.format(fmt, args));
        return 2;
    }

    // A value of --work-us or --work-ns: an integer in [0, max], digits
    // only; -1 when it is not.
    static long parseWork(String name, String v, long max) {
        if (v == null || v.isEmpty() || !v.chars().allMatch(Character::isDigit)
            || v.length() > 10 || Long.parseLong(v) > max) {
            usage("%s: \"%s\" is not an integer in [0, %d]", name, v, max);
            return -1;
        }
        return Long.parseLong(v);
    }

    static int run(String[] argv) throws Exception {
        if (argv.length > 0 && argv[0].equals("--version")) {
            System.out.println("JacORB " + org.jacorb.util.Version.version);
            System.out.println(System.getProperty("orbbench.build", "unknown"));
            return 0;
        }
        long workUs = 0, workNs = 0;
        JacorbWords words = new JacorbWords("servers");
        for (int i = 0; i < argv.length;) {
            String a = argv[i];
            String v = i + 1 < argv.length ? argv[i + 1] : null;
            if (a.equals("--work-us") || a.equals("--work-ns")) {
                boolean us = a.equals("--work-us");
                long n = parseWork(a, v, us ? MAX_WORK_US : MAX_WORK_NS);
                if (n < 0)
                    return 2;
                if (us)
                    workUs = n;
                else
                    workNs = n;
                i += 2;
                continue;
            }
            int next;
            try {
                next = words.take(argv, i);
            } catch (JacorbWords.Refused e) {
                return usage("%s", e.getMessage());
            }
            if (next == i)
                return usage("unknown argument \"%s\"", a);
            i = next;
        }
        String refused = JacorbWords.refusedSystemProperty();
        if (refused != null)
            return usage("%s", refused);
        if (!words.endpoint)
            return usage("no -ORBListenEndpoints: name a loopback endpoint " +
                         "(iiop://127.0.0.1:0)");
        long steps = Work.steps(workUs * 1000 + workNs);

        // JacORB's own classes, named (its org.omg.CORBA.ORB defaults to
        // them too); the default endpoint, unused beside the command
        // line's, pinned to loopback; its configuration folder the
        // server's own, which holds no jacorb.properties (it would
        // otherwise read one from the working folder).
        Properties props = words.props;
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass",
                          "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", "127.0.0.1");
        props.setProperty("jacorb.config.dir",
                          System.getProperty("orbbench.dir", "/nonexistent"));
        org.omg.CORBA.ORB orb = org.omg.CORBA.ORB.init(
            words.orbArgs.toArray(new String[0]), props);
        org.omg.PortableServer.POA root = org.omg.PortableServer.POAHelper
            .narrow(orb.resolve_initial_references("RootPOA"));
        org.omg.CORBA.Object ref = root.servant_to_reference(new Echo(steps));
        root.the_POAManager().activate();
        System.out.println(orb.object_to_string(ref));
        System.out.flush();
        orb.run();
        return 0;
    }

    public static void main(String[] argv) {
        int rc;
        try {
            rc = run(argv);
        } catch (Exception | LinkageError e) {
            System.err.println(PROG + ": " + e);
            rc = 1;
        }
        System.out.flush();
        System.exit(rc);
    }
}

// JacORB's own Java client as a caller (docs/callers.md): each round's
// calls made by JacORB on orbbench's command, so that the client half of
// JacORB is measured the way its servers are. Started by its launcher
// (servers/jacorb/launcher.c built as bin/orbs/ID/caller), which sets the
// parent-death signal, gives the JVM its -J options and execs java on
// this class: the caller is the process orbbench started.
//
//   caller [--mode MODE] [--payload-bytes B] [--timeout-ms T]
//          [-- JACORB-WORDS...]
//
// Modes (--modes lists them, the default first):
//   sync          static stubs, one echoString after another; each call
//                 waits for its reply, which the connection's receptor
//                 thread reads
//   deferred      DII: a Request per target, send_deferred() for every
//                 target, then get_response() for each in turn (JacORB
//                 3.4 starts a new thread for each deferred request,
//                 which makes the call and ends with it)
//   ami-callback  AMI (JacORB's IDL compiler, -ami_callback):
//                 sendc_echoString with a reply handler per target (a
//                 servant in the RootPOA, called on the receptor thread
//                 that read the reply; the RootPOA listens, on loopback)
// JacORB 3.4 has no AMI poller: its IDL compiler's -ami_polling says "the
// polling model is not yet implemented".
// JACORB-WORDS are JacorbWords' (servers/jacorb): -Dkey=value properties
// (jacorb.connection.client.max_receptor_threads ...), -ORB options. T is
// JacORB's reply timeout (jacorb.connection.client.pending_reply_timeout)
// and its connect timeout; a round of deferred or AMI calls waits for
// its replies at most 2 T and 1 s. The commands come on stdin, the
// answers go to stdout, one line each; errors to stderr.
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import org.omg.CORBA.SystemException;

public final class Caller {
    static final String PROG = "jacorb-caller";
    static final String[] MODES = {"sync", "deferred", "ami-callback"};
    static final int LINE_MAX = 64 * 1024;  // CALLER_LINE_MAX
    static final int TIMES_PER_LINE = 1024; // CALLER_TIMES_PER_LINE
    static final int FAILS_LISTED = 16;     // CALLER_FAILS_LISTED
    static final long MS = 1000000L;

    final String mode;
    final String payload;
    final long timeoutMs;
    org.omg.CORBA.ORB orb;
    org.omg.PortableServer.POA poa; // ami-callback: the reply handlers'
    final List<Bench.Echo> targets = new ArrayList<>();
    final List<Bench.AMI_EchoHandler> handlers = new ArrayList<>();

    // The round under way, call by call (ns; got 0: not completed). The
    // reply handlers write into it from receptor threads: under `lock`.
    final Object lock = new Object();
    long seq;
    int n;
    long t0;
    long[] sent = new long[0], got = new long[0];
    final StringBuilder fails = new StringBuilder();
    int failed, listed, answers;

    // deferred: the round's requests, and the exception that ended the
    // thread of a request before it finished (JacORB's deferred thread
    // does not catch what binding the target throws, NO_RESOURCES among
    // them: get_response() would then wait for ever).
    org.omg.CORBA.Request[] reqs = new org.omg.CORBA.Request[0];
    volatile Throwable[] died = new Throwable[0];
    // The target of the deferred request whose thread is starting: its
    // thread inherits it, so that an exception that ends the thread is
    // told of its target.
    static final InheritableThreadLocal<Integer> TARGET =
        new InheritableThreadLocal<>();

    Caller(String mode, int payloadBytes, long timeoutMs) {
        this.mode = mode;
        char[] x = new char[payloadBytes];
        Arrays.fill(x, 'x');
        this.payload = new String(x);
        this.timeoutMs = timeoutMs;
    }

    static final FileOutputStream OUT =
        new FileOutputStream(FileDescriptor.out);

    // Write the answer whole; exit when the harness is gone.
    static void reply(String s) {
        try {
            OUT.write(s.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            System.exit(1);
        }
    }

    static void die(int code, String what) {
        System.err.println(PROG + ": " + what);
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }

    // One line of a message: printable ASCII only, at most 300 bytes.
    static String clean(String s) {
        return clean(s, 300);
    }

    static String clean(String s, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; s != null && i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

    // An exception as the protocol's WORD and MESSAGE: a CORBA system
    // exception by its name (TRANSIENT, TIMEOUT, NO_RESOURCES), with its
    // minor code, completion status and JacORB's text; anything else (a
    // JVM error: no thread could be made) by its class's name.
    static String[] words(Throwable e) {
        String text = clean(e.getMessage());
        if (e instanceof SystemException) {
            SystemException s = (SystemException)e;
            String done = s.completed.value() == 0 ? "yes"
                        : s.completed.value() == 1 ? "no" : "maybe";
            return new String[] {
                clean(e.getClass().getSimpleName()),
                String.format("minor 0x%x, completed %s%s", s.minor, done,
                              text.isEmpty() ? "" : ": " + text)};
        }
        return new String[] {clean(e.getClass().getSimpleName()),
                             text.isEmpty() ? "(no message)" : text};
    }

    void start(long s, int calls) {
        seq = s;
        n = calls;
        if (sent.length < calls) {
            sent = new long[calls];
            got = new long[calls];
        }
        Arrays.fill(sent, 0, calls, 0);
        Arrays.fill(got, 0, calls, 0);
        fails.setLength(0);
        failed = listed = answers = 0;
        t0 = System.nanoTime();
    }

    void fail(int i, String word, String msg) {
        synchronized (lock) {
            failed++;
            if (listed++ >= FAILS_LISTED)
                return;
            fails.append("fail ").append(seq).append(' ').append(i)
                .append(' ').append(word).append(' ').append(msg)
                .append('\n');
        }
    }

    void fail(int i, Throwable e) {
        String[] w = words(e);
        fail(i, w[0], w[1]);
    }

    // An answer to call i: its reply (checked) at `at`.
    void replyOf(int i, String ret, long at) {
        synchronized (lock) {
            if (payload.equals(ret))
                got[i] = at;
            else
                fail(i, "BAD_REPLY", "the echo differs from the argument");
        }
    }

    // The answer: times (when recorded), fail lines, done.
    String answer(boolean record) {
        synchronized (lock) {
            StringBuilder out = new StringBuilder();
            int pairs = 0, calls = 0;
            for (int i = 0; i < n; i++) {
                if (got[i] == 0)
                    continue;
                calls++;
                if (!record)
                    continue;
                if (pairs % TIMES_PER_LINE == 0)
                    out.append(pairs > 0 ? "\ntimes " : "times ").append(seq);
                out.append(' ').append(got[i] - sent[i]).append(' ')
                    .append(got[i] - t0);
                pairs++;
            }
            if (pairs > 0)
                out.append('\n');
            out.append(fails);
            out.append("done ").append(seq).append(' ').append(calls)
                .append(' ').append(n - calls).append(' ')
                .append(System.nanoTime() - t0).append('\n');
            return out.toString();
        }
    }

    // The reply handler of one target: its answers go into the round
    // under way, by the target's position.
    final class Handler extends Bench.AMI_EchoHandlerPOA {
        final int i;

        Handler(int i) {
            this.i = i;
        }

        public void echoString(String ret) {
            long at = System.nanoTime();
            synchronized (lock) {
                replyOf(i, ret, at);
                answers++;
                lock.notifyAll();
            }
        }

        public void echoString_excep(org.omg.Messaging.ExceptionHolder h) {
            synchronized (lock) {
                try {
                    h.raise_exception();
                    fail(i, "UNKNOWN", "raise_exception raised nothing");
                } catch (Exception e) {
                    fail(i, e);
                }
                answers++;
                lock.notifyAll();
            }
        }

        // The other operations are never called.
        public void sendOneway() {}
        public void sendOneway_excep(org.omg.Messaging.ExceptionHolder h) {}
        public void onewayCount(String r) {}
        public void onewayCount_excep(org.omg.Messaging.ExceptionHolder h) {}
        public void echoNone() {}
        public void echoNone_excep(org.omg.Messaging.ExceptionHolder h) {}
        public void echoOctet1K(byte[] r) {}
        public void echoOctet1K_excep(org.omg.Messaging.ExceptionHolder h) {}
        public void echoOctet100K(byte[] r) {}
        public void echoOctet100K_excep(
            org.omg.Messaging.ExceptionHolder h) {}
        public void echoOdometry(Bench.Odometry r) {}
        public void echoOdometry_excep(org.omg.Messaging.ExceptionHolder h) {}
        public void echoRangeSensor(Bench.RangeSensor r) {}
        public void echoRangeSensor_excep(
            org.omg.Messaging.ExceptionHolder h) {}
        public void echoSharedBelief(Bench.BeliefObject[] r) {}
        public void echoSharedBelief_excep(
            org.omg.Messaging.ExceptionHolder h) {}
        // The objects kind's operation: never called by a caller.
        public void makeObjects(long r, org.omg.CORBA.Object first,
                                org.omg.CORBA.Object last, String policies) {}
        public void makeObjects_excep(org.omg.Messaging.ExceptionHolder h) {}
    }

    void addTarget(String ior) {
        try {
            // No remote call: the first echoString connects.
            org.omg.CORBA.Object obj = orb.string_to_object(ior);
            Bench.Echo e = Bench.EchoHelper.unchecked_narrow(obj);
            if (e == null) {
                reply("error BAD_PARAM: a nil reference\n");
                return;
            }
            if (mode.equals("ami-callback")) {
                org.omg.CORBA.Object h =
                    poa.servant_to_reference(new Handler(targets.size()));
                handlers.add(Bench.AMI_EchoHandlerHelper.narrow(h));
            }
            targets.add(e);
        } catch (SystemException | org.omg.CORBA.UserException e) {
            String[] w = words(e);
            reply("error " + w[0] + ": " + w[1] + "\n");
            return;
        }
        reply("ok " + targets.size() + "\n");
    }

    void drop(int k) {
        while (targets.size() > k) {
            // Releasing the last reference closes its connection.
            targets.remove(targets.size() - 1)._release();
            if (!handlers.isEmpty()) {
                Bench.AMI_EchoHandler h = handlers.remove(handlers.size() - 1);
                try {
                    poa.deactivate_object(poa.reference_to_id(h));
                } catch (org.omg.CORBA.UserException e) {
                    die(1, "deactivating a reply handler: " + e);
                }
            }
        }
        reply("ok " + targets.size() + "\n");
    }

    void syncRound() {
        for (int i = 0; i < n; i++) {
            sent[i] = System.nanoTime();
            try {
                String ret = targets.get(i).echoString(payload);
                replyOf(i, ret, System.nanoTime());
            } catch (RuntimeException | Error e) {
                fail(i, e);
            }
        }
    }

    // When the replies of a deferred or AMI round must have come.
    long roundDeadline() {
        return t0 + (2 * timeoutMs + 1000) * MS;
    }

    void deferredRound() {
        if (reqs.length < n) {
            reqs = new org.omg.CORBA.Request[n];
            died = new Throwable[n];
        }
        Arrays.fill(reqs, null);
        Arrays.fill(died, null);
        org.omg.CORBA.TypeCode string =
            orb.get_primitive_tc(org.omg.CORBA.TCKind.tk_string);
        for (int i = 0; i < n; i++) {
            try {
                org.omg.CORBA.Request q = targets.get(i)._request("echoString");
                q.add_in_arg().insert_string(payload);
                q.set_return_type(string);
                reqs[i] = q;
                TARGET.set(i);
                sent[i] = System.nanoTime();
                q.send_deferred();
            } catch (RuntimeException | Error e) {
                fail(i, e);
                reqs[i] = null;
            } finally {
                TARGET.remove();
            }
        }
        long deadline = roundDeadline();
        for (int i = 0; i < n; i++) {
            org.omg.CORBA.Request q = reqs[i];
            if (q == null)
                continue;
            boolean done;
            try {
                synchronized (q) {
                    // Its thread notifies q when it ends; a thread ended
                    // by an exception, the uncaught-exception handler.
                    while (!(done = q.poll_response()) && died[i] == null) {
                        long left = (deadline - System.nanoTime()) / MS;
                        if (left <= 0)
                            break;
                        q.wait(left);
                    }
                }
                if (died[i] != null) {
                    fail(i, died[i]);
                    continue;
                }
                if (!done) {
                    fail(i, "TIMEOUT", "no reply within twice the call " +
                         "timeout and 1 s (the caller's bound)");
                    continue;
                }
                q.get_response();
                long at = System.nanoTime();
                Exception ex = q.env().exception();
                if (ex != null)
                    fail(i, ex);
                else
                    replyOf(i, q.return_value().extract_string(), at);
            } catch (RuntimeException | Error | InterruptedException |
                     org.omg.CORBA.WrongTransaction e) {
                fail(i, e);
            }
        }
    }

    // The uncaught-exception handler: a deferred request's thread that
    // an exception ended is told of its target (TARGET), whose wait it
    // ends; any other thread's on stderr, as the JVM would.
    void uncaught(Thread t, Throwable e) {
        Integer i = TARGET.get();
        Throwable[] d = died;
        org.omg.CORBA.Request[] q = reqs;
        if (i != null && i < d.length && i < q.length && q[i] != null &&
            t.getClass().getName().startsWith("org.jacorb.orb.dii.")) {
            d[i] = e;
            synchronized (q[i]) {
                q[i].notifyAll();
            }
            return;
        }
        System.err.println(PROG + ": thread " + t.getName() + ": " + e);
    }

    void callbackRound() {
        int sentOk = 0;
        for (int i = 0; i < n; i++) {
            try {
                sent[i] = System.nanoTime();
                ((Bench._EchoStub)targets.get(i))
                    .sendc_echoString(handlers.get(i), payload);
                sentOk++;
            } catch (RuntimeException | Error e) {
                fail(i, e);
            }
        }
        // Every handler answers, with a reply or an exception; the wait
        // is bounded all the same (JacORB's reply timeout does not reach
        // AMI replies).
        long deadline = roundDeadline();
        synchronized (lock) {
            while (answers < sentOk) {
                long left = (deadline - System.nanoTime()) / MS;
                if (left <= 0)
                    break;
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    break;
                }
            }
            for (int i = 0; i < n && answers < sentOk; i++)
                if (got[i] == 0 && sent[i] != 0)
                    fail(i, "TIMEOUT", "no reply handler call in time");
            answers = Integer.MIN_VALUE; // late answers are not counted
        }
    }

    void round(long s, int calls, boolean record) {
        if (calls > targets.size())
            die(3, "a round of " + calls + " calls with " + targets.size() +
                   " targets");
        start(s, calls);
        if (mode.equals("sync"))
            syncRound();
        else if (mode.equals("deferred"))
            deferredRound();
        else
            callbackRound();
        reply(answer(record));
    }

    // A command's decimal number (digits only, below 2^62); -1 when the
    // word is not one.
    static long number(String w) {
        if (w.isEmpty() || w.length() > 18)
            return -1;
        for (int i = 0; i < w.length(); i++)
            if (w.charAt(i) < '0' || w.charAt(i) > '9')
                return -1;
        return Long.parseLong(w);
    }

    void command(String line) {
        String[] w = line.split(" ", -1);
        if (line.startsWith("target ")) {
            addTarget(line.substring(7));
        } else if (w.length == 2 && w[0].equals("drop") && number(w[1]) >= 0) {
            drop((int)Math.min(number(w[1]), Integer.MAX_VALUE));
        } else if (w.length == 4 && w[0].equals("round") &&
                   number(w[1]) >= 0 && number(w[2]) > 0 &&
                   number(w[2]) <= Integer.MAX_VALUE &&
                   (w[3].equals("0") || w[3].equals("1"))) {
            round(number(w[1]), (int)number(w[2]), w[3].equals("1"));
        } else if (line.equals("quit")) {
            throw new QuitException();
        } else {
            String shown = clean(line);
            die(2, "not a command of the protocol: \"" +
                   shown.substring(0, Math.min(60, shown.length())) + "\"");
        }
    }

    static final class QuitException extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    // Read commands until quit or EOF (as quit).
    void serve() throws IOException {
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        byte[] buf = new byte[LINE_MAX + 1];
        int len = 0, start = 0;
        for (;;) {
            int nl = -1;
            for (int k = start; k < len; k++)
                if (buf[k] == '\n') {
                    nl = k;
                    break;
                }
            if (nl < 0) {
                System.arraycopy(buf, start, buf, 0, len - start);
                len -= start;
                start = 0;
                if (len >= LINE_MAX)
                    die(2, "a command line over 64 KiB");
                int got = in.read(buf, len, LINE_MAX - len);
                if (got <= 0)
                    return; // EOF: as quit
                len += got;
                continue;
            }
            String line = new String(buf, start, nl - start,
                                     StandardCharsets.ISO_8859_1);
            start = nl + 1;
            try {
                command(line);
            } catch (QuitException q) {
                return;
            }
        }
    }

    static long numberArg(String opt, String v, long min, long max) {
        long x = v == null ? -1 : number(v);
        if (x < min || x > max)
            die(2, opt + ": expected a number from " + min + " to " + max);
        return x;
    }

    static void run(String[] argv) throws Exception {
        String mode = "sync";
        long payloadBytes = 16, timeoutMs = 5000;
        int i = 0;
        for (; i < argv.length; i++) {
            String a = argv[i], v = i + 1 < argv.length ? argv[i + 1] : null;
            if (a.equals("--version")) {
                reply("JacORB " + org.jacorb.util.Version.version + "\n" +
                      clean(System.getProperty("orbbench.build", "unknown"),
                            4096) +
                      "\n");
                return;
            } else if (a.equals("--modes")) {
                reply(String.join("\n", MODES) + "\n");
                return;
            } else if (a.equals("--mode") && v != null) {
                mode = v;
                i++;
            } else if (a.equals("--payload-bytes")) {
                payloadBytes = numberArg(a, v, 0, 1048576);
                i++;
            } else if (a.equals("--timeout-ms")) {
                timeoutMs = numberArg(a, v, 1, 600000);
                i++;
            } else if (a.equals("--")) {
                i++;
                break;
            } else {
                die(2, "unknown argument " + clean(a));
            }
        }
        if (!Arrays.asList(MODES).contains(mode))
            die(2, "no mode " + clean(mode) + " in JacORB's caller (see " +
                   "--modes)");
        // What came after "--": JacORB's words, as the server takes them.
        JacorbWords words = new JacorbWords("callers");
        String[] rest = Arrays.copyOfRange(argv, i, argv.length);
        for (int k = 0; k < rest.length;) {
            int next;
            try {
                next = words.take(rest, k);
            } catch (JacorbWords.Refused e) {
                die(2, e.getMessage());
                return;
            }
            if (next == k)
                die(2, "unknown argument \"" + clean(rest[k]) + "\"");
            k = next;
        }
        String refused = JacorbWords.refusedSystemProperty();
        if (refused != null)
            die(2, refused);

        Caller c = new Caller(mode, (int)payloadBytes, timeoutMs);
        // JacORB's own classes, named; its configuration folder the
        // launcher's, which holds no jacorb.properties (it would otherwise
        // read one from the working folder); a POA (ami-callback) listens
        // on loopback unless the words name an endpoint (on loopback).
        // The call timeout: JacORB's reply and connect timeouts, which
        // the words may set otherwise.
        Properties props = new Properties();
        props.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        props.setProperty("org.omg.CORBA.ORBSingletonClass",
                          "org.jacorb.orb.ORBSingleton");
        props.setProperty("OAIAddr", "127.0.0.1");
        props.setProperty("jacorb.config.dir",
                          System.getProperty("orbbench.dir", "/nonexistent"));
        props.setProperty("jacorb.connection.client.pending_reply_timeout",
                          Long.toString(timeoutMs));
        props.setProperty("jacorb.connection.client.connect_timeout",
                          Long.toString(timeoutMs));
        props.putAll(words.props);
        List<String> orbArgs = new ArrayList<>(words.orbArgs);
        if (mode.equals("ami-callback") && !words.endpoint) {
            orbArgs.add("-ORBListenEndpoints");
            orbArgs.add("iiop://127.0.0.1:0");
        }
        Thread.setDefaultUncaughtExceptionHandler(c::uncaught);
        c.orb = org.omg.CORBA.ORB.init(orbArgs.toArray(new String[0]), props);
        if (mode.equals("ami-callback")) {
            c.poa = org.omg.PortableServer.POAHelper.narrow(
                c.orb.resolve_initial_references("RootPOA"));
            c.poa.the_POAManager().activate();
        }
        reply("ready " + ProcessHandle.current().pid() + " " + mode + "\n");
        c.serve();
        for (Bench.Echo t : c.targets)
            t._release();
        c.orb.shutdown(false);
        c.orb.destroy();
    }

    public static void main(String[] argv) {
        // Nothing but the protocol on stdout: what a library would print
        // there goes to stderr.
        System.setOut(System.err);
        try {
            run(argv);
        } catch (SystemException e) {
            String[] w = words(e);
            die(1, "CORBA system exception " + w[0] + " (" + w[1] + ")");
        } catch (Exception | LinkageError e) {
            die(1, clean(e.toString()));
        }
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }
}

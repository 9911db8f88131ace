/* The JacORB echo server's executable (bin/orbs/ID/echo-server): execs the
 * JDK's java that JacORB was built with on EchoServer (echo-server.jar
 * beside this file, then the build's class path: its jars), so that the
 * server is one executable as the contract asks (docs/servers.md). Built
 * again with JACORB_MAIN "Caller", JACORB_JAR "caller.jar" and JACORB_PROG
 * "jacorb-caller", it is JacORB's caller (bin/orbs/ID/caller,
 * callers/jacorb, docs/callers.md), which the same holds for.
 *   -JOPTION   (anywhere) an option for the JVM, in the order given: the
 *              scenario's server.jvm.* keys come so, and server.args may
 *              add more (-J-XX:+UseNUMA)
 * Every other word goes to EchoServer, which says what it takes.
 * Before the exec: PR_SET_PDEATHSIG (SIGKILL) with the parent checked, as
 * every orbbench server does: a JVM cannot set it itself, and exec keeps
 * it, so the JVM dies with whoever started this; JAVA_TOOL_OPTIONS,
 * _JAVA_OPTIONS and JDK_JAVA_OPTIONS are dropped (the JVM would read them:
 * its settings are the command line's). JVM options that would listen
 * (JDWP, JMX remote) or replace the class path are refused, exit 2.
 * Built by the Makefile with JACORB_JAVA (the JDK's java), JACORB_CLASSPATH
 * (the build's jars, absolute) and JACORB_BUILD (its BUILD_INFO). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef JACORB_JAVA
#error "JACORB_JAVA: the JDK's java, from orbs/ID/JAVA"
#endif
#ifndef JACORB_CLASSPATH
#error "JACORB_CLASSPATH: the build's class path, from orbs/ID/CLASSPATH"
#endif
#ifndef JACORB_BUILD
#define JACORB_BUILD "unknown"
#endif
/* The class it runs, its jar beside this file, its name in messages;
 * JACORB_STDOUT_PROTOCOL when its stdout carries a protocol (the
 * caller's), which the JVM's own messages must stay off. */
#ifndef JACORB_MAIN
#define JACORB_MAIN "EchoServer"
#endif
#ifndef JACORB_JAR
#define JACORB_JAR "echo-server.jar"
#endif
#ifndef JACORB_PROG
#define JACORB_PROG "echo-server"
#endif

static const char prog[] = JACORB_PROG;

/* JVM options refused, by prefix (after the -J), and why. */
static const struct {
    const char *prefix;
    const char *why;
} refused[] = {
    {"-agentlib:jdwp", "the debugger's agent listens on a socket"},
    {"-Xrunjdwp", "the debugger's agent listens on a socket"},
    {"-Dcom.sun.management.jmxremote", "JMX remote listens on a socket"},
    {"-XX:+ManagementServer", "JMX remote listens on a socket"},
    {"-cp", "the class path is the build's"},
    {"-classpath", "the class path is the build's"},
    {"--class-path", "the class path is the build's"},
    {"-jar", "the class path is the build's"},
};

int main(int argc, char **argv)
{
    char exe[PATH_MAX], jar[PATH_MAX + 32], cp[PATH_MAX + 4096],
        dir_prop[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: readlink /proc/self/exe: %s\n", prog,
                strerror(errno));
        return 1;
    }
    exe[n] = 0;
    const char *dir = dirname(exe);
    snprintf(jar, sizeof jar, "%s/" JACORB_JAR, dir);
    if ((size_t)snprintf(cp, sizeof cp, "%s:%s", jar, JACORB_CLASSPATH) >=
        sizeof cp) {
        fprintf(stderr, "%s: class path too long\n", prog);
        return 1;
    }
    snprintf(dir_prop, sizeof dir_prop, "-Dorbbench.dir=%s", dir);

    /* The -J options first: refused ones end it here. */
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-J", 2) != 0)
            continue;
        const char *opt = argv[i] + 2;
        if (opt[0] != '-') {
            fprintf(stderr, "%s: %s: a JVM option starts with '-' "
                    "(-J-Xmx64m)\n", prog, argv[i]);
            return 2;
        }
        for (size_t r = 0; r < sizeof refused / sizeof refused[0]; r++)
            if (strncmp(opt, refused[r].prefix, strlen(refused[r].prefix))
                == 0) {
                fprintf(stderr, "%s: %s: %s\n", prog, argv[i],
                        refused[r].why);
                return 2;
            }
    }

    /* java, the -J options, ours, the class, the server's words (exec
     * replaces this program: freed only when it fails). */
    char **args = calloc((size_t)argc + 8, sizeof *args);
    if (!args)
        return 1;
    int k = 0;
    args[k++] = (char *)JACORB_JAVA;
#ifdef JACORB_STDOUT_PROTOCOL
    /* Its stdout is a protocol's (the caller's): HotSpot's own messages,
     * its start-up errors among them, go to stderr. */
    args[k++] = "-XX:+DisplayVMOutputToStderr";
#endif
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "-J", 2) == 0)
            args[k++] = argv[i] + 2;
    args[k++] = "-Dorbbench.build=" JACORB_BUILD;
    args[k++] = dir_prop;
    args[k++] = "-cp";
    args[k++] = cp;
    args[k++] = JACORB_MAIN;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "-J", 2) != 0)
            args[k++] = argv[i];
    args[k] = NULL;

    /* Die with the parent (nothing may outlive the benchmark); SIGTERM
     * keeps its default action, which the JVM turns into an exit. */
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        free(args);
        return 3;
    }
    signal(SIGTERM, SIG_DFL);
    unsetenv("JAVA_TOOL_OPTIONS");
    unsetenv("_JAVA_OPTIONS");
    unsetenv("JDK_JAVA_OPTIONS");
    execv(JACORB_JAVA, args);
    fprintf(stderr, "%s: exec %s: %s\n", prog, JACORB_JAVA, strerror(errno));
    free(args);
    return 127;
}

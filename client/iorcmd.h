/* `orbbench ior`: stringified IORs decoded as catior shows them, and what
 * orbbench would connect to for each transport. */
#ifndef ORBBENCH_IORCMD_H
#define ORBBENCH_IORCMD_H

/* Run `orbbench ior [--json] IOR|-...`; argv[0] is "ior". Prints the
 * decoding on stdout, a one-line reason per malformed IOR on stderr.
 * Returns the exit code: 0 all decoded, 2 usage error or a malformed
 * IOR (the others are still shown). */
int iorcmd_main(int argc, char **argv);

#endif

/* The subcommands' exit and their one-line usage errors: see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"

void cli_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("orbbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

void cli_bad_option(const char *sub, const struct option *opts, int c,
                    int opt, const char *typed)
{
    char where[64], see[80];
    snprintf(where, sizeof where, "%s%s", sub ? sub : "", sub ? ": " : "");
    if (sub)
        snprintf(see, sizeof see, "see orbbench help %s", sub);
    else
        snprintf(see, sizeof see, "see orbbench --help");
    bool is_long = typed && strncmp(typed, "--", 2) == 0;
    if (!is_long)   /* a short option: getopt names it by optopt */
        cli_die(EXIT_USAGE, "%s%s \"-%c\"%s (%s)", where,
                c == ':' ? "option" : "unknown option", opt,
                c == ':' ? " needs a value" : "", see);
    /* Its name as typed, without "--" and "=VALUE". */
    char name[SUGGEST_MAX_BYTES];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(typed + 2, "="),
             typed + 2);
    if (c == ':')
        cli_die(EXIT_USAGE, "%soption \"--%s\" needs a value (%s)", where,
                name, see);
    for (const struct option *o = opts; o->name; o++)
        if (strcmp(o->name, name) == 0)
            cli_die(EXIT_USAGE, "%soption \"--%s\" takes no value (%s)",
                    where, name, see);
    /* getopt_long takes a unique prefix: more than one is ambiguous. */
    char matches[200] = "";
    size_t nmatch = 0, len = strlen(name);
    struct suggest s;
    suggest_init(&s, name);
    for (const struct option *o = opts; o->name; o++) {
        if (len && strncmp(o->name, name, len) == 0) {
            size_t used = strlen(matches);
            snprintf(matches + used, sizeof matches - used, "%s--%s",
                     nmatch++ ? ", " : "", o->name);
        }
        suggest_offer(&s, o->name);
    }
    if (nmatch > 1)
        cli_die(EXIT_USAGE, "%soption \"--%s\" is ambiguous: %s (%s)",
                where, name, matches, see);
    const char *best = suggest_best(&s);
    if (best)
        cli_die(EXIT_USAGE, "%sunknown option \"--%s\"; did you mean "
                "\"--%s\"? (%s)", where, name, best, see);
    cli_die(EXIT_USAGE, "%sunknown option \"--%s\" (%s)", where, name, see);
}

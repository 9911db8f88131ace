/* Call mode lookup. */
#include "callmode.h"

#include <string.h>

#include "util.h"

static const struct callmode_ops *const all[] = {&callmode_sync};

const struct callmode_ops *callmode_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(all); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* sandbox create --volume SRC:PATH[:ro] as the lifecycle API's volumes: a
 * host directory when SRC is a path, a named volume (pvc) when it is a name. */
#ifndef ALLOX_CMD_SANDBOX_VOLUMES_H
#define ALLOX_CMD_SANDBOX_VOLUMES_H

#include <jansson.h>

#include "cmd/command.h"

/* Add volumes to create request REQ when ARGS give --volume. 0, or -1 with
 * a usage error naming the bad one. */
int ax_sandbox_volumes_request(const ax_args *args, json_t *req, ax_error *err);

#endif

/* The volumes of a create request: host directories below the prefixes the
 * operator allowed, and named volumes the engine keeps in
 * $ALLOX_HOME/volumes/<claimName> (the spec's pvc backend). Named volumes
 * outlive their sandboxes (unless one made by a sandbox's create asks for
 * deleteOnSandboxTermination) and are not part of checkpoints. */
#ifndef ALLOX_ENGINE_VOLUME_H
#define ALLOX_ENGINE_VOLUME_H

#include <jansson.h>

#include "engine/engine.h"
#include "engine/runtime/runtime.h"

/* Check VOLUMES of a create request: SANDBOX::INVALID_PARAMETER naming the
 * field for anything the engine cannot honour. */
int ax_volumes_check(const ax_engine *e, const json_t *volumes, ax_error *err);
/* Lock held: make REC's missing named volumes that may be made (noting in
 * REC those it made), or fail for one that must exist. */
int ax_volumes_prepare(ax_engine *e, json_t *rec, ax_error *err);
/* The runtime's view of REC's volumes (fds opened now, safely); *N of
 * them in *OUT (free with ax_volumes_close). */
int ax_volumes_open(const ax_engine *e, const json_t *rec, ax_rt_volume **out, size_t *n, ax_error *err);
void ax_volumes_close(ax_rt_volume *v, size_t n);
/* Lock held, REC still in e->sandboxes: remove the named volumes its
 * create made with deleteOnSandboxTermination that no other sandbox uses. */
void ax_volumes_release(ax_engine *e, const json_t *rec);

/* GET /volumes (an allox extension): {items: [{name, usedBy: [sandbox ids]}]}. */
json_t *ax_volume_list(ax_engine *e, ax_error *err);
/* DELETE /volumes/{name}: VOLUME::NOT_FOUND, or VOLUME::IN_USE while a
 * sandbox mounts it. */
int ax_volume_delete(ax_engine *e, const char *name, ax_error *err);

#endif

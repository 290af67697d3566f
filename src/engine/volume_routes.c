/* The /volumes routes (an allox extension: the named volumes of pvc
 * volumes, which the lifecycle spec leaves to the platform). */
#include "engine/routes.h"

#include "engine/volume.h"

void ax_route_volume_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	(void)a;
	ax_answer(resp, 200, ax_volume_list(e, &err), &err);
}

void ax_route_volume_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer_empty(resp, 204, ax_volume_delete(e, a->v[0], &err), &err);
}

/* The extension module links no libmicrohttpd: the MHD_* functions its
 * routes call are defined here and forward to the agent's copy, whose
 * connections they are (ext.h says why). The module is built with
 * -fvisibility=hidden, so these definitions bind only the module's own calls
 * and never interpose on the agent's. */
#include "agent/ext/ext_mhd.h"

#include <stddef.h>

/* Written once by start(), before the module serves any request, and never
 * again: the module's equivalent of a dynamic linker's symbol binding. */
static const struct ag_ext_mhd *agent_mhd;

void ag_ext_mhd_use(const struct ag_ext_mhd *mhd)
{
	agent_mhd = mhd;
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode)
{
	return agent_mhd->create_response_from_buffer(size, buffer, mode);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content)
{
	return agent_mhd->add_response_header(response, header, content);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
				   struct MHD_Response *response)
{
	return agent_mhd->queue_response(connection, status_code, response);
}

struct MHD_Response *MHD_create_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc,
						       void *crc_cls, MHD_ContentReaderFreeCallback crfc)
{
	return agent_mhd->create_response_from_callback(size, block_size, crc, crc_cls, crfc);
}

void MHD_destroy_response(struct MHD_Response *response)
{
	agent_mhd->destroy_response(response);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key)
{
	return agent_mhd->lookup_connection_value(connection, kind, key);
}

/* The module asks only for info types without extra arguments
 * (MHD_CONNECTION_INFO_CONNECTION_FD); none are forwarded. */
const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection,
							enum MHD_ConnectionInfoType info_type, ...)
{
	return agent_mhd->get_connection_info(connection, info_type);
}

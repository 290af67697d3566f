/* rm -rf without following symbolic links, in constant descriptors. */
#ifndef ALLOX_AGENT_EXECD_RMTREE_H
#define ALLOX_AGENT_EXECD_RMTREE_H

/* Remove PATH and, if it is a directory, everything below it. A missing
 * PATH is success. 0, or -1 with errno. */
int ag_rmtree(const char *path);

#endif

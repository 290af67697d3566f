/* Starting and ending the sandbox's Chromium process: found on PATH (or at
 * $ALLOX_AGENT_CHROMIUM), headless with a fresh profile under
 * $HOME/.cache/allox-browser, DevTools on a loopback port the kernel picks
 * (port 0; read back from the profile's DevToolsActivePort), forked with the
 * agent's reaper locked into a process group of its own, with a pidfd that
 * becomes readable when it ends. */
#ifndef ALLOX_AGENT_BROWSER_LAUNCH_H
#define ALLOX_AGENT_BROWSER_LAUNCH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "agent/ext/browser/browser.h"

/* The Debian package named when Chromium is missing. */
#define BL_PACKAGE "chromium"

struct bl_proc {
	pid_t pid;              /* also its process group; 0 when not running */
	int pidfd;
	char profile[PATH_MAX]; /* its --user-data-dir, removed by bl_stop */
	char tmpdir[64];        /* its TMPDIR, removed by bl_stop */
	int port;               /* DevTools port on 127.0.0.1 */
	char ws_path[256];      /* "/devtools/browser/<id>" */
};

/* Start Chromium with a WIDTH x HEIGHT window and wait up to TIMEOUT_MS for
 * its DevTools endpoint. 0, or -1 with ERR (503 when Chromium is missing or
 * will not start). */
int bl_start(struct ag_reaper *reaper, int width, int height, int timeout_ms, struct bl_proc *p,
	     struct ag_error *err);

/* Is it still running? */
bool bl_running(const struct bl_proc *p);

/* End it (SIGTERM to its group, then SIGKILL after GRACE_MS), stop watching
 * it and remove its profile. A no-op when it is not running. */
void bl_stop(struct ag_reaper *reaper, struct bl_proc *p, int grace_ms);

#endif

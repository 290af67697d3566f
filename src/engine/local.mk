# src/engine: allox-engine, the local OpenSandbox server. The top folder is
# its HTTP side (server, routes, sandboxes, snapshots, layers, store);
# runtime/ starts and ends bubblewrap sandboxes (rootfs, idmaps, cgroups,
# network namespace, disk, seccomp, layer copy); egress/ is the per-sandbox
# DNS resolver, nftables filter and policy API.
bin_PROGRAMS += allox-engine
ENGINE_RUNTIME_SOURCES = \
	src/engine/runtime/cgroup.c \
	src/engine/runtime/disk.c src/engine/runtime/disk_detach.c src/engine/runtime/disk.h \
	src/engine/runtime/forward.c src/engine/runtime/forward.h \
	src/engine/runtime/host_mask.c src/engine/runtime/host_mask.h \
	src/engine/runtime/layer_copy.c src/engine/runtime/layer_copy.h \
	src/engine/runtime/netns.c src/engine/runtime/netns.h \
	src/engine/runtime/netns_call.c src/engine/runtime/netns_call.h \
	src/engine/runtime/rootfs.c src/engine/runtime/rootfs_dev.c src/engine/runtime/rootfs_exec.c \
	src/engine/runtime/runtime.c src/engine/runtime/runtime.h \
	src/engine/runtime/runtime_ctl.c \
	src/engine/runtime/runtime_internal.h \
	src/engine/runtime/runtime_rm.c \
	src/engine/runtime/runtime_spawn.c src/engine/runtime/runtime_spawn.h \
	src/engine/runtime/runtime_util.c \
	src/engine/runtime/seccomp_filter.c src/engine/runtime/seccomp_filter.h \
	src/engine/runtime/skeleton.c \
	src/engine/runtime/tool.c src/engine/runtime/tool.h \
	src/engine/runtime/uidrange.c src/engine/runtime/uidrange.h \
	src/engine/runtime/untrusted.c src/engine/runtime/untrusted.h \
	src/engine/runtime/userns.c src/engine/runtime/userns.h
# Everything that links the runtime links libseccomp (the filter every local
# sandbox runs under).
ENGINE_RUNTIME_CFLAGS = $(SECCOMP_CFLAGS)
ENGINE_RUNTIME_LIBS = libaxlib.a $(LIB_LIBS) $(SECCOMP_LIBS)
ENGINE_EGRESS_SOURCES = \
	src/engine/egress/egress.c src/engine/egress/egress.h \
	src/engine/egress/egress_api.c \
	src/engine/egress/egress_dns.c src/engine/egress/egress_dns.h \
	src/engine/egress/egress_nft.c src/engine/egress/egress_nft.h \
	src/engine/egress/egress_policy.c src/engine/egress/egress_policy.h \
	src/engine/egress/egress_upstream.c src/engine/egress/egress_upstream.h
allox_engine_SOURCES = \
	src/engine/engine.h \
	src/engine/create_fields.c \
	src/engine/host_path.c src/engine/host_path.h \
	src/engine/http_server.c src/engine/http_server.h \
	src/engine/layers.c \
	src/engine/main.c \
	src/engine/network.c \
	src/engine/paging.c \
	src/engine/proxy.c src/engine/proxy.h src/engine/proxy_sign.c \
	src/engine/request.c src/engine/request.h \
	src/engine/route.c src/engine/route.h \
	src/engine/routes.c src/engine/routes.h \
	src/engine/sandbox.h \
	src/engine/sandbox_background.c \
	src/engine/sandbox_create.c \
	src/engine/sandbox_ops.c \
	src/engine/sandbox_record.c \
	src/engine/sandbox_routes.c \
	src/engine/sandbox_spawn.c \
	src/engine/snapshot_routes.c \
	src/engine/snapshots.c \
	src/engine/store.c \
	src/engine/volume.c src/engine/volume.h src/engine/volume_routes.c \
	src/engine/wire_error.c src/engine/wire_error.h \
	$(ENGINE_EGRESS_SOURCES) $(ENGINE_RUNTIME_SOURCES) $(TLS_ABSENT_SOURCES)
allox_engine_CPPFLAGS = $(AM_CPPFLAGS) -DLIBEXECDIR='"$(libexecdir)"'
allox_engine_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(CRYPTO_CFLAGS) $(ENGINE_RUNTIME_CFLAGS) $(NFTABLES_CFLAGS) -pthread
allox_engine_LDADD = $(ENGINE_RUNTIME_LIBS) $(MHD_SERVER_LIBS) $(NFTABLES_LIBS) $(CRYPTO_LIBS) -lresolv -lpthread

# src/cli: allox-cli's entry point and the framework that reads the command
# registry the entry point assembles: parsing, value kinds, help, the
# completer, the hidden verbs and the dispatcher that opens a command's target
# before its handler runs.
noinst_LIBRARIES += libaxcli.a
libaxcli_a_SOURCES = \
	src/cli/commands_dump.c \
	src/cli/complete.c src/cli/complete_line.c \
	src/cli/help.c src/cli/help.h \
	src/cli/hidden.h \
	src/cli/idcache_note.c \
	src/cli/parse.c src/cli/parse.h \
	src/cli/registry.c src/cli/registry.h \
	src/cli/target.c src/cli/target.h \
	src/cli/value.c

bin_PROGRAMS += allox-cli
allox_cli_SOURCES = src/cli/main.c
# --as-needed: what libaxlib.a needs for the agent (libresolv) is not loaded
# by every command. Dependencies point one way (ui, cli -> cmd -> api -> lib;
# main.c assembles the registry from the groups of cmd and ui), so each
# archive is listed once, in that order.
allox_cli_LDFLAGS = -Wl,--as-needed
CLIENT_ARCHIVES = libaxcli.a libaxcmd.a libaxapi.a libaxlib.a
CLI_ARCHIVES = libaxui.a $(CLIENT_ARCHIVES)
allox_cli_LDADD = $(CLI_ARCHIVES) $(CLI_DEP_LIBS) -lresolv -lm $(CRYPTO_LIBS)

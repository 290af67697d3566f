# src/cli: allox-cli's entry point and the framework that reads the command
# table: parsing, value kinds, help, the completer, the hidden verbs and the
# dispatcher that opens a command's target before its handler runs.
noinst_LIBRARIES += libaxcli.a
libaxcli_a_SOURCES = \
	src/cli/commands_dump.c \
	src/cli/complete.c src/cli/complete_line.c \
	src/cli/help.c \
	src/cli/hidden.h \
	src/cli/idcache_note.c \
	src/cli/parse.c \
	src/cli/target.c src/cli/target.h \
	src/cli/value.c

bin_PROGRAMS += allox-cli
allox_cli_SOURCES = src/cli/main.c
# --as-needed: what libaxlib.a needs for the agent (libresolv) is not loaded
# by every command. The archives are listed twice because the command table
# (libaxcmd) names the `shell` handler (libaxui), which parses and completes
# with libaxcli, and ld scans each archive once.
allox_cli_LDFLAGS = -Wl,--as-needed
CLI_ARCHIVES = libaxcli.a libaxcmd.a libaxui.a libaxapi.a libaxlib.a libaxcli.a libaxcmd.a libaxui.a libaxapi.a libaxlib.a
allox_cli_LDADD = $(CLI_ARCHIVES) $(CLI_DEP_LIBS) -lresolv -lm $(CRYPTO_LIBS)

# ui: the allox> shell (panes, plain and script modes, readline glue, jobs).
noinst_LIBRARIES += libaxui.a
libaxui_a_CPPFLAGS = $(AM_CPPFLAGS) $(NCURSES_CFLAGS)
libaxui_a_SOURCES = \
	ui/catalog.c ui/catalog.h \
	ui/complete.c ui/complete.h \
	ui/dump.c \
	ui/job.c ui/job.h \
	ui/keymap.c ui/keymap.h \
	ui/keys.c \
	ui/layout.c ui/layout.h \
	ui/outbuf.c ui/outbuf.h \
	ui/panes.c \
	ui/plain.c \
	ui/refresh.c \
	ui/rlglue.c \
	ui/script.c \
	ui/shell.c ui/shell.h \
	ui/shell_cmd.c \
	ui/split.c ui/split.h \
	ui/tui.c ui/tui.h

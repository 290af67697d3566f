#include "shell.h"
int ax_shell_tui(ax_shell *sh) { return ax_shell_plain(sh); }

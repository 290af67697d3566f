# Shell completion; tests/cli/completion.sh drives each against the command table.
bashcompletion_DATA = completions/allox-cli.bash
zshcompletiondir = $(datadir)/zsh/site-functions
zshcompletion_DATA = completions/_allox-cli
fishcompletiondir = $(datadir)/fish/vendor_completions.d
fishcompletion_DATA = completions/allox-cli.fish
EXTRA_DIST += $(bashcompletion_DATA) $(zshcompletion_DATA) $(fishcompletion_DATA)

# bash-completion looks a command's completion up by the command's name.
install-data-hook:
	cd $(DESTDIR)$(bashcompletiondir) && mv -f allox-cli.bash allox-cli
uninstall-hook:
	rm -f $(DESTDIR)$(bashcompletiondir)/allox-cli

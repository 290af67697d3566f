# Man pages; tests/cli/docs.sh checks them against the command table.
man_MANS = man/allox-cli.1 man/allox-cli-sandbox.1 man/allox-cli-session.1 man/allox-cli-aio.1 \
	man/allox-cli-run.1 man/allox-cli-file.1 man/allox-cli-checkpoint.1 man/allox-cli-config.1 \
	man/allox-cli.toml.5 man/allox-engine.8 man/allox-cli-shell.1 man/allox-cli-volume.1
EXTRA_DIST += $(man_MANS:=.in) man/skeleton.sh

#!/bin/sh
# The drift check: the man pages against the command table, as
# curl checks its option table against its docs. Every verb and option of
# `allox-cli __commands` must be documented (with its default, short form,
# arguments and output formats) in its group's page, every global option in
# allox-cli(1), every configuration key in allox-cli.toml(5), every
# allox-engine option in allox-engine(8); nothing may be documented that does
# not exist; `allox-cli help VERB` must show the page's options; the pages
# must render without a warning (groff -ww, mandoc -Tlint).
#
# A failure lists each missing or stale item and prints man(7) source ready
# to paste (man/skeleton.sh). Completions are checked by running them in
# tests/cli/completion.sh.
. "${TESTS_DIR:-tests}/cli/lib.sh"
: "${TESTS_DIR:?}"
SRC=$(cd "$TESTS_DIR/.." && pwd)
MAN=$(cd "$(dirname "$ALLOX_CLI")" && pwd)/man
ENTRIES="$TESTS_DIR/cli/man_entries.awk"
SKELETON="$SRC/man/skeleton.sh"
export ALLOX_CLI

# Verbs the seed README's demos use that other branches add. EXAMPLES in
# allox-cli(1) may show them before they are merged; once a pending verb is
# in the command table it is checked like every other.
PENDING_VERBS=""

allox __commands >"$TMP/commands.json" || { echo "FAIL: allox-cli __commands" >&2; exit 1; }
C="$TMP/commands.json"

# report FILE: fail the case with FILE's contents (what is missing and the skeletons).
report() {
	echo "FAIL: $name" >&2
	cat "$1" >&2
	[ "$case_failed" -eq 1 ] || failed_cases=$((failed_cases + 1))
	case_failed=1
}

verb_key='(.group + (if .name == "" then "" else " " + .name end))'

# What the table says about GROUP, as sorted lists in $TMP/want.*.
table_lists() {
	jq -r --arg g "$1" ".groups[] | select(.name == \$g) | .verbs[] | $verb_key" "$C" | sort >"$TMP/want.verbs"
	jq -r --arg g "$1" ".groups[] | select(.name == \$g) | .verbs[] | $verb_key as \$v
		| ((.options[] | \"\(\$v)\t--\(.long)\t\(.short // \"-\")\"),
		   (if (.formats | length) > 0 then \"\(\$v)\t--output\t-o\" else empty end))" "$C" | sort >"$TMP/want.opts"
}

# check_group_page GROUP PAGE REPORT: compare PAGE with the table; 0 when they agree.
check_group_page() {
	g=$1 page=$2 out=$3
	: >"$out"
	table_lists "$g"
	awk -f "$ENTRIES" "$page" >"$TMP/page.entries"
	awk -F '\t' '$1 == "V" { print $2 }' "$TMP/page.entries" | sort >"$TMP/have.verbs"
	awk -F '\t' '$1 == "O" { print $2 "\t" $3 "\t" $4 }' "$TMP/page.entries" | sort >"$TMP/have.opts"

	comm -23 "$TMP/want.verbs" "$TMP/have.verbs" | while IFS= read -r v; do
		echo "  $page: verb '$v' is not documented; add to COMMANDS:"
		# shellcheck disable=SC2086
		"$SKELETON" $v | sed 's/^/    /'
	done >>"$out"
	comm -13 "$TMP/want.verbs" "$TMP/have.verbs" | while IFS= read -r v; do
		echo "  $page: documents verb '$v', which the command table does not have"
	done >>"$out"
	# Options of documented verbs (a missing verb already printed its whole entry).
	cut -f1,2 "$TMP/want.opts" | sort >"$TMP/want.names"
	cut -f1,2 "$TMP/have.opts" | sort >"$TMP/have.names"
	comm -23 "$TMP/want.names" "$TMP/have.names" | while IFS="$(printf '\t')" read -r v o; do
		grep -qxF "$v" "$TMP/have.verbs" || continue
		echo "  $page: '$v' lacks option $o; add under its .SS:"
		if [ "$o" = "--output" ]; then
			# shellcheck disable=SC2086
			"$SKELETON" $v | awk '/fB\\-o\\fR, /{ p = 1; print ".TP" } p && /^\.(TP|PP|SS)/ && !/fB\\-o/{ if (n++) p = 0 } p'
		else
			# shellcheck disable=SC2086
			"$SKELETON" $v -- "${o#--}"
		fi | sed 's/^/    /'
	done >>"$out"
	comm -13 "$TMP/want.names" "$TMP/have.names" | while IFS="$(printf '\t')" read -r v o; do
		echo "  $page: '$v' documents option $o, which the command table does not have"
	done >>"$out"
	# Short forms must agree.
	awk -F '\t' '{ print $1 " " $2 "\t" $3 }' "$TMP/want.opts" | sort >"$TMP/want.short"
	awk -F '\t' '{ print $1 " " $2 "\t" $3 }' "$TMP/have.opts" | sort >"$TMP/have.short"
	join -t "$(printf '\t')" "$TMP/want.short" "$TMP/have.short" |
		awk -F '\t' '$2 != $3 { print "  '"$page"': " $1 ": short form is " $2 " in the table, " $3 " on the page" }' >>"$out"
	# Defaults, bounds, required options, arguments and output formats.
	jq -r --arg g "$g" ".groups[] | select(.name == \$g) | .verbs[] | $verb_key as \$v
		| (.options[] | select(.default) | \"D\t\(\$v)\t--\(.long)\t\(.default)\"),
		  (.options[] | select(.min) | \"B\t\(\$v)\t--\(.long)\t\(.min)\"),
		  (.options[] | select(.max) | \"B\t\(\$v)\t--\(.long)\t\(.max)\"),
		  (.options[] | select(.required) | \"R\t\(\$v)\t--\(.long)\t-\"),
		  (.positionals[] | \"P\t\(\$v)\t\(.name)\"),
		  (.formats[] | \"F\t\(\$v)\t--output\t\(.)\")" "$C" |
	while IFS="$(printf '\t')" read -r kind v a b; do
		grep -qxF "$v" "$TMP/have.verbs" || continue
		case $kind in
		D)
			awk -F '\t' -v v="$v" -v o="$a" '$1 == "O" && $2 == v && $3 == o { print $5 }' "$TMP/page.entries" |
				grep -qF "Default: $b" ||
				echo "  $page: '$v' $a: the entry must say 'Default: \\fB$b\\fR.'"
			;;
		B)
			awk -F '\t' -v v="$v" -v o="$a" '$1 == "O" && $2 == v && $3 == o { print $5 }' "$TMP/page.entries" |
				grep -qw -- "$b" || echo "  $page: '$v' $a: the entry must name its bound $b"
			;;
		R)
			awk -F '\t' -v v="$v" -v o="$a" '$1 == "O" && $2 == v && $3 == o { print $5 }' "$TMP/page.entries" |
				grep -qi required || echo "  $page: '$v' $a: the entry must say it is required"
			;;
		P)
			awk -F '\t' -v v="$v" '$1 == "V" && $2 == v { print $3 }' "$TMP/page.entries" | grep -qw -- "$a" ||
				echo "  $page: the .SS line of '$v' does not name its argument $a"
			;;
		F)
			awk -F '\t' -v v="$v" '$1 == "O" && $2 == v && $3 == "--output" { print $5 }' "$TMP/page.entries" |
				grep -qw -- "$b" || echo "  $page: '$v' --output does not list the format $b"
			;;
		esac
	done >>"$out"
	[ ! -s "$out" ]
}

t "every command group has its page"
: >"$TMP/r"
for g in $(jq -r '.groups[].name' "$C"); do
	[ -f "$MAN/allox-cli-$g.1" ] && continue
	if [ -f "$SRC/man/allox-cli-$g.1.in" ]; then
		{
			echo "  man/allox-cli-$g.1 is not built: man/allox-cli-$g.1.in exists; add man/allox-cli-$g.1"
			echo "  to AC_CONFIG_FILES (configure.ac) and to man_MANS (Makefile.am), re-run configure,"
			echo "  and name .BR allox\\-cli\\-$g (1) in COMMANDS and SEE ALSO of man/allox-cli.1.in."
		} >>"$TMP/r"
		continue
	fi
	{
		echo "  man/allox-cli-$g.1 is missing: write man/allox-cli-$g.1.in, add man/allox-cli-$g.1 to"
		echo "  AC_CONFIG_FILES (configure.ac) and to man_MANS (Makefile.am), and SEE ALSO in allox-cli.1.in."
		echo "  Its COMMANDS section:"
		"$SKELETON" "$g" | sed 's/^/    /'
	} >>"$TMP/r"
done
[ ! -s "$TMP/r" ] || report "$TMP/r"

for g in $(jq -r '.groups[].name' "$C"); do
	[ -f "$MAN/allox-cli-$g.1" ] || continue
	t "allox-cli-$g(1) documents every verb and option of the table, and nothing else"
	check_group_page "$g" "$MAN/allox-cli-$g.1" "$TMP/r" || report "$TMP/r"
done

t "the check finds a missing option, a stale option and a stale verb, and prints the entry to paste"
# Drop the --ready-timeout entry: its .TP line and the lines up to the next macro.
awk '{ line[NR] = $0 } /^\\fB\\-\\-ready\\-timeout\\fR/ { at = NR }
     END { for (i = 1; i <= NR; i++) {
		if (i == at - 1) continue
		if (at && i >= at) { if (!done && i > at && line[i] ~ /^\./) done = 1; if (!done) continue }
		print line[i] } }' "$MAN/allox-cli-sandbox.1" >"$TMP/doctored.1"
printf '.SS "allox\\-cli sandbox explode"\nNot a verb.\n.TP\n\\fB\\-\\-bogus\\fR\nNot an option.\n' >"$TMP/stale"
sed -i "/^\\.SH COMMANDS/r $TMP/stale" "$TMP/doctored.1"
: >"$TMP/why"
if check_group_page sandbox "$TMP/doctored.1" "$TMP/r"; then
	echo "  the doctored page passed" >>"$TMP/why"
else
	grep -q "'sandbox create' lacks option --ready-timeout" "$TMP/r" || echo "  no report of the missing --ready-timeout" >>"$TMP/why"
	grep -qF '\fB\-\-ready\-timeout\fR \fIDURATION\fR' "$TMP/r" || echo "  no entry to paste" >>"$TMP/why"
	grep -q "documents verb 'sandbox explode'" "$TMP/r" || echo "  no report of the stale verb" >>"$TMP/why"
	grep -q "'sandbox explode' documents option --bogus" "$TMP/r" || echo "  no report of the stale option" >>"$TMP/why"
	[ "$(grep -c '^  ' "$TMP/r" | tr -d ' ')" -ge 3 ] && grep -q 'lacks option --skip-health-check\|lacks option --output' "$TMP/r" &&
		echo "  reported more than the doctored changes" >>"$TMP/why"
fi
[ ! -s "$TMP/why" ] || { cat "$TMP/r" >>"$TMP/why"; report "$TMP/why"; }

t "allox-cli(1) documents every global option, and nothing else"
: >"$TMP/r"
awk -f "$ENTRIES" "$MAN/allox-cli.1" | awk -F '\t' '$1 == "G" { print $3 "\t" $4 }' | sort >"$TMP/have"
jq -r '.global_options[] | "--\(.long)\t\(.short // "-")"' "$C" | sort >"$TMP/want"
comm -23 "$TMP/want" "$TMP/have" | while IFS="$(printf '\t')" read -r o s; do
	echo "  allox-cli.1: global option $o ($s) is not documented; add under OPTIONS:"
	"$SKELETON" --globals "${o#--}" | sed 's/^/    /'
done >>"$TMP/r"
comm -13 "$TMP/want" "$TMP/have" | sed 's/^/  allox-cli.1: documents a global option the table does not have (or with another short form): /' >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "allox-cli(1) names every group page in SEE ALSO"
: >"$TMP/r"
for g in $(jq -r '.groups[].name' "$C"); do
	grep -q "^\.BR allox\\\\-cli\\\\-$g (1)" "$MAN/allox-cli.1" || echo "  allox-cli.1: SEE ALSO lacks .BR allox\\-cli\\-$g (1)" >>"$TMP/r"
done
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "EXAMPLES in the pages use only verbs that exist (or are pending merges)"
: >"$TMP/r"
jq -r ".groups[].verbs[] | $verb_key" "$C" >"$TMP/verbs"
for page in "$MAN"/*.1; do
	# Every "allox-cli GROUP VERB" in example blocks.
	awk '/^\.EX/ { ex = 1; next } /^\.EE/ { ex = 0 } ex' "$page" | sed 's/\\-/-/g; s/\\e/\\/g' |
		grep -o 'allox-cli\( -[-a-z]* [^ ]*\)* [a-z][a-z]*\( [a-z][a-z]*\)\{0,2\}' |
		sed 's/^allox-cli\( -[-a-z]* [^ ]*\)* //' | while IFS= read -r words; do
		set -- $words
		ok=0
		for cand in "$1 ${2:-} ${3:-}" "$1 ${2:-}" "$1"; do
			cand=$(echo "$cand" | sed 's/ *$//')
			if grep -qxF "$cand" "$TMP/verbs" || printf '%s\n' "$PENDING_VERBS" | grep -qxF "$cand"; then
				ok=1
				break
			fi
		done
		[ "$1" = help ] && ok=1
		[ $ok -eq 1 ] || echo "  $(basename "$page"): example runs 'allox-cli $words', which is not a verb"
	done
done >>"$TMP/r"
# A pending verb that now exists must be taken off the list (then it is checked in full).
printf '%s\n' "$PENDING_VERBS" | while IFS= read -r v; do
	grep -qxF "$v" "$TMP/verbs" && echo "  note: '$v' is merged; remove it from PENDING_VERBS in tests/cli/docs.sh" >&2
done
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "allox-cli.toml(5) documents every key with its type and default, and nothing else"
: >"$TMP/r"
awk -f "$ENTRIES" "$MAN/allox-cli.toml.5" >"$TMP/keys.entries"
awk -F '\t' '$1 == "K" { print $3 }' "$TMP/keys.entries" | sort >"$TMP/have"
jq -r '.config_keys[].key' "$C" | sort >"$TMP/want"
comm -23 "$TMP/want" "$TMP/have" | sed 's/^/  allox-cli.toml.5: key not documented under KEYS: /' >>"$TMP/r"
comm -13 "$TMP/want" "$TMP/have" | sed 's/^/  allox-cli.toml.5: documents a key the table does not have: /' >>"$TMP/r"
jq -r '.config_keys[] | "\(.key)\t\(.default // "-")\t\(.type)\t\(.env | join(" "))"' "$C" |
while IFS="$(printf '\t')" read -r k def type env; do
	text=$(awk -F '\t' -v k="$k" '$1 == "K" && $3 == k { print $5 }' "$TMP/keys.entries")
	[ -n "$text" ] || continue
	label=$(awk -F '\t' -v k="$k" '$1 == "K" && $3 == k { print $4 }' "$TMP/keys.entries")
	case $type in
	string | protocol) want="(string" ;;
	int) want="(integer" ;;
	bool) want="(boolean" ;;
	duration | timeout) want="(duration" ;;
	list) want="(list" ;;
	cpu) want="(number of CPUs" ;;
	*) want="($type" ;;
	esac
	case $label in
	"$want"*) ;;
	*) echo "  allox-cli.toml.5: $k is a $type: its label must read '$k $want...)', not '$k $label'" ;;
	esac
	if [ "$def" != "-" ]; then
		printf '%s\n' "$text" | grep -qF "Default: $def" || echo "  allox-cli.toml.5: $k must say 'Default: $def'"
	else
		printf '%s\n' "$text" | grep -qF "Default: unset" || echo "  allox-cli.toml.5: $k must say 'Default: unset'"
	fi
	for e in $env; do
		printf '%s\n' "$text" | grep -qw "$e" || echo "  allox-cli.toml.5: $k must name its variable $e"
	done
done >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "allox-engine(8) documents every option of allox-engine --help, and nothing else"
: >"$TMP/r"
"$ALLOX_ENGINE" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/want"
awk -f "$ENTRIES" "$MAN/allox-engine.8" | awk -F '\t' '$1 == "G" { print $3 }' | sort -u >"$TMP/have"
comm -23 "$TMP/want" "$TMP/have" | sed 's/^/  allox-engine.8: option not documented under OPTIONS: /' >>"$TMP/r"
comm -13 "$TMP/want" "$TMP/have" | sed 's/^/  allox-engine.8: documents an option allox-engine does not have: /' >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "help GROUP VERB shows the same options as the page"
: >"$TMP/r"
jq -r ".groups[].verbs[] | $verb_key" "$C" | while IFS= read -r v; do
	g=${v%% *}
	[ -f "$MAN/allox-cli-$g.1" ] || continue
	# A verb missing from its page is reported above, with its entry.
	awk -f "$ENTRIES" "$MAN/allox-cli-$g.1" | awk -F '\t' -v v="$v" '$1 == "V" && $2 == v { f = 1 } END { exit !f }' ||
		continue
	# shellcheck disable=SC2086
	"$ALLOX_CLI" help $v | awk '/^Options:/ { o = 1; next } /^[A-Z]/ { o = 0 } o' |
		grep -o -- '--[a-z][a-z-]*' | grep -vx -- '--help' | sort -u >"$TMP/help.opts"
	awk -f "$ENTRIES" "$MAN/allox-cli-$g.1" | awk -F '\t' -v v="$v" '$1 == "O" && $2 == v { print $3 }' |
		sort -u >"$TMP/page.opts"
	cmp -s "$TMP/help.opts" "$TMP/page.opts" ||
		echo "  '$v': help shows [$(tr '\n' ' ' <"$TMP/help.opts")], the page [$(tr '\n' ' ' <"$TMP/page.opts")]"
	# The synopsis line too.
	# shellcheck disable=SC2086
	usage=$("$ALLOX_CLI" help $v | sed -n '1s/^Usage: //p')
	awk -f "$ENTRIES" "$MAN/allox-cli-$g.1" | awk -F '\t' -v v="$v" '$1 == "V" && $2 == v { print $3 }' |
		grep -qxF "$usage" || echo "  '$v': the .SS line must read '$usage' as help does"
done >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "allox-cli(1) ERROR CODES documents every -o json error code with its exit status, and nothing else"
: >"$TMP/r"
jq -r '.error_codes[] | "\(.code) \(.exit)"' "$C" | sort >"$TMP/want"
# Each entry: .TP, .B CODE, then a line that starts "Exit N".
awk '/^\.SH / { in_codes = ($0 == ".SH ERROR CODES") } in_codes && /^\.B / { code = $2; next }
	in_codes && code != "" && match($0, /^Exit [0-9]+/) { print code, substr($0, 6, RLENGTH - 5) } { code = "" }' \
	"$MAN/allox-cli.1" | sort >"$TMP/have"
[ -s "$TMP/want" ] || echo "  allox-cli __commands lists no error_codes" >>"$TMP/r"
comm -23 "$TMP/want" "$TMP/have" | sed 's/^\([^ ]*\) \(.*\)/  allox-cli.1: ERROR CODES lacks "\1" with "Exit \2."; add:\
    .TP\
    .B \1\
    Exit \2.\
    (what it means)/' >>"$TMP/r"
comm -13 "$TMP/want" "$TMP/have" | sed 's/^/  allox-cli.1: ERROR CODES documents a code or exit status the program does not have: /' >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "the pages render without a warning under groff -man -ww -z"
: >"$TMP/r"
for page in "$MAN"/*.[158]; do
	LC_ALL=C.UTF-8 groff -man -ww -z "$page" >"$TMP/groff" 2>&1
	[ -s "$TMP/groff" ] && { echo "  $(basename "$page"):"; sed 's/^/    /' "$TMP/groff"; }
done >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "mandoc -Tlint finds nothing"
: >"$TMP/r"
for page in "$MAN"/*.[158]; do
	mandoc -Tlint "$page" >"$TMP/lint" 2>&1
	# mandoc cannot know that a page is not installed yet.
	grep -v 'referenced manual not found' "$TMP/lint" >"$TMP/lint2"
	[ -s "$TMP/lint2" ] && { echo "  $(basename "$page"):"; sed 's/^/    /' "$TMP/lint2"; }
done >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "pages written for verbs not merged yet (man/*.1.in without a built page) render without a warning"
: >"$TMP/r"
for in_page in "$SRC"/man/*.1.in; do
	[ -f "$MAN/$(basename "$in_page" .in)" ] && continue
	{ LC_ALL=C.UTF-8 groff -man -ww -z "$in_page"; mandoc -Tlint "$in_page" | grep -v 'referenced manual not found'; } \
		>"$TMP/lint" 2>&1
	[ -s "$TMP/lint" ] && { echo "  $(basename "$in_page"):"; sed 's/^/    /' "$TMP/lint"; }
done >>"$TMP/r"
[ ! -s "$TMP/r" ] || report "$TMP/r"

t "the versions in .TH are the program's"
: >"$TMP/r"
version=$(allox --version | awk '{ print $2 }')
for page in "$MAN"/*.[158]; do
	grep -q "^\.TH .*\"allox\\\\-cli $version\"" "$page" || echo "  $(basename "$page"): .TH lacks \"allox\\-cli $version\"" >>"$TMP/r"
done
[ ! -s "$TMP/r" ] || report "$TMP/r"

done_testing

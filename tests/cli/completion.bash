# Drive a bash completion function the way readline does (tests/cli/completion.sh).
# Usage: bash completion.bash SCRIPT < queries; a query is a command line
# ending in "|" (the cursor). Prints "== QUERY" and then COMPREPLY, sorted.
if [ -n "${WITH_BASH_COMPLETION:-}" ]; then
	. /usr/share/bash-completion/bash_completion || exit 1
fi
. "$1" || exit 1
while IFS= read -r query; do
	line=${query%|}
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_allox_cli allox-cli "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	echo "== $query"
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
done

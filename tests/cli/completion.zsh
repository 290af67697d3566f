# Drive the zsh completion function without a terminal (tests/cli/completion.sh):
# the completion system's builtins are replaced by stubs that print what
# they were given. Usage: zsh -f completion.zsh SCRIPT < queries; a query is
# a command line ending in "|". Prints "== QUERY" and the candidates, sorted;
# "<files>" or "<dirs>" when local paths would be completed.
source $1 || exit 1
(( $+functions[_allox-cli] )) || { print "no _allox-cli function"; exit 1; }
_describe() {
	local name=${@[-1]} x
	for x in ${(P)name}; do print -r -- ${x%%:*}; done
}
_files() { [[ $1 == -/ ]] && print '<dirs>' || print '<files>'; }
local query line
while IFS= read -r query; do
	line=${query%|}
	words=(${=line})
	[[ $line == *' ' ]] && words+=('')
	CURRENT=$#words
	PREFIX=$words[-1]
	print -r -- "== $query"
	_allox-cli | sort -u
done

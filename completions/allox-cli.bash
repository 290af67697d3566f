# bash completion for allox-cli                            -*- shell-script -*-
#
# Every candidate comes from the command table through the hidden
# `allox-cli __complete line -- WORDS... CURRENT`, which prints one
# "CANDIDATE<TAB>description" per line and then a directive: ":files" or
# ":dirs" (complete local paths here, so the shell quotes them) or ":none".
# Sandbox and checkpoint ids come from a short-lived cache in
# $ALLOX_HOME/cache/; completing never starts the engine.

_allox_cli()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n =: || return
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
	fi

	local prog=${words[0]} line directive=:none
	local IFS=$'\n'
	local -a out
	out=($(command "$prog" __complete line -- "${words[@]:1:cword-1}" "$cur" 2>/dev/null)) || return
	COMPREPLY=()
	for line in "${out[@]}"; do
		case $line in
		:*) directive=$line ;;
		*) COMPREPLY+=("${line%%$'\t'*}") ;;
		esac
	done
	case $directive in
	:files)
		if declare -F _filedir >/dev/null 2>&1; then
			_filedir
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY+=($(compgen -f -- "$cur"))
		fi
		;;
	:dirs)
		if declare -F _filedir >/dev/null 2>&1; then
			_filedir -d
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY+=($(compgen -d -- "$cur"))
		fi
		;;
	esac
}
complete -F _allox_cli allox-cli

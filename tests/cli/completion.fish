# Drive the fish completion with `complete -C` (tests/cli/completion.sh).
# Usage: fish completion.fish SCRIPT < queries; a query is a command line
# ending in "|". Prints "== QUERY" and the candidates without descriptions.
source $argv[1]; or exit 1
while read -l query
    set -l line (string replace -r '\|$' '' -- $query)
    echo "== $query"
    complete -C "$line" | string replace -r '\t.*' '' | sort -u
end

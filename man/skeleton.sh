#!/bin/sh
# Print man(7) source for verbs and options of the command table, ready to
# paste into man/allox-cli-GROUP.1 (the drift check, tests/cli/docs.sh,
# prints the same for whatever it finds missing).
#
#   man/skeleton.sh GROUP [VERB...]         every verb of GROUP, or one verb
#   man/skeleton.sh GROUP VERB... -- OPTION one option entry (long name)
#   man/skeleton.sh --globals [OPTION]      the global options of allox-cli(1), or one
#
# Reads `allox-cli __commands` (ALLOX_CLI, default: allox-cli on PATH); needs jq.
set -eu
cli=${ALLOX_CLI:-allox-cli}

jq_lib='
def esc: gsub("\\\\"; "\\e") | gsub("^(?<d>[.\u0027])"; "\\&\(.d)");
def cap: (.[0:1] | ascii_upcase) + .[1:];
def prose: gsub("(?<o>--[a-z][a-z-]*)"; "\\fB\(.o | gsub("-"; "\\-"))\\fR")
  | gsub("(?<p>^|[ (])-(?<o>[a-zA-Z])(?= )"; "\(.p)\\fB\\-\(.o)\\fR");
def dash: gsub("-"; "\\-");
def opt_label:
  (if .short then "\\fB\\\(.short)\\fR, " else "" end)
  + "\\fB\\-\\-\(.long | dash)\\fR"
  + (if .kind == "flag" then "" elif .kind == "kv" then " \\fIKEY\\fR=\\fIVALUE\\fR"
     else " \\fI\(.metavar // "VALUE")\\fR" end);
def bounds($h):
  [.min, .max] | map(select(. != null)) as $b
  | if ($b | length) == 0 or ($b | all(. as $x | $h | contains($x))) then ""
    elif ($b | length) == 2 then "; from \(.[0]) to \(.[1])"
    elif .[0] then "; at least \(.[0])" else "; at most \(.[1])" end;
def opt_entry:
  (.help // "") as $h
  | ".TP\n" + opt_label + "\n"
  + ((.help // "TODO: describe") | esc | cap | prose)
  + (if .choices then "; one of " + (.choices | join(", ")) else "" end)
  + (if .required and ($h | test("required") | not) then "; required" else "" end)
  + bounds($h)
  + (if .repeatable then "; may be repeated" else "" end) + "."
  + (if .default then "\nDefault: \\fB\(.default)\\fR." else "" end);
def usage:
  "allox\\-cli \(.group)" + (if .name == "" then "" else " \(.name)" end)
  + (if (.options | length) > 0 or (.formats | length) > 0 then " [\\fIOPTIONS\\fR]" else "" end)
  + ([.positionals[] | if .kind == "optional" then " [\\fI\(.name)\\fR]"
      elif .kind == "variadic" then " \\fI\(.name)\\fR..." else " \\fI\(.name)\\fR" end] | join(""));
def output_entry:
  if (.formats | length) > 0 then
    ".TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFORMAT\\fR\nOutput format: "
    + (.formats | join(", ")) + ".\nDefault: \\fB\(.default_format)\\fR."
  else empty end;
def verb_entry:
  ".SS \"" + usage + "\"\n" + (.summary | esc) + "."
  + (if .description then "\n" + (.description | esc | prose) else "" end)
  + ([.positionals[] | "\n.TP\n\\fI\(.name)\\fR\n" + ((.help // "") | esc | cap) + "."] | join(""))
  + ([.options[] | "\n" + opt_entry] | join(""))
  + ([output_entry] | map("\n" + .) | join(""))
  + (if (.examples | length) > 0 then "\n.PP\nExamples:\n.PP\n.EX\n" + (.examples | map(esc | dash) | join("\n")) + "\n.EE" else "" end);
'

# Text lines of at most 78 bytes, as mandoc -Tlint wants; macro lines as they are.
wrap() {
	awk 'function out(l) { if (l ~ /^[.\047]/) l = "\\&" l; print l }
	     /^\.EX/ { ex = 1 } /^\.EE/ { ex = 0 }
	     ex || /^\./ || length($0) <= 78 { print; next }
	     { n = split($0, w, " "); line = ""
	       for (i = 1; i <= n; i++) {
		       if (line != "" && length(line) + 1 + length(w[i]) > 78) { out(line); line = w[i] }
		       else line = line (line == "" ? "" : " ") w[i] }
	       if (line != "") out(line) }'
}

if [ "${1:-}" = "--globals" ]; then
	"$cli" __commands | jq -r --arg o "${2:-}" "$jq_lib"' .global_options[] | select($o == "" or .long == $o) | opt_entry' | wrap
	exit
fi
[ $# -ge 1 ] || { echo "usage: $0 GROUP [VERB...] [-- OPTION] | --globals" >&2; exit 2; }
group=$1
shift
verb="" option=""
while [ $# -gt 0 ]; do
	if [ "$1" = "--" ]; then option=${2:-}; break; fi
	verb="${verb:+$verb }$1"
	shift
done
"$cli" __commands | jq -r --arg g "$group" --arg v "$verb" --arg o "$option" --argjson all "$([ -z "$verb" ] && [ -z "$option" ] && echo true || echo false)" "$jq_lib"'
  .groups[] | select(.name == $g) | .verbs[]
  | select($all or .name == $v)
  | if $o != "" then (.options[] | select(.long == $o) | opt_entry) else verb_entry end' | wrap

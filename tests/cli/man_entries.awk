# Extract the documented verbs and options of a man page written in the
# project's conventions, one record per line, tab-separated:
#
#   V  GROUP VERB  usage line                  a .SS "allox-cli GROUP VERB ..." in COMMANDS
#   O  GROUP VERB  --long  -s  entry text       a .TP option entry of that verb
#   G  -           --long  -s  entry text       a .TP option entry in OPTIONS (global options)
#   K  -           key     (type)  entry text   a .TP entry "section.key (type)" in KEYS (allox-cli.toml(5))
#
# Font escapes are removed and \- becomes -, so values compare as typed.

function clean(s) {
	gsub(/\\f[BIRP]/, "", s)
	gsub(/\\-/, "-", s)
	gsub(/\\e/, "\\", s)
	gsub(/\\&/, "", s)
	gsub(/\t/, " ", s)
	return s
}

function verb_of(usage,    n, w, i, out) {
	n = split(usage, w, " ")
	out = ""
	# w[1] is allox-cli; the verb's words end at the first [OPTIONS], ARG or -option.
	for (i = 2; i <= n; i++) {
		if (w[i] ~ /^[[A-Z-]/)
			break
		out = out (out == "" ? "" : " ") w[i]
	}
	return out
}

function flush() {
	if (kind != "")
		print kind "\t" owner "\t" long "\t" short "\t" text
	kind = ""
}

/^\.SH/ {
	flush()
	section = $0
	sub(/^\.SH +/, "", section)
	gsub(/"/, "", section)
	verb = ""
	next
}

/^\.SS/ {
	flush()
	if (section == "COMMANDS") {
		usage = $0
		sub(/^\.SS +/, "", usage)
		gsub(/"/, "", usage)
		usage = clean(usage)
		verb = verb_of(usage)
		print "V\t" verb "\t" usage
	}
	next
}

/^\.TP/ {
	flush()
	label_next = 1
	next
}

/^\.(PP|P|LP|RS|RE|IP|EX|EE|nf|fi|SH|SS)( |$)/ {
	flush()
	next
}

label_next {
	label_next = 0
	label = clean($0)
	long = ""; short = "-"; text = ""
	if (section == "KEYS" && label ~ /^[a-z_]+\.[a-z_]+/) {
		split(label, p, " ")
		kind = "K"; owner = "-"; long = p[1]
		short = substr(label, length(p[1]) + 2)
		next
	}
	if (label !~ /^-/)
		next
	n = split(label, p, /[ ,]+/)
	for (i = 1; i <= n; i++) {
		if (p[i] ~ /^--[a-z0-9][a-z0-9-]*/) {
			l = p[i]; sub(/=.*/, "", l); long = l
		} else if (p[i] ~ /^-[A-Za-z0-9]$/) {
			short = p[i]
		}
	}
	if (long == "")
		next
	if (section == "COMMANDS" && verb != "") {
		kind = "O"; owner = verb
	} else if (section == "OPTIONS") {
		kind = "G"; owner = "-"
	}
	next
}

kind != "" {
	text = text (text == "" ? "" : " ") clean($0)
}

END { flush() }

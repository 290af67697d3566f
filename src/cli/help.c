/* Help text, generated from the command table. */
#include "cli/help.h"

#include <string.h>

#include "config.h"
#include "cli/parse.h"

#define HELP_WIDTH 80

/* Print TEXT word-wrapped to HELP_WIDTH, each line indented by INDENT,
 * the first line starting at column START. */
static void wrap(FILE *f, const char *text, int indent, int start)
{
	int col = start;
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (col > indent && col + 1 + (int)n > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += (int)n;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void option_label(const ax_option_spec *o, char *buf, size_t size)
{
	int off = 0;

	if (o->short_name)
		off = snprintf(buf, size, "-%c, ", o->short_name);
	else
		off = snprintf(buf, size, "    ");
	off += snprintf(buf + off, size - (size_t)off, "--%s", o->name);
	if (o->kind == AX_VAL_KV)
		snprintf(buf + off, size - (size_t)off, " KEY=VALUE");
	else if (o->kind != AX_VAL_NONE)
		snprintf(buf + off, size - (size_t)off, " %s", o->metavar ? o->metavar : "VALUE");
}

static void option_line(FILE *f, const char *label, const char *help, const char *defval, bool repeat)
{
	char tail[512];

	snprintf(tail, sizeof tail, "%s%s%s%s%s", help ? help : "", defval ? " (default: " : "",
		 defval ? defval : "", defval ? ")" : "", repeat ? " (repeatable)" : "");
	if (strlen(label) > 26) {
		fprintf(f, "  %s\n%*s", label, 30, "");
		wrap(f, tail, 30, 30);
	} else {
		fprintf(f, "  %-27s ", label);
		wrap(f, tail, 30, 30);
	}
}

static void format_list(unsigned formats, char *buf, size_t size)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < 4; i++)
		if (formats & all[i])
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? "|" : "", ax_format_name(all[i]));
}

void ax_help_root(FILE *f, const char *prog, const ax_registry *r)
{
	const ax_group_spec *const *g;
	const ax_option_spec *o;
	char label[128];

	fprintf(f, "%s %s - resumable execution workspaces for AI agents\n\n", prog, PACKAGE_VERSION);
	fprintf(f, "Usage: %s [GLOBAL OPTIONS] GROUP VERB [ARGS] [OPTIONS]\n\n", prog);
	fputs("Groups:\n", f);
	for (g = r->groups; *g; g++)
		fprintf(f, "  %-12s %s\n", (*g)->name, (*g)->summary);
	fputs("\nGlobal options (before the group):\n", f);
	for (o = ax_global_options(); o->name; o++) {
		option_label(o, label, sizeof label);
		option_line(f, label, o->help, o->defval, false);
	}
	fputs("\nExit status:\n"
	      "  0    success\n"
	      "  1    failure (server, sandbox, file, network or configuration error)\n"
	      "  2    usage error (unknown verb or option, bad value, bad duration)\n", f);
	fputs("\nEnvironment:\n"
	      "  ALLOX_HOME        state and configuration directory (default ~/.allox)\n"
	      "  ALLOX_API_KEY, ALLOX_DOMAIN, ALLOX_PROTOCOL, ALLOX_REQUEST_TIMEOUT\n"
	      "                    override the configuration file\n"
	      "  OPEN_SANDBOX_API_KEY, OPEN_SANDBOX_DOMAIN\n"
	      "                    used when the ALLOX_ variables are unset\n"
	      "  NO_COLOR          no colour in tables\n", f);
	fprintf(f, "\nRun '%s GROUP --help' or '%s help GROUP [VERB]' for details.\n", prog, prog);
}

void ax_help_group(FILE *f, const char *prog, const ax_group_spec *g)
{
	const ax_command_spec *const *c;

	fprintf(f, "Usage: %s %s VERB [ARGS] [OPTIONS]\n\n", prog, g->name);
	wrap(f, g->summary, 0, 0);
	fputs("\nVerbs:\n", f);
	for (c = g->verbs; *c; c++)
		fprintf(f, "  %-14s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\nRun '%s %s VERB --help' for the options of a verb.\n", prog, g->name);
}

void ax_usage_line(FILE *f, const char *prog, const ax_command_spec *c)
{
	const ax_positional_spec *p;

	fprintf(f, "Usage: %s %s%s%s", prog, c->group, c->name[0] ? " " : "", c->name);
	if ((c->options && c->options->name) || c->formats)
		fputs(" [OPTIONS]", f);
	for (p = c->positionals; p && p->name; p++) {
		if (p->arity == AX_POS_OPTIONAL)
			fprintf(f, " [%s]", p->name);
		else if (p->arity == AX_POS_VARIADIC)
			fprintf(f, " %s...", p->name);
		else
			fprintf(f, " %s", p->name);
	}
	fputc('\n', f);
}

void ax_help_command(FILE *f, const char *prog, const ax_command_spec *c)
{
	const ax_positional_spec *p;
	const ax_option_spec *o;
	const char *const *e;
	char label[128], formats[64], def[32];

	ax_usage_line(f, prog, c);
	fputc('\n', f);
	wrap(f, c->summary, 0, 0);
	if (c->description) {
		fputc('\n', f);
		wrap(f, c->description, 0, 0);
	}
	if (c->positionals && c->positionals->name) {
		fputs("\nArguments:\n", f);
		for (p = c->positionals; p->name; p++)
			option_line(f, p->name, p->help, NULL, false);
	}
	fputs("\nOptions:\n", f);
	for (o = c->options; o && o->name; o++) {
		option_label(o, label, sizeof label);
		option_line(f, label, o->help, o->defval, o->repeatable);
	}
	if (c->formats) {
		format_list(c->formats, formats, sizeof formats);
		snprintf(label, sizeof label, "-o, --output %s", formats);
		snprintf(def, sizeof def, "%s", ax_format_name(c->default_format));
		option_line(f, label, "output format", def, false);
	}
	option_line(f, "-h, --help", "show this help", NULL, false);
	if (c->examples && *c->examples) {
		fputs("\nExamples:\n", f);
		for (e = c->examples; *e; e++)
			fprintf(f, "  %s\n", *e);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mcmgpu workload: GPU programs (docs/workloads.md). Accel-Sim trace
 * directories in and out (import, export), the applications run by the
 * SIMT executor into programs (gen, list), what a program does (stats),
 * its two encodings (convert), and the adapters to the replays (to, in
 * cmd_adapt.c).
 *
 * Outputs: -o FILE, '-' for stdout. A program is written binary unless
 * --text is given or FILE ends in ".txt" (--binary overrides that);
 * convert writes the other encoding than its input's when neither flag
 * nor the name decides. A command that fails removes the program it was
 * writing (a regular file), so no half program is left to be read by
 * mistake.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "accelsim.h"
#include "apps.h"
#include "json.h"
#include "opts.h"
#include "prog_file.h"
#include "prog_streams.h"
#include "prog_stats.h"
#include "simt.h"
#include "workload_tool.h"

#define ERR_LEN		1024
#define DEFAULT_SEED	1

/* Options beyond the common ones. */
enum {
	O_TEXT = 0x100, O_BINARY, O_SIZE, O_SEED, O_LARGE,
};

#define OPTION_OUTPUT	{ "output", required_argument, NULL, 'o' }
#define OPTION_TEXT	{ "text", no_argument, NULL, O_TEXT }
#define OPTION_BINARY	{ "binary", no_argument, NULL, O_BINARY }

/* --text / --binary as given: -1 neither, else whether text. */
struct encoding {
	int text;
};

static void set_encoding(struct encoding *e, bool text)
{
	if (e->text >= 0 && e->text != text)
		die_usage("--text and --binary: only one");
	e->text = text;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Text if asked, or if the name says so; dflt otherwise. */
static bool want_text(const struct encoding *e, const char *path, bool dflt)
{
	if (e->text >= 0)
		return e->text;
	if (ends_with(path, ".txt"))
		return true;
	return dflt;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Removes a failed command's output: a regular file only (never stdout,
 * a pipe or a device node such as /dev/full named as the output).
 */
static void discard(const char *path)
{
	struct stat st;

	if (path && strcmp(path, "-") && !lstat(path, &st) &&
	    S_ISREG(st.st_mode))
		unlink(path);
}

/*
 * The progress line: records, kernels and warp instructions so far, every
 * 2 s on stderr, only when stderr is a terminal (a log stays clean). It
 * sits between a stage and its sink, or counts a source's records.
 */
struct progress {
	const char *what;
	prog_sink_fn sink;
	void *ctx;
	bool on, shown;
	uint64_t records, kernels, insts;
	struct timespec last;
};

static void progress_init(struct progress *p, const char *what,
			  prog_sink_fn sink, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->sink = sink;
	p->ctx = ctx;
	p->on = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &p->last);
}

static void progress_count(struct progress *p, const struct prog_rec *rec)
{
	struct timespec now;

	p->records++;
	p->kernels += rec->type == PROG_REC_KERNEL;
	p->insts += rec->type == PROG_REC_INST;
	/* The clock only every 64 Ki records: it costs more than a record. */
	if (!p->on || p->records & 0xffff)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - p->last.tv_sec < 2)
		return;
	p->last = now;
	p->shown = true;
	fprintf(stderr, "\r%s: %" PRIu64 " kernels, %" PRIu64
		" warp instructions, %" PRIu64 " records ", p->what,
		p->kernels, p->insts, p->records);
}

/* Ends the progress line, if one was shown, before any other message. */
static void progress_done(struct progress *p)
{
	if (p->shown)
		fputc('\n', stderr);
	p->shown = false;
}

static int progress_sink(void *ctx, const struct prog_rec *rec)
{
	struct progress *p = ctx;

	progress_count(p, rec);
	return p->sink(p->ctx, rec);
}

/* A prog_source_fn over a prog_in that counts what it gives. */
struct counted_source {
	struct prog_in *in;
	struct progress *p;
};

static int counted_source(void *ctx, struct prog_rec *rec)
{
	struct counted_source *cs = ctx;
	int ret = prog_in_next(cs->in, rec);

	if (ret > 0)
		progress_count(cs->p, rec);
	return ret;
}

static struct prog_in *open_program(const char *path)
{
	char err[ERR_LEN];
	struct prog_in *in = prog_in_open(path, err, sizeof(err));

	if (!in)
		fatal("%s", err);
	return in;
}

static struct prog_out *create_program(const char *path, bool text)
{
	char err[ERR_LEN];
	struct prog_out *out = prog_out_open(path, text, err, sizeof(err));

	if (!out)
		fatal("%s", err);
	return out;
}

/* Closes out; on failure (or failed already) removes it: exit status. */
static int finish_program(struct prog_out *out, const char *path, int failed)
{
	char err[ERR_LEN];
	int ret = prog_out_close(out, err, sizeof(err));

	if (ret && !failed)
		fprintf(stderr, "%s: %s\n", prog, err);
	if (ret || failed)
		discard(path);
	return ret || failed ? 1 : 0;
}

/*
 * The records of a program into a sink: 0; 1 when the program is bad or
 * unreadable (said here); -1 when the sink failed (the caller says why).
 */
static int pump(struct prog_in *in, struct progress *p,
		prog_sink_fn sink, void *ctx)
{
	struct prog_rec *rec = malloc(sizeof(*rec));
	int ret;

	if (!rec)
		fatal("out of memory");
	while ((ret = prog_in_next(in, rec)) > 0) {
		progress_count(p, rec);
		if (sink(ctx, rec)) {
			ret = -1;
			break;
		}
	}
	free(rec);
	progress_done(p);
	if (ret == -1)
		return -1;
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", prog, prog_in_error(in));
		return 1;
	}
	return 0;
}

/* ---- import ------------------------------------------------------------ */

static void import_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload import DIR -o PROG [--text|--binary]\n\n"
		"Reads the Accel-Sim trace directory DIR (kernelslist.g and the\n"
		"kernel-N.traceg files it names, tracer versions 3 to 5; files\n"
		"ending in .xz are read through xz -dc) and writes it as a\n"
		"program. Binary unless --text or PROG ends in .txt; '-' is\n"
		"stdout. Errors name the file, the line and the field.\n\n"
		"  -o, --output PROG   the program to write\n"
		"  --text, --binary    its encoding\n");
}

static int cmd_import(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(import_usage, 1);
	static const struct option opts[] = {
		OPTION_OUTPUT, OPTION_TEXT, OPTION_BINARY, OPTION_HELP, { }
	};
	struct encoding enc = { -1 };
	const char *out_path = NULL, *dir;
	struct prog_out *out;
	struct progress p;
	char err[ERR_LEN];
	int c, ret;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o')
			out_path = optarg;
		else if (c == O_TEXT || c == O_BINARY)
			set_encoding(&enc, c == O_TEXT);
	}
	dir = common_operand(&co, argc, argv);
	if (!out_path)
		die_usage("workload import: -o PROG is required");
	if (!is_dir(dir))
		fatal("%s: not a directory (an Accel-Sim trace directory holds %s)",
		      dir, ACCELSIM_KERNELSLIST);
	out = create_program(out_path, want_text(&enc, out_path, false));
	progress_init(&p, "import", prog_out_sink, out);
	err[0] = '\0';
	ret = accelsim_import(dir, progress_sink, &p, err, sizeof(err));
	progress_done(&p);
	if (ret) {
		/* The program file's own error says more than "sink failed". */
		fprintf(stderr, "%s: %s\n", prog,
			*prog_out_error(out) ? prog_out_error(out) : err);
	}
	return finish_program(out, out_path, ret);
}

/* ---- export ------------------------------------------------------------ */

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload export PROG -o DIR\n\n"
		"Writes program PROG (text or binary, '-' for stdin) as an Accel-Sim\n"
		"trace directory: kernelslist.g, kernel-N.traceg (tracer version 5)\n"
		"and mcmgpu-objects (the objects, so that importing DIR gives PROG\n"
		"back). DIR is created if missing.\n\n"
		"  -o, --output DIR   the directory to write\n");
}

static int cmd_export(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(export_usage, 1);
	static const struct option opts[] = { OPTION_OUTPUT, OPTION_HELP, { } };
	const char *dir = NULL, *path;
	struct counted_source cs;
	struct progress p;
	char err[ERR_LEN];
	int c, ret;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1)
		if (c == 'o')
			dir = optarg;
	path = common_operand(&co, argc, argv);
	if (!dir)
		die_usage("workload export: -o DIR is required");
	cs.in = open_program(path);
	cs.p = &p;
	progress_init(&p, "export", NULL, NULL);
	err[0] = '\0';
	ret = accelsim_export(counted_source, &cs, dir, err, sizeof(err));
	progress_done(&p);
	if (ret) {
		/* A bad program is the reader's to name (file, line, field). */
		fprintf(stderr, "%s: %s\n", prog, *prog_in_error(cs.in) ?
			prog_in_error(cs.in) : err);
		fprintf(stderr, "%s: %s is incomplete\n", prog, dir);
	}
	prog_in_close(cs.in);
	return ret ? 1 : 0;
}

/* ---- gen --------------------------------------------------------------- */

static void gen_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload gen APP [--size S | --large] [--seed N]\n"
		"                           -o PROG [--text|--binary]\n\n"
		"Runs application APP ('mcmgpu workload list') on the SIMT executor\n"
		"with its input generated from the size and seed, checks its result\n"
		"against its plain-C reference, and writes the program it ran.\n"
		"Prints nothing but errors. The same APP, size and seed give the\n"
		"same program, byte for byte.\n\n"
		"  --size S            the input's size (what it means: 'list');\n"
		"                      default the small size (make check's)\n"
		"  --large             the large size (make run's)\n"
		"  --seed N            the input's seed (default %d)\n"
		"  -o, --output PROG   the program to write ('-': stdout)\n"
		"  --text, --binary    its encoding (binary unless PROG ends in .txt)\n",
		DEFAULT_SEED);
}

static int cmd_gen(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(gen_usage, 1);
	static const struct option opts[] = {
		OPTION_OUTPUT, OPTION_TEXT, OPTION_BINARY, OPTION_HELP,
		{ "size", required_argument, NULL, O_SIZE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "large", no_argument, NULL, O_LARGE },
		{ }
	};
	struct encoding enc = { -1 };
	const char *out_path = NULL, *name, *size_arg = NULL;
	uint64_t size, seed = DEFAULT_SEED;
	const struct app_desc *app;
	bool large = false, write_failed;
	struct simt_gpu *gpu;
	struct prog_out *out;
	struct progress p;
	char err[ERR_LEN];
	int c, ret;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case O_TEXT:
		case O_BINARY:
			set_encoding(&enc, c == O_TEXT);
			break;
		case O_SIZE:
			size_arg = optarg;
			break;
		case O_SEED:
			seed = parse_arg(optarg, "--seed");
			break;
		case O_LARGE:
			large = true;
			break;
		}
	}
	name = common_operand(&co, argc, argv);
	app = app_find(name);
	if (!app)
		die_usage("workload gen: no application '%s' (mcmgpu workload list)",
			  name);
	if (!out_path)
		die_usage("workload gen: -o PROG is required");
	if (size_arg && large)
		die_usage("workload gen: --size and --large: only one");
	size = size_arg ? parse_arg(size_arg, "--size") :
	       large ? app->large_size : app->small_size;

	out = create_program(out_path, want_text(&enc, out_path, false));
	gpu = simt_gpu_new(NULL);
	if (!gpu)
		fatal("out of memory");
	progress_init(&p, name, prog_out_sink, out);
	simt_gpu_set_sink(gpu, progress_sink, &p);
	err[0] = '\0';
	ret = app->run(gpu, size, seed, err, sizeof(err));
	if (!ret)
		ret = simt_gpu_finish(gpu);
	progress_done(&p);
	write_failed = *prog_out_error(out);
	if (ret) {
		const char *why = write_failed ? prog_out_error(out) :
				  *err ? err : simt_gpu_error(gpu);

		fprintf(stderr, "%s: workload gen %s --size %" PRIu64
			" --seed %" PRIu64 ": %s\n", prog, name, size, seed,
			*why ? why : strerror(-ret));
	}
	simt_gpu_free(gpu);
	c = finish_program(out, out_path, ret);
	/* A size the application cannot take is the command line's fault. */
	return ret == -EINVAL && !write_failed ? 2 : c;
}

/* ---- list -------------------------------------------------------------- */

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload list [--json]\n\n"
		"The applications 'workload gen' runs: name, suite, the small size\n"
		"(make check's) and the large one (make run's), what the kernels do,\n"
		"the kernels by name, how the input is generated (what the size\n"
		"means), and the input each paper gives it with the size standing\n"
		"for it.\n");
}

/* What list prints for a field an application leaves empty. */
static const char *str_or(const char *s)
{
	return s && *s ? s : "-";
}

static int cmd_list(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(list_usage, 1);
	static const struct option opts[] = { OPTION_JSON, OPTION_HELP, { } };
	const struct app_desc *const *a;
	struct json j;

	common_parse(&co, argc, argv, "h", opts, NULL);
	if (optind < argc)
		die_usage("workload list: unexpected argument '%s'", argv[optind]);
	if (!co.json) {
		for (a = apps; *a; a++)
			printf("%-10s %s; sizes %" PRIu64 " (small), %" PRIu64
			       " (large)\n  %s\n  kernels: %s\n  input: %s\n"
			       "  papers: %s\n", (*a)->name,
			       (*a)->suite, (*a)->small_size, (*a)->large_size,
			       (*a)->summary, str_or((*a)->kernels),
			       (*a)->input, str_or((*a)->paper_sizes));
		return 0;
	}
	json_begin(&j, stdout);
	json_open(&j, "apps", '[');
	for (a = apps; *a; a++) {
		json_break(&j, " ");
		json_open(&j, NULL, '{');
		json_string(&j, "name", (*a)->name);
		json_string(&j, "suite", (*a)->suite);
		json_u64(&j, "small_size", (*a)->small_size);
		json_u64(&j, "large_size", (*a)->large_size);
		json_break(&j, "  ");
		json_string(&j, "summary", (*a)->summary);
		json_break(&j, "  ");
		json_string(&j, "input", (*a)->input);
		json_break(&j, "  ");
		json_string(&j, "kernels", (*a)->kernels ? (*a)->kernels : "");
		json_break(&j, "  ");
		json_string(&j, "paper_sizes",
			    (*a)->paper_sizes ? (*a)->paper_sizes : "");
		json_close(&j);
	}
	json_break(&j, "");
	json_close(&j);
	json_end(&j);
	return 0;
}

/* ---- stats ------------------------------------------------------------- */

static void stats_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload stats PROG|DIR [--json]\n\n"
		"What a program does, in total and per kernel: thread blocks, warps,\n"
		"warp instructions; global loads, stores and atomics (reductions\n"
		"included), shared and local accesses (warp-level instructions);\n"
		"global lanes and bytes (lanes x width); the distinct 128 B lines and\n"
		"4 KiB pages global accesses touch; the objects and host copies.\n"
		"PROG is a program (text or binary, '-' for stdin); a directory is\n"
		"an Accel-Sim trace, imported on the fly. docs/workloads.md has the\n"
		"rules.\n");
}

static int cmd_stats(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(stats_usage, 1);
	static const struct option opts[] = { OPTION_JSON, OPTION_HELP, { } };
	struct prog_stats st;
	struct progress p;
	const char *path;
	char err[ERR_LEN];
	int ret;

	common_parse(&co, argc, argv, "h", opts, NULL);
	path = common_operand(&co, argc, argv);
	prog_stats_init(&st);
	progress_init(&p, "stats", prog_stats_sink, &st);
	if (is_dir(path)) {
		err[0] = '\0';
		ret = accelsim_import(path, progress_sink, &p, err, sizeof(err));
		progress_done(&p);
		if (ret)
			fprintf(stderr, "%s: %s\n", prog, err);
		ret = !!ret;
	} else {
		struct prog_in *in = open_program(path);

		ret = pump(in, &p, prog_stats_sink, &st);
		prog_in_close(in);
		if (ret < 0)	/* the only way the statistics fail */
			fatal("out of memory");
	}
	if (!ret) {
		if (co.json)
			prog_stats_json(&st, stdout);
		else
			prog_stats_text(&st, stdout);
	}
	prog_stats_free(&st);
	return ret;
}

/* ---- convert ----------------------------------------------------------- */

static void convert_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload convert PROG -o PROG2 [--text|--binary]\n\n"
		"Rewrites a program in the other encoding, losslessly: converting\n"
		"back gives the same bytes. Without --text or --binary: text if\n"
		"PROG2 ends in .txt, else the encoding PROG is not in. '-' is\n"
		"stdin or stdout.\n\n"
		"  -o, --output PROG2   the program to write\n"
		"  --text, --binary     its encoding\n");
}

static int cmd_convert(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(convert_usage, 1);
	static const struct option opts[] = {
		OPTION_OUTPUT, OPTION_TEXT, OPTION_BINARY, OPTION_HELP, { }
	};
	struct encoding enc = { -1 };
	const char *out_path = NULL, *path;
	struct prog_out *out;
	struct prog_in *in;
	struct progress p;
	int c, ret;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o')
			out_path = optarg;
		else if (c == O_TEXT || c == O_BINARY)
			set_encoding(&enc, c == O_TEXT);
	}
	path = common_operand(&co, argc, argv);
	if (!out_path)
		die_usage("workload convert: -o PROG2 is required");
	in = open_program(path);
	out = create_program(out_path, want_text(&enc, out_path,
						 !prog_in_is_text(in)));
	progress_init(&p, "convert", NULL, NULL);
	ret = pump(in, &p, prog_out_sink, out);
	if (ret < 0)
		fprintf(stderr, "%s: %s\n", prog, prog_out_error(out));
	prog_in_close(in);
	return finish_program(out, out_path, ret);
}

/* ---- streams: programs as concurrent streams of one ------------------- */

static void streams_usage(FILE *f)
{
	fprintf(f,
		"usage: mcmgpu workload streams PROG1 PROG2... -o OUT "
		"[--text|--binary]\n\n"
		"Writes one program running PROG1, PROG2, ... (2..%d of them) as\n"
		"concurrent jobs (CPElide §VI: applications extended to parallel\n"
		"streams): program i's kernels on stream i (1, 2, ...), their\n"
		"launches interleaved one each in turn (each program's objects and\n"
		"copies before its kernel), its objects and every address inside\n"
		"them moved up by (i - 1) x 64 GiB so that no two share a byte,\n"
		"kernel ids renumbered in launch order, one END. mcmgpu run --host\n"
		"--streams G runs the streams at once (docs/cpelide.md).\n\n"
		"  -o, --output OUT     the program to write\n"
		"  --text, --binary     its encoding (default: binary unless OUT\n"
		"                       ends in .txt)\n", PROG_STREAMS_MAX);
}

static int cmd_streams(int argc, char **argv)
{
	struct common_opts co = COMMON_OPTS(streams_usage, 1);
	static const struct option opts[] = {
		OPTION_OUTPUT, OPTION_TEXT, OPTION_BINARY, OPTION_HELP, { }
	};
	struct encoding enc = { -1 };
	const char *out_path = NULL;
	char err[ERR_LEN];
	int c;

	while ((c = common_parse(&co, argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'o')
			out_path = optarg;
		else if (c == O_TEXT || c == O_BINARY)
			set_encoding(&enc, c == O_TEXT);
	}
	if (!out_path)
		die_usage("workload streams: -o OUT is required");
	if (argc - optind < 2 || argc - optind > PROG_STREAMS_MAX)
		die_usage("workload streams: 2..%d programs", PROG_STREAMS_MAX);
	if (prog_streams_merge((const char *const *)&argv[optind],
			       (uint32_t)(argc - optind), out_path,
			       want_text(&enc, out_path, false), err,
			       sizeof(err))) {
		fprintf(stderr, "%s: workload streams: %s\n", prog, err);
		return 1;
	}
	return 0;
}

/* ---- the group --------------------------------------------------------- */

const struct subcommand workload_commands[] = {
	{ "import", "an Accel-Sim trace directory into a program", cmd_import },
	{ "export", "a program as an Accel-Sim trace directory", cmd_export },
	{ "gen", "run an application on the SIMT executor into a program",
	  cmd_gen },
	{ "list", "the applications gen runs", cmd_list },
	{ "stats", "what a program (or a trace directory) does", cmd_stats },
	{ "convert", "a program between its text and binary encodings",
	  cmd_convert },
	{ "to", "a program as a mechanism's replay trace", cmd_workload_to },
	{ "streams", "programs as concurrent streams of one program",
	  cmd_streams },
	{ }
};

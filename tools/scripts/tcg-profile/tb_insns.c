/*
 * QEMU TCG plugin: guest instructions run per translation block, written
 * at exit as "VADDR INSNS EXECS" lines (hex, decimal, decimal) to the
 * file named by out=PATH. Used by tcg-profile.sh; needs a QEMU built
 * with --enable-plugins.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One translation of a block; a block translated again gets another. */
typedef struct TbCount {
    uint64_t vaddr;
    uint64_t insns;
    uint64_t execs;             /* bumped inline by the translated code */
    struct TbCount *next;
} TbCount;

static TbCount *translations;
static const char *out_path = "tb_insns.txt";

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    TbCount *t = g_new0(TbCount, 1);

    t->vaddr = qemu_plugin_tb_vaddr(tb);
    t->insns = qemu_plugin_tb_n_insns(tb);
    t->next = translations;
    translations = t;
    /* One vCPU (vm-run's -smp 1): a plain add is exact. */
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                             &t->execs, 1);
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
    GHashTable *by_vaddr = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTableIter it;
    gpointer key, value;
    TbCount *t;
    FILE *f;

    for (t = translations; t; t = t->next) {
        TbCount *sum = g_hash_table_lookup(by_vaddr, &t->vaddr);

        if (!sum) {
            sum = g_new0(TbCount, 1);
            sum->vaddr = t->vaddr;
            g_hash_table_insert(by_vaddr, &sum->vaddr, sum);
        }
        sum->insns += t->insns * t->execs;
        sum->execs += t->execs;
    }
    f = fopen(out_path, "w");
    if (!f) {
        fprintf(stderr, "tb_insns: cannot write %s\n", out_path);
        return;
    }
    g_hash_table_iter_init(&it, by_vaddr);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        TbCount *sum = value;

        if (sum->execs) {
            fprintf(f, "%016" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
                    sum->vaddr, sum->insns, sum->execs);
        }
    }
    fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    int i;

    for (i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4)) {
            out_path = g_strdup(argv[i] + 4);
        } else {
            fprintf(stderr, "tb_insns: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}

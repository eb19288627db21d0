/* test_wisdom.c — the wisdom file: round trip, keying by machine/build, shape classes,
 * explicit settings winning, corrupt files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "results.h"
#include "sysinfo.h"
#include "t.h"
#include "wisdom.h"

static const hr_problem P = {1, 16, 16, 2048, 2048, 64, false, 0};

/* A fresh temp path (the file does not exist). */
static void tmp_path(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/hr_wisdom_%s_%d.json", tag, (int)getpid());
    unlink(buf);
}

static const hr_kernel *flash(void) { return hr_kernel_find("flash"); }

/* A fresh wisdom file at path (tmp_path's, by tag) holding one entry for flash on P tuned
 * to tune; returns the entry stored. */
static hr_wisdom_entry store_one(char *path, size_t len, const char *tag, hr_tune tune)
{
    tmp_path(path, len, tag);
    hr_wisdom_entry e = {.tune = tune};
    CHECK(hr_wisdom_store(path, flash(), &P, &e) == HR_OK);
    return e;
}

/* Rewrites field key of every entry in the file to value. */
static void patch_entries(const char *path, const char *key, const char *value)
{
    FILE *f = fopen(path, "r");
    char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    cJSON *d = cJSON_Parse(buf);
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(d, "entries"))
        cJSON_ReplaceItemInObject(e, key, cJSON_CreateString(value));
    char *t = cJSON_Print(d);
    hr_write_atomic(path, t);
    free(t);
    cJSON_Delete(d);
}

HR_TEST(wisdom_shape_class_buckets)
{
    const hr_kernel *k = flash();
    char a[160], b[160];
    hr_shape_class c = hr_shape_class_of(k, &P);
    hr_shape_class_key(&c, a, sizeof a);
    CHECK(!strcmp(a, "flash/full/d64/g1/nq2048/nkv2048/bh16"));
    hr_problem q = P;
    q.seq_q = q.seq_kv = 1500; /* same power-of-two bucket */
    c = hr_shape_class_of(k, &q);
    hr_shape_class_key(&c, b, sizeof b);
    CHECK(!strcmp(a, b));
    q.seq_q = q.seq_kv = 2049; /* next bucket */
    c = hr_shape_class_of(k, &q);
    hr_shape_class_key(&c, b, sizeof b);
    CHECK(!strcmp(b, "flash/full/d64/g1/nq4096/nkv4096/bh16"));
    q = P;
    q.kv_heads = 4;
    q.causal = true;
    q.batch = 3; /* B*H = 48 -> 64 */
    c = hr_shape_class_of(k, &q);
    hr_shape_class_key(&c, b, sizeof b);
    CHECK(!strcmp(b, "flash/causal/d64/g4/nq2048/nkv2048/bh64"));
}

HR_TEST(wisdom_round_trip)
{
    char path[256];
    tmp_path(path, sizeof path, "rt");
    hr_tune t = {0};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 0); /* no file: not found, no error */
    hr_wisdom_entry e = {.tune = {32, 128, 2}, .gflops = 50.5, .default_gflops = 40.25};
    CHECK(hr_wisdom_store(path, flash(), &P, &e) == HR_OK);
    hr_wisdom_entry got;
    CHECK(hr_wisdom_find(path, flash(), &P, 0, &got) == 1);
    CHECK(got.tune.block_q == 32 && got.tune.block_kv == 128 && got.tune.threads == 2);
    CHECK_NEAR(got.gflops, 50.5, 1e-12);
    CHECK_NEAR(got.default_gflops, 40.25, 1e-12);
    CHECK(got.date[0] != 0);
    CHECK(!strcmp(got.shape, "B1 H16/16 N2048x2048 d64"));
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1);
    CHECK(t.block_q == 32 && t.block_kv == 128 && t.threads == 2);
    /* A second store of the same class replaces, a different class appends. */
    e.tune.block_q = 64;
    CHECK(hr_wisdom_store(path, flash(), &P, &e) == HR_OK);
    hr_problem q = P;
    q.d_head = 128;
    CHECK(hr_wisdom_store(path, flash(), &q, &e) == HR_OK);
    CHECK(hr_wisdom_find(path, flash(), &P, 0, &got) == 1 && got.tune.block_q == 64);
    FILE *f = fopen(path, "r");
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *d = cJSON_Parse(buf);
    CHECK(d && cJSON_GetArraySize(cJSON_GetObjectItem(d, "entries")) == 2);
    cJSON_Delete(d);
    unlink(path);
}

HR_TEST(wisdom_lookup_by_class_not_exact_shape)
{
    char path[256];
    store_one(path, sizeof path, "cls", (hr_tune){48, 96, 1});
    hr_problem q = P;
    q.seq_q = q.seq_kv = 1100; /* bucket 2048 */
    hr_tune t = {0};
    CHECK(hr_wisdom_lookup(path, flash(), &q, &t) == 1 && t.block_q == 48);
    q.seq_q = q.seq_kv = 1024; /* bucket 1024: another class */
    t = (hr_tune){0};
    CHECK(hr_wisdom_lookup(path, flash(), &q, &t) == 0 && t.block_q == 0);
    q = P;
    q.causal = true;
    CHECK(hr_wisdom_lookup(path, flash(), &q, &t) == 0);
    q = P;
    q.kv_heads = 8;
    CHECK(hr_wisdom_lookup(path, flash(), &q, &t) == 0);
    /* Another kernel never sees flash's wisdom. */
    CHECK(hr_wisdom_lookup(path, hr_kernel_find("omp"), &P, &t) == 0);
    unlink(path);
}

HR_TEST(wisdom_explicit_settings_win)
{
    char path[256];
    store_one(path, sizeof path, "flag", (hr_tune){48, 96, 2});
    hr_tune t = {16, 0, 0};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1);
    CHECK(t.block_q == 16 && t.block_kv == 96 && t.threads == 2);
    /* An explicit thread count with no entry tuned at it: the free entry's blocks, the
     * caller's threads. */
    t = (hr_tune){0, 0, 1};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1);
    CHECK(t.block_q == 48 && t.threads == 1);
    /* An entry tuned at exactly 1 thread wins for --threads 1. */
    hr_wisdom_entry e1 = {.tune = {8, 8, 1}, .fixed_threads = 1};
    CHECK(hr_wisdom_store(path, flash(), &P, &e1) == HR_OK);
    t = (hr_tune){0, 0, 1};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1 && t.block_q == 8);
    t = (hr_tune){0};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1 && t.block_q == 48);
    unlink(path);
}

HR_TEST(wisdom_other_build_or_machine_ignored)
{
    char path[256];
    hr_wisdom_entry e = store_one(path, sizeof path, "key", (hr_tune){48, 96, 2});
    patch_entries(path, "build_id", "ffffffffffffffff");
    hr_tune t = {0};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 0 && t.block_q == 0);
    /* Storing ours keeps the foreign entry and adds one. */
    CHECK(hr_wisdom_store(path, flash(), &P, &e) == HR_OK);
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 1 && t.block_q == 48);
    patch_entries(path, "cpu_model", "Some Other CPU");
    t = (hr_tune){0};
    CHECK(hr_wisdom_lookup(path, flash(), &P, &t) == 0);
    unlink(path);
}

HR_TEST(wisdom_corrupt_file_is_an_error_naming_it)
{
    char path[256];
    tmp_path(path, sizeof path, "bad");
    const char *bad[] = {"{\"format\": \"headroom-wisdom-1\", \"entries\": [", "[]",
                         "{\"format\": \"other\", \"entries\": []}",
                         "{\"format\": \"headroom-wisdom-1\", \"entries\": [{\"class\": 3}]}"};
    for (int i = 0; i < 4; i++) {
        CHECK(hr_write_atomic(path, bad[i]) == HR_OK);
        hr_tune t = {0};
        CHECKF(hr_wisdom_lookup(path, flash(), &P, &t) == -1, "case %d", i);
        CHECKF(strstr(hr_errmsg(), path) && strstr(hr_errmsg(), "corrupt"), "case %d: %s", i, hr_errmsg());
        hr_wisdom_entry e = {.tune = {8, 8, 1}};
        CHECKF(hr_wisdom_store(path, flash(), &P, &e) == HR_EUSAGE, "case %d: corrupt file overwritten", i);
    }
    unlink(path);
}

HR_TEST(wisdom_apply_merges_and_names_the_source)
{
    char path[256];
    tmp_path(path, sizeof path, "apply");
    const char *src = NULL;
    /* No file: nothing changes; the source says whether flags set block sizes. */
    hr_tune t = {0};
    CHECK(hr_wisdom_apply(path, false, flash(), &P, &t, &src) == HR_OK);
    CHECK(!strcmp(src, "default") && t.block_q == 0 && t.block_kv == 0);
    hr_wisdom_entry e = {.tune = {48, 96, 2}};
    CHECK(hr_wisdom_store(path, flash(), &P, &e) == HR_OK);
    t = (hr_tune){0};
    CHECK(hr_wisdom_apply(path, false, flash(), &P, &t, &src) == HR_OK);
    CHECK(!strcmp(src, "wisdom") && t.block_q == 48 && t.block_kv == 96 && t.threads == 2);
    t = (hr_tune){16, 0, 0};
    CHECK(hr_wisdom_apply(path, false, flash(), &P, &t, &src) == HR_OK);
    CHECK(!strcmp(src, "flag+wisdom") && t.block_q == 16 && t.block_kv == 96);
    /* Flags that leave wisdom nothing to fill: still "flag". */
    t = (hr_tune){16, 32, 2};
    CHECK(hr_wisdom_apply(path, false, flash(), &P, &t, &src) == HR_OK);
    CHECK(!strcmp(src, "flag") && t.block_q == 16 && t.block_kv == 32);
    /* --no-wisdom: the file is not read at all, even a corrupt one. */
    CHECK(hr_write_atomic(path, "not json") == HR_OK);
    t = (hr_tune){0};
    CHECK(hr_wisdom_apply(path, true, flash(), &P, &t, &src) == HR_OK);
    CHECK(!strcmp(src, "default") && t.block_q == 0);
    CHECK(hr_wisdom_apply(path, false, flash(), &P, &t, &src) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), path) && !strcmp(src, "default") && t.block_q == 0);
    unlink(path);
}

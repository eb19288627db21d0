/* test_typed_io.c — element types in names, results (and results from before them),
 * sweep configs and points, wisdom classes. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "files.h"
#include "results.h"
#include "sweep_points.h"
#include "t.h"
#include "wisdom.h"

HR_TEST(typed_names_carry_the_types)
{
    char seg[32];
    const struct {
        hr_dtype dt, kv;
        const char *want;
    } cases[] = {{HR_F32, HR_F32, ""}, {HR_BF16, HR_BF16, "/bf16"}, {HR_F32, HR_Q8_0, "/kv=q8_0"},
                 {HR_BF16, HR_Q4_0, "/bf16/kv=q4_0"}, {HR_F16, HR_F32, "/f16/kv=f32"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hr_dtype_seg(&(hr_problem){.dtype = cases[i].dt, .kv_dtype = cases[i].kv}, seg, sizeof seg);
        CHECKF(!strcmp(seg, cases[i].want), "got '%s', want '%s'", seg, cases[i].want);
    }
    hr_result r = {.kernel = hr_kernel_find("flash"), .prob = {1, 16, 16, 2048, 2048, 64, true, 0, HR_F32, HR_F32},
                   .tune = {.threads = 2}};
    char name[256];
    hr_result_name(&r, name, sizeof name);
    CHECK(!strcmp(name, "flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2")); /* f32: as before */
    r.prob.dtype = r.prob.kv_dtype = HR_BF16;
    hr_result_name(&r, name, sizeof name);
    CHECK(!strcmp(name, "flash/B1/H16/G16/N2048/M2048/d64/bf16/causal/bhnd/T2"));
    /* Wisdom: bf16 is its own class; the f32 key is the one of older files. */
    hr_shape_class c = hr_shape_class_of(r.kernel, &r.prob);
    hr_shape_class_key(&c, name, sizeof name);
    CHECKF(!strcmp(name, "flash/causal/d64/bf16/g1/nq2048/nkv2048/bh16"), "%s", name);
    r.prob.dtype = r.prob.kv_dtype = HR_F32;
    c = hr_shape_class_of(r.kernel, &r.prob);
    hr_shape_class_key(&c, name, sizeof name);
    CHECK(!strcmp(name, "flash/causal/d64/g1/nq2048/nkv2048/bh16"));
}

/* A result's types and path survive rows.jsonl; a bad type is refused. */
HR_TEST(typed_result_json_round_trip)
{
    hr_result r = {.kernel = hr_kernel_find("naive"), .prob = {1, 4, 2, 8, 64, 64, false, 0, HR_BF16, HR_Q8_0},
                   .tune = {.threads = 1}, .tune_source = "default", .timing = {.reps = 1, .iters = 3}};
    r.timing.rep_time[0] = 1e-3;
    snprintf(r.path, sizeof r.path, "avx512-bf16 vdpbf16ps");
    hr_result_set(&r, "format_max_rel", 0.01);
    cJSON *o = hr_result_to_json(&r);
    hr_result b;
    CHECK(hr_result_from_json(o, &b) == HR_OK);
    CHECK(b.prob.dtype == HR_BF16 && b.prob.kv_dtype == HR_Q8_0 && !strcmp(b.path, r.path));
    CHECK(b.ncounters == 1 && b.counters[0].value == 0.01);
    cJSON_ReplaceItemInObject(o, "kv_dtype", cJSON_CreateString("int4"));
    CHECK(hr_result_from_json(o, &b) == HR_EUSAGE && strstr(hr_errmsg(), "kv_dtype"));
    cJSON_Delete(o);
}

/* rows.jsonl of a sweep written before the types and the variants (tests/fixtures/pre-dtype):
 * every row reads back as the plain f32 problem under the name and key it had. */
HR_TEST(typed_results_from_before_types_read_as_f32)
{
    size_t len;
    char *text = hr_read_file("tests/fixtures/pre-dtype/rows.jsonl", HR_CAP_RESULTS, "rows file", &len);
    CHECK(text != NULL);
    if (!text) return;
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *o = cJSON_Parse(line);
        CHECK(o != NULL);
        if (!o) continue;
        hr_result r;
        CHECKF(hr_result_from_json(cJSON_GetObjectItem(o, "result"), &r) == HR_OK, "%s", hr_errmsg());
        CHECK(r.prob.dtype == HR_F32 && r.prob.kv_dtype == HR_F32 && r.path[0] == 0);
        CHECK(hr_problem_plain(&r.prob) && r.prob.window == 0 && r.prob.softcap == 0 && r.prob.alibi == 0);
        char name[256], key[320];
        hr_result_name(&r, name, sizeof name);
        hr_sweep_key(&r, 1, key, sizeof key);
        CHECKF(!strcmp(key, cJSON_GetObjectItem(o, "key")->valuestring), "key %s", key);
        cJSON_Delete(o);
        n++;
    }
    CHECK(n == 2);
    free(text);
}

HR_TEST(typed_config_axes_and_points)
{
    hr_sweep_config c;
    CHECK(hr_config_parse("[sweep]\nkernels = naive\nd_head = 64\ndtype = f32, bf16\nkv_dtype = q8_0, f16, q4_0\n",
                          "t.ini", &c) == HR_OK);
    CHECK(c.ndtype == 2 && c.nkv_dtype == 3 && c.kv_dtype[2] == HR_Q4_0 && hr_config_points(&c) == 6);
    hr_sweep_point *pts;
    int n, ndup;
    CHECK(hr_sweep_expand(&c, NULL, 0, &pts, &n, &ndup) == HR_OK);
    CHECK(n == 6);
    if (n == 6) {
        CHECKF(!strcmp(pts[5].name, "naive/B1/H8/G8/N512/M512/d64/bf16/kv=q4_0/full/bhnd/T1"), "%s", pts[5].name);
        CHECKF(strstr(pts[0].skip, "not applicable: no q8_0 K/V cache (--kv-dtype)"), "%s", pts[0].skip);
        CHECK(pts[0].prob.dtype == HR_F32 && pts[0].prob.kv_dtype == HR_Q8_0);
    }
    free(pts);
    /* kv_dtype unset: K/V follow each point's dtype. */
    CHECK(hr_config_parse("[sweep]\nkernels = naive\ndtype = f16\n", "t.ini", &c) == HR_OK);
    CHECK(hr_sweep_expand(&c, NULL, 0, &pts, &n, &ndup) == HR_OK && n == 1 && pts[0].prob.kv_dtype == HR_F16);
    free(pts);
    CHECK(hr_config_parse("[sweep]\nkernels = naive\n", "t.ini", &c) == HR_OK);
    CHECK(c.ndtype == 1 && c.dtype[0] == HR_F32 && c.nkv_dtype == 0);
    CHECK(hr_config_parse("[sweep]\ndtype = q4_0\n", "t.ini", &c) == HR_EUSAGE &&
          strstr(hr_errmsg(), "t.ini:2: dtype: 'q4_0'"));
    CHECK(hr_config_parse("[sweep]\nkv_dtype = f32, fp8\n", "t.ini", &c) == HR_EUSAGE && strstr(hr_errmsg(), "'fp8'"));
    /* Layer sweeps take the core's types too (a kernel that cannot is skipped per point). */
    CHECK(hr_config_parse("[sweep]\nmode = layer\nd_model = 256\ndtype = f32, bf16\n", "t.ini", &c) == HR_OK &&
          c.ndtype == 2 && c.dtype[1] == HR_BF16);
}

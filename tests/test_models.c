/* test_models.c — the model presets loader: the repository's presets against the published
 * shapes, and every error naming file and line. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "counts.h"
#include "models.h"
#include "t.h"

#define GiB 1073741824.0

/* The presets file of the repository: every required model, the published shapes. */
HR_TEST(models_ini_presets)
{
    hr_models ms;
    int st = hr_models_load("configs/model-presets.ini", &ms);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    if (st) return;
    static const struct {
        const char *name;
        int layers, d_model, heads, kv_heads, d_head;
    } want[] = {
        {"gpt2-small", 12, 768, 12, 12, 64},     {"gpt3-175b", 96, 12288, 96, 96, 128},
        {"llama2-7b", 32, 4096, 32, 32, 128},    {"llama2-70b", 80, 8192, 64, 8, 128},
        {"llama3-8b", 32, 4096, 32, 8, 128},     {"llama3-70b", 80, 8192, 64, 8, 128},
        {"mistral-7b", 32, 4096, 32, 8, 128},    {"falcon-7b", 32, 4544, 71, 1, 64},
        {"llama3.1-8b", 32, 4096, 32, 8, 128},   {"llama3.1-70b", 80, 8192, 64, 8, 128},
        {"gemma2-9b", 42, 3584, 16, 8, 256},     {"gemma2-27b", 46, 4608, 32, 16, 128},
        {"qwen2.5-7b", 28, 3584, 28, 4, 128},    {"phi3-mini", 32, 3072, 32, 32, 96},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const hr_model *m = hr_models_find(&ms, want[i].name);
        CHECKF(m != NULL, "model %s missing", want[i].name);
        if (!m) continue;
        CHECKF(m->layers == want[i].layers && m->d_model == want[i].d_model &&
                   m->heads == want[i].heads && m->kv_heads == want[i].kv_heads &&
                   m->d_head == want[i].d_head,
               "%s: shape differs from the published one", m->name);
    }
    /* Case-insensitive lookup; the worked example through the file's numbers. */
    const hr_model *g = hr_models_find(&ms, "GPT3-175B");
    CHECK(g != NULL);
    if (g) CHECK(hr_kv_cache_bytes(g->layers, 1, g->kv_heads, g->d_head, 4096, 2) == 18 * GiB);
    CHECK(hr_models_find(&ms, "gpt5") == NULL);
    /* The attention variants as published: window (every layer or alternate), soft-cap. */
    const hr_model *mi = hr_models_find(&ms, "mistral-7b"), *ge = hr_models_find(&ms, "gemma2-9b");
    const hr_model *ll = hr_models_find(&ms, "llama3.1-8b");
    CHECK(mi && mi->window == 4096 && mi->window_every == 1 && mi->softcap == 0);
    CHECK(ge && ge->window == 4096 && ge->window_every == 2 && ge->softcap == 50);
    CHECK(ll && ll->window == 0 && ll->softcap == 0 && ll->context == 131072);
    hr_models_free(&ms);
}

/* Writes text to a temp file and loads it; returns the status, message in hr_errmsg. */
static int load_text(const char *text, char *path, size_t len)
{
    snprintf(path, len, "/tmp/hr_models_test_%d.ini", (int)getpid());
    if (hr_test_write(path, text)) return -1;
    hr_models ms;
    int st = hr_models_load(path, &ms);
    if (!st) hr_models_free(&ms);
    unlink(path);
    return st;
}

HR_TEST(models_errors_name_file_and_line)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[a]\nlayers = 2\nd_model = 8\nheads = 4\nkv_heads = 3\nd_head = 2\n",
         ":1: [a]: kv_heads does not divide heads"},
        {"[a]\nlayers = two\n", ":2: [a]: layers: expected an integer"},
        {"[a]\nlayers = 0\n", ":2: [a]: layers: expected an integer in [1, 4096]"},
        {"layers = 1\n", ":1: 'layers' outside a [model] section"},
        {"; c\n[a]\nlayers = 1\n[a]\n", ":4: duplicate model [a]"},
        {"[a]\n\nfoo = 1\n", ":3: [a]: unknown key 'foo'"},
        {"[a]\nlayers = 1\nlayers = 2\n", ":3: [a]: duplicate key 'layers'"},
        {"[a]\nlayers = 1\nd_model = 2\n", ":1: [a]: missing key 'heads'"},
        {"[a\n", ":1: syntax error"},
        {"[a b]\n", ":1: bad model name"},
        {"; only a comment\n", ": no [model] sections"},
        {"[a]\nwindow = 0\n", ":2: [a]: window: expected an integer in [1, "},
        {"[a]\nsoftcap = -5\n", ":2: [a]: softcap: expected an integer in [1, "},
        {"[a]\nlayers=1\nd_model=8\nheads=4\nkv_heads=2\nd_head=2\nwindow_every=2\n",
         ":1: [a]: window_every needs a window"},
    };
    char path[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = load_text(cases[i].text, path, sizeof path);
        CHECKF(st == HR_EUSAGE, "case %zu: status %d", i, st);
        CHECKF(strstr(hr_errmsg(), path) && strstr(hr_errmsg(), cases[i].want),
               "case %zu: '%s' lacks '%s'", i, hr_errmsg(), cases[i].want);
    }
    CHECK(load_text("[ok]\nlayers=1\nd_model=8\nheads=4\nkv_heads=2\nd_head=2\ncontext=9\n", path,
                    sizeof path) == HR_OK);
    hr_models ms;
    CHECK(hr_models_load("/nonexistent/models.ini", &ms) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "/nonexistent/models.ini: cannot read model presets file") != NULL);
}

/* models.h — model presets (published attention shapes) loaded from an INI file such as configs/model-presets.ini. */
#ifndef HR_MODELS_H
#define HR_MODELS_H

/* One [section] of the presets file. */
typedef struct {
    char name[64];   /* section name: letters, digits, '.', '_', '-'              */
    int line;        /* line of its [section] header                              */
    int layers, d_model, heads, kv_heads, d_head;
    long context;    /* the model's published context length (0: not given)       */
    int window;      /* attention variants: sliding window in tokens (0: none)     */
    int window_every;/* the window is on every window_every-th layer (1: all)      */
    int softcap;     /* attention-logit soft-cap c, s <- c*tanh(s/c) (0: none)     */
} hr_model;

typedef struct {
    hr_model *v;
    int n;
} hr_models;

/* Reads and validates a presets file: every section needs layers, d_model, heads,
 * kv_heads and d_head (positive integers; kv_heads divides heads); context is
 * optional; other keys, duplicate keys or sections, and keys outside a section are
 * errors. On error returns HR_EUSAGE with a message "FILE:LINE: what" and *out is
 * empty. */
int hr_models_load(const char *path, hr_models *out);
/* hr_models_load of path, or when path is NULL of the default presets file:
 * configs/model-presets.ini where hr_data_path (paths.h) finds it: beside the binary, the
 * installed prefix's share/headroom/, the working directory. */
int hr_models_open(const char *path, hr_models *out);
/* The model called name (case-insensitive), or NULL. */
const hr_model *hr_models_find(const hr_models *m, const char *name);
void hr_models_free(hr_models *m);

#endif

/* ort_mha.c — the ort_mha plugin: ONNX Runtime's contrib operators MultiHeadAttention (Hkv
 * == Hq) and GroupQueryAttention (Hkv < Hq) from the PyPI wheel, through ORT's Python API.
 * The wheel has no C API header (and no registry package has one for this release), so
 * this plugin embeds CPython (the interpreter peers/ort_mha/setup.sh installed the wheels
 * for) and calls ort_mha.py, which builds one model and one session per problem and runs
 * it with IOBinding over headroom's buffers.
 *
 * The timed call: take the GIL (PyGILState_Ensure), call the problem's Runner with the
 * four addresses, release it. Q, K, V and O are bound in place, with no copy, when the
 * views are dense BSNH (headroom's BNHD) or, for MultiHeadAttention, dense BHND (then run
 * as B*H sequences of one head). GroupQueryAttention takes only BSNH: a BHND view is
 * transposed into the workspace and O back, inside the timed call, and the path says so
 * ("... (BHND transposed)" is not knowable from the problem alone, so the path of every
 * GQA problem names both cases; see README.md).
 * Hkv < Hq with Nq != Nkv (decode, chunked prefill) is not GroupQueryAttention's: it takes a
 * longer cache only as past_key/past_value, which it copies into present_key/present_value
 * on every call (headroom's K and V are read-only, so the in-place buffer sharing is out);
 * it runs as MultiHeadAttention over query groups (ort_mha.py), in place over BHND views,
 * with BNHD transposed into the workspace.
 * The variants (caps window, softcap, alibi), as a user of ORT gives them: with Nq == Nkv
 * a soft cap and a sliding window are GroupQueryAttention's own `softcap` and
 * `local_window_size` (Gemma 2, Mistral; Hkv == Hq too, as kv_num_heads = num_heads), and
 * ALiBi beside a soft cap its attention_bias. Otherwise a window and ALiBi are
 * MultiHeadAttention's attention_bias, an initializer of the problem's model built with it
 * (once per problem, never in the timed call): -inf outside the window, -m_h |i' - j|
 * under ALiBi; ALiBi with Hkv < Hq runs over KV groups even when Nq == Nkv.
 * Refused (applicable, with the reason): bf16 (no CPU kernel in this release), kv_dtype !=
 * dtype, causal with Nq > Nkv (rows that see no key come back NaN, not zeros), a soft cap
 * with Nq != Nkv (MultiHeadAttention has none; GroupQueryAttention takes a longer cache
 * only as past_key/past_value, which it writes into or copies on every call), and for
 * GroupQueryAttention a head size not a multiple of 8. */
#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "headroom/plugin.h"

#ifndef ORT_VERSION
#define ORT_VERSION "1.32.0"
#endif
/* Set by build.sh: the interpreter, the site directory with onnxruntime, onnx, numpy
 * (relative to this plugin's directory), and libpython's soname. */
#ifndef ORT_PYTHON
#define ORT_PYTHON "python3"
#endif
#ifndef ORT_SITE_REL
#define ORT_SITE_REL "../peers/ort_mha/site"
#endif
#ifndef ORT_LIBPYTHON
#define ORT_LIBPYTHON "libpython3.so"
#endif
#define IMPL_DIR "ort_mha.libs" /* ort_mha.py beside the plugin, in here */

static _Thread_local char last_err[256];
static int py_state; /* 0 not tried, 1 ready, -1 failed (last_err says why) */
static PyObject *runner_cls;

static const char *ort_last_error(void) { return last_err; }

/* The Python error in flight, as one line in last_err; clears it. */
static void py_error(const char *what)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    const char *s = NULL;
    PyObject *str = v ? PyObject_Str(v) : NULL;
    if (str) s = PyUnicode_AsUTF8(str);
    if (!s) PyErr_Clear();
    snprintf(last_err, sizeof last_err, "%s: %s", what, s ? s : "(no message)");
    last_err[strcspn(last_err, "\n")] = 0;
    Py_XDECREF(str);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
}

/* The directory this plugin was loaded from, into dir. */
static int plugin_dir(char *dir, size_t len)
{
    Dl_info di;
    if (!dladdr((void *)&py_state, &di) || !di.dli_fname) return -1;
    const char *slash = strrchr(di.dli_fname, '/');
    int n = slash ? snprintf(dir, len, "%.*s", (int)(slash - di.dli_fname), di.dli_fname) : snprintf(dir, len, ".");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Start the interpreter once (isolated: no PYTHON* variables, no user site), put the site
 * directory and ort_mha.py on sys.path, import ort_mha, release the GIL. */
static int py_start(void)
{
    if (py_state) return py_state;
    py_state = -1;
    char dir[4096], site[4200], libs[4200];
    if (plugin_dir(dir, sizeof dir)) {
        snprintf(last_err, sizeof last_err, "cannot find where the plugin was loaded from");
        return -1;
    }
    snprintf(site, sizeof site, "%s/%s", dir, ORT_SITE_REL);
    snprintf(libs, sizeof libs, "%s/%s", dir, IMPL_DIR);
    /* headroom opens plugins RTLD_LOCAL; numpy's and ORT's extension modules expect the
     * interpreter's symbols in the global scope. */
    if (!dlopen(ORT_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD)) {
        snprintf(last_err, sizeof last_err, "cannot make %s global: %.150s", ORT_LIBPYTHON, dlerror());
        return -1;
    }
    /* numpy's bundled OpenBLAS would start a thread per CPU at import; nothing here uses
     * it. headroom's own OpenBLAS read its variables long before. */
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    if (!Py_IsInitialized()) {
        PyConfig c;
        PyConfig_InitIsolatedConfig(&c);
        c.install_signal_handlers = 0; /* Ctrl-C stays headroom's */
        PyStatus st = PyConfig_SetBytesString(&c, &c.program_name, ORT_PYTHON);
        if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&c);
        PyConfig_Clear(&c);
        if (PyStatus_Exception(st)) {
            snprintf(last_err, sizeof last_err, "cannot start Python (%s): %.150s", ORT_PYTHON,
                     st.err_msg ? st.err_msg : "?");
            return -1;
        }
    } else {
        PyGILState_Ensure(); /* an embedding host's interpreter: use it (never freed) */
    }
    PyObject *path = PySys_GetObject("path"); /* borrowed */
    PyObject *s1 = PyUnicode_DecodeFSDefault(site), *s2 = PyUnicode_DecodeFSDefault(libs);
    int bad = !path || !s1 || !s2 || PyList_Insert(path, 0, s1) || PyList_Insert(path, 0, s2);
    Py_XDECREF(s1);
    Py_XDECREF(s2);
    PyObject *mod = bad ? NULL : PyImport_ImportModule("ort_mha");
    if (mod) {
        runner_cls = PyObject_GetAttrString(mod, "Runner");
        PyObject *ver = PyObject_GetAttrString(mod, "VERSION");
        const char *v = ver ? PyUnicode_AsUTF8(ver) : NULL;
        if (runner_cls && v && strcmp(v, ORT_VERSION)) {
            snprintf(last_err, sizeof last_err, "onnxruntime %.40s in %.150s, built for %s", v, site, ORT_VERSION);
            Py_CLEAR(runner_cls);
        }
        Py_XDECREF(ver);
        Py_DECREF(mod);
    }
    if (!runner_cls && !last_err[0]) py_error("import ort_mha (onnxruntime, onnx, numpy)");
    PyErr_Clear();
    PyEval_SaveThread(); /* every call takes the GIL for itself */
    if (!runner_cls) return -1;
    py_state = 1;
    return 1;
}

/* The 1.1 variants (0 from a 1.0 headroom). */
static int window_of(const hrp_problem *p) { return HRP_HAS(p, window) ? p->window : 0; }
static float softcap_of(const hrp_problem *p) { return HRP_HAS(p, softcap) ? p->softcap : 0.0f; }
static float alibi_of(const hrp_problem *p) { return HRP_HAS(p, alibi) ? p->alibi : 0.0f; }
static int variant(const hrp_problem *p) { return window_of(p) > 0 || alibi_of(p) > 0 || softcap_of(p) > 0; }

/* Whether p runs on GroupQueryAttention (else MultiHeadAttention): it takes K and V only
 * of the query's length. There, Hkv < Hq, a soft cap (its `softcap`, and ALiBi beside
 * it as its attention_bias) and a sliding window (its `local_window_size`); ALiBi
 * without a soft cap stays MultiHeadAttention's bias, as does a window with a head size
 * GroupQueryAttention's CPU kernel refuses (not a multiple of 8). */
static int gqa(const hrp_problem *p)
{
    if (p->seq_q != p->seq_kv) return 0;
    if (softcap_of(p) > 0) return 1;
    if (alibi_of(p) > 0) return 0;
    return p->kv_heads != p->heads || (window_of(p) > 0 && p->d_head % 8 == 0);
}

/* Whether Hkv < Hq runs as MultiHeadAttention over KV groups (else GroupQueryAttention). */
static int over_groups(const hrp_problem *p) { return p->kv_heads != p->heads && !gqa(p); }

static const char *ort_applicable(const hrp_problem *p)
{
    if (p->dtype == HRP_BF16)
        return "onnxruntime " ORT_VERSION " has no bf16 CPU kernel for MultiHeadAttention or GroupQueryAttention";
    if (p->kv_dtype != p->dtype) return "ORT's attention takes Q, K and V in one dtype (kv_dtype differs from dtype)";
    if (p->causal && p->seq_q > p->seq_kv)
        return "causal with Nq > Nkv: rows that see no key come back NaN from ORT (attention_bias -inf), not zeros";
    if (softcap_of(p) > 0 && p->seq_q != p->seq_kv)
        return "soft cap with Nq != Nkv: MultiHeadAttention has none, and GroupQueryAttention takes a longer cache "
               "only as past_key/past_value, which it writes into (headroom's K and V are read-only) or copies every "
               "call";
    if (gqa(p) && p->d_head % 8)
        return "GroupQueryAttention on CPU needs a head size that is a multiple of 8";
    return NULL;
}

/* How the views lie: dense BSNH ([b][n][h][d], headroom's BNHD) or dense BNSH (BHND). */
static int dense(const hrp_view *v, int B, int H, int N, int d, int es, int bsnh)
{
    const int64_t row = (int64_t)d * es;
    if (bsnh)
        return (N == 1 || v->sn == H * row) && (H == 1 || v->sh == row) && (B == 1 || v->sb == (int64_t)N * H * row);
    return (N == 1 || v->sn == row) && (H == 1 || v->sh == (int64_t)N * row) && (B == 1 || v->sb == (int64_t)H * N * row);
}

/* TRANSPOSED: GroupQueryAttention over BHND views, through BSNH copies in the workspace;
 * GROUPS: MultiHeadAttention over query groups (Hkv < Hq, Nq != Nkv) on BHND views;
 * GROUPS_T: the same over BNHD views, through BHND copies in the workspace. */
enum mode { BSNH, HEADS1, TRANSPOSED, GROUPS, GROUPS_T };
static const char *const mode_names[] = {"bsnh", "heads1", "bsnh", "groups", "groups"};

static size_t ort_workspace(const hrp_problem *p, const hrp_tune *t)
{
    (void)t;
    if (p->kv_heads == p->heads) return 0;
    const size_t es = p->dtype == HRP_F32 ? 4 : 2, B = (size_t)p->batch, d = (size_t)p->d_head;
    return es * B * d * (2 * (size_t)p->heads * (size_t)p->seq_q + 2 * (size_t)p->kv_heads * (size_t)p->seq_kv);
}

/* Copy view v ([B][H][N][d], any strides) to or from a dense buffer x, BSNH or BNSH. */
static void transpose(const hrp_view *v, char *x, int B, int H, int N, int d, int es, int to_x, int bsnh)
{
    const size_t row = (size_t)d * es;
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++)
            for (int h = 0; h < H; h++) {
                const size_t at = bsnh ? ((size_t)b * N + n) * H + h : ((size_t)b * H + h) * N + n;
                char *r = (char *)hrp_row(*v, b, h, n), *y = x + at * row;
                memcpy(to_x ? y : r, to_x ? r : y, row);
            }
}

/* The problem's Runner, cached by (problem, threads, mode): built on the first call. A call
 * is run(io), the session's bound run_with_iobinding on its binding, as a Python loop
 * calls it; Runner.bind only when an address differs from the last call's. */
#define NCACHE 64
typedef struct {
    hrp_problem p;
    int threads, mode;
    PyObject *runner, *run, *io;
    void *last[4];
} entry;
static entry cache[NCACHE];
static int ncache, next_evict;

static entry *runner_for(const hrp_problem *p, int threads, int mode)
{
    for (int i = 0; i < ncache; i++)
        if (cache[i].threads == threads && cache[i].mode == mode && !memcmp(&cache[i].p, p, sizeof *p))
            return &cache[i];
    PyObject *r = PyObject_CallFunction(runner_cls, "iiiiiiidiisiddi", p->batch, p->heads, p->kv_heads, p->seq_q,
                                        p->seq_kv, p->d_head, p->causal, (double)p->scale, p->dtype == HRP_F16,
                                        threads, mode_names[mode], window_of(p), (double)alibi_of(p),
                                        (double)softcap_of(p), gqa(p));
    PyObject *sess = r ? PyObject_GetAttrString(r, "sess") : NULL;
    PyObject *run = sess ? PyObject_GetAttrString(sess, "run_with_iobinding") : NULL;
    PyObject *io = run ? PyObject_GetAttrString(r, "io") : NULL;
    Py_XDECREF(sess);
    if (!io) {
        py_error("building the ORT session");
        Py_XDECREF(run);
        Py_XDECREF(r);
        return NULL;
    }
    int i = ncache < NCACHE ? ncache++ : next_evict++ % NCACHE;
    Py_XDECREF(cache[i].runner);
    Py_XDECREF(cache[i].run);
    Py_XDECREF(cache[i].io);
    cache[i] = (entry){*p, threads, mode, r, run, io, {NULL, NULL, NULL, NULL}};
    return &cache[i];
}

static int ort_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    last_err[0] = 0;
    if (py_start() != 1) return HRP_ERROR;
    const int f32 = p->dtype == HRP_F32, es = f32 ? 4 : 2;
    const hrp_view *q = f32 ? &a->q : &a->xq, *k = f32 ? &a->k : &a->xk, *v = f32 ? &a->v : &a->xv,
                   *o = f32 ? &a->o : &a->xo;
    const int B = p->batch, H = p->heads, G = p->kv_heads, N = p->seq_q, M = p->seq_kv, d = p->d_head;
    int mode;
    const int groups = over_groups(p);
    if (dense(q, B, H, N, d, es, 1) && dense(o, B, H, N, d, es, 1) && dense(k, B, G, M, d, es, 1) &&
        dense(v, B, G, M, d, es, 1))
        mode = groups ? GROUPS_T : BSNH;
    else if (dense(q, B, H, N, d, es, 0) && dense(o, B, H, N, d, es, 0) && dense(k, B, G, M, d, es, 0) &&
             dense(v, B, G, M, d, es, 0))
        mode = G == H ? HEADS1 : groups ? GROUPS : TRANSPOSED;
    else {
        snprintf(last_err, sizeof last_err, "views neither dense BNHD nor dense BHND: ORT takes dense tensors");
        return HRP_ERROR;
    }
    void *qp = q->data, *kp = k->data, *vp = v->data, *op = o->data;
    char *xo = NULL;
    const int to_bsnh = mode == TRANSPOSED;
    if (mode == TRANSPOSED || mode == GROUPS_T) { /* copies in the workspace, O back after */
        char *x = ws;
        transpose(q, x, B, H, N, d, es, 1, to_bsnh);
        qp = x;
        x += (size_t)B * H * N * d * es;
        transpose(k, x, B, G, M, d, es, 1, to_bsnh);
        kp = x;
        x += (size_t)B * G * M * d * es;
        transpose(v, x, B, G, M, d, es, 1, to_bsnh);
        vp = x;
        x += (size_t)B * G * M * d * es;
        op = xo = x;
    }
    const int threads = t->threads > 0 ? t->threads : 1;
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = HRP_ERROR;
    entry *e = runner_for(p, threads, mode);
    if (e) {
        PyObject *res = Py_None;
        Py_INCREF(res);
        if (e->last[0] != qp || e->last[1] != kp || e->last[2] != vp || e->last[3] != op) {
            Py_DECREF(res);
            res = PyObject_CallMethod(e->runner, "bind", "KKKK", (unsigned long long)(uintptr_t)qp,
                                      (unsigned long long)(uintptr_t)kp, (unsigned long long)(uintptr_t)vp,
                                      (unsigned long long)(uintptr_t)op);
            if (res) e->last[0] = qp, e->last[1] = kp, e->last[2] = vp, e->last[3] = op;
            else py_error("binding headroom's buffers");
        }
        if (res) {
            Py_DECREF(res);
            res = PyObject_CallOneArg(e->run, e->io);
            if (res) rc = HRP_OK;
            else py_error("run_with_iobinding");
        }
        Py_XDECREF(res);
    }
    PyGILState_Release(g);
    if (rc == HRP_OK && xo) transpose(o, xo, B, H, N, d, es, 0, to_bsnh);
    return rc;
}

/* GroupQueryAttention's paths: [Hkv == Hq][its variant attributes, gqa_attrs]. */
#define GQA_PATH(attrs, lay) "onnxruntime " ORT_VERSION " GroupQueryAttention" attrs " (" lay ")"
#define GQA_ROW(lay)                                                                                                  \
    {GQA_PATH("", lay), GQA_PATH(", local_window_size", lay), GQA_PATH(", softcap", lay),                            \
     GQA_PATH(", softcap, local_window_size", lay), GQA_PATH(", softcap, attention_bias", lay),                      \
     GQA_PATH(", softcap, local_window_size, attention_bias", lay)}
static const char *const gqa_paths[2][6] = {
    GQA_ROW("BNHD in place; BHND transposed to BSNH in the call"),
    GQA_ROW("kv_num_heads = num_heads; BNHD in place; BHND as one head per sequence, in place"),
};

static const char *ort_path(const hrp_problem *p)
{
    if (gqa(p)) {
        const int a = softcap_of(p) > 0 ? 2 + (window_of(p) > 0) + 2 * (alibi_of(p) > 0) : window_of(p) > 0;
        return gqa_paths[p->kv_heads == p->heads][a];
    }
    if (p->kv_heads == p->heads)
        return variant(p) ? "onnxruntime " ORT_VERSION " MultiHeadAttention, attention_bias"
                          : "onnxruntime " ORT_VERSION " MultiHeadAttention";
    if (variant(p))
        return "onnxruntime " ORT_VERSION " MultiHeadAttention over KV groups, attention_bias (BHND in place; BNHD "
               "transposed to BHND in the call)";
    return "onnxruntime " ORT_VERSION " MultiHeadAttention over KV groups (BHND in place; BNHD transposed to BHND in "
           "the call)";
}

static const hrp_kernel ort_mha = {
    sizeof(hrp_kernel),
    "ort_mha",
    "ONNX Runtime " ORT_VERSION " MultiHeadAttention / GroupQueryAttention (CPU, PyPI wheel, Python API embedded)",
    HRP_CAP_CAUSAL | HRP_CAP_GQA | HRP_CAP_THREADED | HRP_CAP_WINDOW | HRP_CAP_SOFTCAP | HRP_CAP_ALIBI,
    HRP_TRAFFIC_KV_PER_HEAD,
    HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_F16) | HRP_TYPE_BIT(HRP_BF16),
    HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_F16) | HRP_TYPE_BIT(HRP_BF16),
    ort_applicable,
    NULL,
    ort_workspace,
    ort_run,
    ort_path,
};

static const hrp_kernel *const kernels[] = {&ort_mha};

HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    static const hrp_plugin plugin = {
        HRP_ABI_MAJOR, HRP_ABI_MINOR, sizeof(hrp_plugin), "onnxruntime", ORT_VERSION, 1, kernels, ort_last_error,
    };
    if (dlsym(RTLD_DEFAULT, "__asan_init")) {
        fprintf(stderr, "ort_mha: not loaded under AddressSanitizer (the embedded CPython and onnxruntime are not "
                        "built with it)\n");
        return NULL;
    }
    return &plugin;
}

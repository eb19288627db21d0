/* test_npy.c — .npy write and read back, data aligned as numpy pads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inputs.h"
#include "npy.h"
#include "t.h"

HR_TEST(npy_roundtrip)
{
    hr_problem p = {1, 2, 2, 3, 3, 5, false, 0};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 1) == HR_OK);
    char path[] = "/tmp/hr_npy_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(hr_npy_write_view(path, t.args.q, 1, 2, 3, 5) == HR_OK);
    float *data;
    long shape[4];
    int nd;
    CHECK(hr_npy_read(path, &data, shape, &nd) == HR_OK);
    CHECK(nd == 4 && shape[0] == 1 && shape[1] == 2 && shape[2] == 3 && shape[3] == 5);
    for (int h = 0; h < 2; h++)
        for (int n = 0; n < 3; n++)
            CHECK(memcmp(data + (h * 3 + n) * 5, hr_row(t.q, 0, h, n), 20) == 0);
    /* The data starts on a 64-byte boundary (header padded, as numpy does). */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    CHECK((ftell(f) - 30 * 4) % 64 == 0);
    fclose(f);
    free(data);
    unlink(path);
    hr_tensors_free(&t);
}

/* Hostile .npy input: a device, a shape larger than the file, trailing bytes, a header
 * without its newline; each refused before anything is allocated from the header. */
HR_TEST(npy_hostile)
{
    float *data = NULL;
    long shape[4];
    int nd;
    CHECK(hr_npy_read("/dev/zero", &data, shape, &nd) == HR_EUSAGE && !data);
    CHECK(strstr(hr_errmsg(), "not a regular file") != NULL);
    char path[] = "/tmp/hr_npy_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    static const char *const bodies[] = {
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 1099511627776, 16), }\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, ), }\n",   /* 8 bytes short      */
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, ), }\n",   /* 4 bytes left over  */
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1, ), }   ", /* no newline          */
    };
    for (int i = 0; i < 4; i++) {
        FILE *f = fopen(path, "wb");
        size_t h = strlen(bodies[i]);
        unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)h, 0};
        fwrite(pre, 1, 10, f);
        fwrite(bodies[i], 1, h, f);
        fwrite("\0\0\0\0", 1, 4, f);
        fclose(f);
        CHECKF(hr_npy_read(path, &data, shape, &nd) == HR_EUSAGE && !data, "body %d", i);
    }
    CHECK(hr_npy_write_view("/dev/null", (hr_cview){0}, 0, 0, 0, 0) == HR_EUSAGE);
    unlink(path);
}

/* npy.h — NumPy .npy (format 1.0) writer and reader for float32 C-order arrays. */
#ifndef HR_NPY_H
#define HR_NPY_H

#include "headroom.h"

/* Writes the [B][H][N][d] view as a dense float32 array of that shape. */
int hr_npy_write_view(const char *path, hr_cview v, int batch, int heads, int rows, int d);
/* Reads a float32 .npy of up to 4 dimensions into a malloc'ed buffer; shape and ndim are
 * returned. On error returns HR_EUSAGE with a message naming the file. */
int hr_npy_read(const char *path, float **data, long shape[4], int *ndim);

#endif

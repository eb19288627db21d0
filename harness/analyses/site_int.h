/* site_int.h — what site.c and site_pages.c share: page-data builders and the page set. */
#ifndef HR_SITE_INT_H
#define HR_SITE_INT_H

#include "site.h"

/* A number, or null where v is not finite. */
void hr_site_num(cJSON *o, const char *k, double v);
/* A column {key, label, num, digits (-1: by magnitude)} appended to cols. */
cJSON *hr_site_col(cJSON *cols, const char *key, const char *label, int num, int digits);
/* A table over data[src] (its columns: the array returned). */
cJSON *hr_site_table(cJSON *data, const char *id, const char *title, const char *src);
/* A chart of data[src]: x against y, a series per group; logs: 1 x, 2 y logarithmic; a
 * click on a point shows its row in the table of that id. */
cJSON *hr_site_chart(cJSON *data, const char *id, const char *title, const char *src, const char *x, const char *y,
                     const char *group, int logs, const char *table);
void hr_site_fact(cJSON *data, const char *k, const char *v);
/* The tooltip: n triples {label, key, unit}. */
void hr_site_tip(cJSON *chart, const char *const *tips, int n);
void hr_site_ceilings(const hr_site_row *rows, int n, double *peak, double *bw);
/* The rows as data[key], their table and charts (roofline, per kernel, the KV story). */
void hr_site_rows(cJSON *data, const hr_site_row *rows, int n, const char *key, const char *title);
/* Links to the gnuplot PNG/SVG files of dir (and dir/plots), as prefix + name; each copied
 * into copy_to first when it is not NULL. */
void hr_site_images(cJSON *data, const char *dir, const char *prefix, const char *copy_to);
/* Every page of s into the directory dir (site_pages.c). */
int hr_site_pages(const hr_site *s, const char *dir, const char *chartjs);

#endif

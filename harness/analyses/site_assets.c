/* site_assets.c — the site's template files (harness/site/) embedded in the binary at build
 * time, so the binary writes a site without its source tree or an install prefix. */
#include "site.h"

/* .incbin takes the path relative to where the compiler runs: the repository root (the
 * Makefile rebuilds this object when a file of harness/site/ changes). A NUL ends each. */
__asm__(".section .rodata\n"
        ".global hr_site_css\n.type hr_site_css, @object\nhr_site_css:\n"
        ".incbin \"harness/site/site.css\"\n.byte 0\n"
        ".global hr_site_js\n.type hr_site_js, @object\nhr_site_js:\n"
        ".incbin \"harness/site/site.js\"\n.byte 0\n"
        ".previous\n");

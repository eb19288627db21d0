/* vec.c — names the vector path this binary was built with (see vec.h). */
#include "headroom.h"
#include "vec.h"

const char hr_isa[] = HR_VEC_ISA;

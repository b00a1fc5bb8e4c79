#ifndef CLZ4_SHIM_H
#define CLZ4_SHIM_H
#include <lz4.h>
#endif

#ifndef CMESHOPTIMIZER_SHIM_H
#define CMESHOPTIMIZER_SHIM_H
#include <meshoptimizer.h>
#endif

#ifndef CLIBWEBP_SHIM_H
#define CLIBWEBP_SHIM_H
#include <webp/encode.h>
#include <webp/decode.h>
#endif

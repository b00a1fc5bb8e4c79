#ifndef CLIBJPEG_SHIM_H
#define CLIBJPEG_SHIM_H
#include <stdio.h>
#include <jpeglib.h>
#endif

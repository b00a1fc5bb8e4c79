#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#endif

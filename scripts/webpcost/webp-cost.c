/* The cost of libwebp's part of the thumbnails: for the WebP images given, decodes each to RGBA,
 * then times (CPU time of the process, mean of REPS runs) the import of the pixels into a
 * WebPPicture (the colour conversion to YUV) and the encoding at methods 0..3 with the worker's
 * settings (quality 75, one segment, no threads), and prints the bytes each method writes.
 * Built and run by scripts/bench-webp.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <webp/decode.h>
#include <webp/encode.h>

enum { REPS = 5, METHODS = 4 };

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

int main(int argc, char **argv) {
    double import_s = 0, encode_s[METHODS] = {0};
    size_t bytes[METHODS] = {0};
    long pixels = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: webp-cost IMAGE.webp...\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        size_t size = 0;
        uint8_t *file = read_file(argv[a], &size);
        int w = 0, h = 0;
        uint8_t *rgba = file ? WebPDecodeRGBA(file, size, &w, &h) : NULL;
        if (!rgba) {
            fprintf(stderr, "webp-cost: cannot decode %s\n", argv[a]);
            return 1;
        }
        pixels += (long)w * h;
        for (int m = -1; m < METHODS; m++) {
            for (int r = 0; r < REPS; r++) {
                WebPConfig config;
                WebPPicture picture;
                WebPMemoryWriter writer;
                WebPConfigInit(&config);
                config.quality = 75;
                config.method = m < 0 ? 0 : m;
                config.segments = 1;
                config.thread_level = 0;
                WebPPictureInit(&picture);
                picture.width = w;
                picture.height = h;
                double t0 = cpu_seconds();
                WebPPictureImportRGBX(&picture, rgba, w * 4);
                if (m < 0) {
                    import_s += cpu_seconds() - t0;
                    WebPPictureFree(&picture);
                    continue;
                }
                WebPMemoryWriterInit(&writer);
                picture.writer = WebPMemoryWrite;
                picture.custom_ptr = &writer;
                t0 = cpu_seconds();
                if (!WebPEncode(&config, &picture)) {
                    fprintf(stderr, "webp-cost: encoding %s failed\n", argv[a]);
                    return 1;
                }
                encode_s[m] += cpu_seconds() - t0;
                if (r == 0) bytes[m] += writer.size;
                WebPMemoryWriterClear(&writer);
                WebPPictureFree(&picture);
            }
        }
        WebPFree(rgba);
        free(file);
    }
    printf("%d images, %.2f million pixels\n", argc - 1, (double)pixels / 1e6);
    printf("import (RGBA to YUV)  %6.1f ms\n", import_s / REPS * 1e3);
    for (int m = 0; m < METHODS; m++) {
        printf("encode, method %d      %6.1f ms  %8zu bytes  (%.2f x the time, %.2f x the bytes of method 2)\n", m,
               encode_s[m] / REPS * 1e3, bytes[m], encode_s[m] / encode_s[2], (double)bytes[m] / (double)bytes[2]);
    }
    return 0;
}

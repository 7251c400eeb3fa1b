/* Runs a fuzz target's LLVMFuzzerTestOneInput on files and directories given on the command
 * line, without libFuzzer: the seed corpora and every crash ever found (regressions/) run
 * this way in the normal test suite, and under ASan/UBSan in CI. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), f) : 0;
    fclose(f);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc |= replay_file(argv[i]);
            files++;
            continue;
        }
        /* Sorted, so a failure always shows up at the same input. */
        struct dirent **list;
        int n = scandir(argv[i], &list, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            if (list[k]->d_name[0] != '.') {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], list[k]->d_name);
                rc |= replay_file(path);
                files++;
            }
            free(list[k]);
        }
        free(list);
    }
    printf("replayed %d input(s)\n", files);
    return rc;
}

/* Exactly one CBLAS may serve sgdsim: libgsl drags in libgslcblas as a dependency, so this
 * checks that cblas_sgemm as seen by the program is OpenBLAS's (link order in CMake). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include <cblas.h>

#include "tests/check.h"

int main(void)
{
    Dl_info info;
    CHECK(dladdr((void *)cblas_sgemm, &info) != 0);
    fprintf(stderr, "cblas_sgemm comes from %s\n", info.dli_fname ? info.dli_fname : "?");
    CHECK_STR_CONTAINS(info.dli_fname, "openblas");
    void *sym = dlsym(RTLD_DEFAULT, "cblas_sgemm");
    CHECK(sym != NULL && dladdr(sym, &info) != 0);
    CHECK_STR_CONTAINS(info.dli_fname, "openblas");
    return check_exit();
}

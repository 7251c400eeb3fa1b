/* Prints the kernel OpenBLAS picks by itself on this CPU (openblas_get_corename with no
 * OPENBLAS_CORETYPE in the environment; the caller unsets it), so test_cli_blas_reexec.sh can
 * derive which pins need a re-exec instead of assuming what OpenBLAS knows of the CPU.  Run
 * under corename_shim.c with SHIM_NATIVE set, it prints the kernel the shim plays. */
#include <stdio.h>

/* OpenBLAS's declaration (cblas.h), repeated as in corename_shim.c. */
char *openblas_get_corename(void);

int main(void)
{
    const char *name = openblas_get_corename();
    if (!name || !name[0]) return 1;
    printf("%s\n", name);
    return 0;
}

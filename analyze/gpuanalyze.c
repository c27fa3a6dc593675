/* gpuanalyze.c: placeholder main until the analyzer's command table lands. */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "gpuanalyze: not built yet\n");
	return 2;
}

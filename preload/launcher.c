/* launcher.c: placeholder for the gputrace launcher. */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "gputrace: not built yet\n");
	return 2;
}

#!/bin/sh
# make demo: placeholder until the analyzer lands.
echo "gputrace demo: analyzer not built yet"

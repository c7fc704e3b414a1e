#!/usr/bin/env bash
# Runs each benchmark binary given as an argument, in order.
set -eu
for b in "$@"; do "$b"; echo; done

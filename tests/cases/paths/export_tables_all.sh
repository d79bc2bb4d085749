#!/usr/bin/env bash
# CUTAP_HIDDEN=all: CUDART_INTERFACE is wrapped too (the program checks it
# got wrapped slots), and every call through the tables is logged once.
. "$(dirname "$0")/../../lib/init.sh"

EXPECT_WRAPPED_CUDART=1 CUTAP_HIDDEN=all traced_equal hidden_all $T/t_paths_pie hidden

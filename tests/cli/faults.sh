#!/bin/sh
. "${TESTS_DIR:-tests}/cli/lib.sh"
done_testing

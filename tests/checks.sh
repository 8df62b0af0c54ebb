# The checks of the shell tests (cli_test.sh, cli_text_test.sh, out_folder_test.sh,
# stop_test.sh), sourced by each: `check DESCRIPTION COMMAND...` passes when COMMAND succeeds,
# printing "ok   DESCRIPTION" or "FAIL DESCRIPTION" and counting failures in $failures, which
# each script reads at its end.
failures=0
pass() { echo "ok   $1"; }
fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}
check() {
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

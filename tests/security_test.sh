#!/usr/bin/env bash
# Another local user cannot make hysim run their code through the model cache (docs/security.md).
#
#   tests/security_test.sh PATH_TO_HYSIM SOURCE_DIR
#
# The attacker plants the strongest object there is: a shared library with a constructor that
# leaves a marker, under the very name hysim would look for, with a record carrying its true
# SHA-256. Part 1, as any user: a cache folder that others may write (HYSIM_CACHE_DIR) is
# refused, and the planted constructor never runs. Part 2, as root only (it needs a second user):
# inside a private mount namespace with its own /tmp, the attacker (uid 65534) plants the old
# fixed cache /tmp/hysim-cache with the object and with links to a file of the victim's, and
# the victim runs with HOME and XDG_CACHE_HOME unset (as under cron or systemd): as root (the
# cache goes to the home folder of the password database) and as a user without a home (no
# cache: a private temporary folder, removed afterwards). Nothing planted runs, nothing of the
# victim's is written through a link, and no run fails. Also: hysim killed with SIGKILL while
# compiling leaves no compiler process behind.
set -euo pipefail
hysim=$(realpath "$1")
source_dir=$(realpath "$2")
fail() { echo "FAIL: $*" >&2; exit 1; }

# Outside /tmp, which part 2 replaces; readable by the other users.
stage=$(mktemp -d /var/tmp/hysim-security.XXXXXX)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"
cp "$hysim" "$stage/hysim"
cp "$source_dir/examples/thermostat.hym" "$stage/model.hym"
chmod 755 "$stage/hysim"
chmod 644 "$stage/model.hym"
run() { "$stage/hysim" run "$stage/model.hym" --t-end 5 "$@"; }

# The name hysim gives this model's object, found by a run with a private cache of our own.
HYSIM_CACHE_DIR=$stage/probe run --out "$stage/probe-out" > /dev/null
object_name=$(cd "$stage/probe" && ls model-*.so)
key=${object_name#model-}
key=${key%.so}
[[ ${#key} -eq 64 ]] || fail "unexpected object name $object_name"

# plant DIR MARKER: the attacker's object and a record with its true SHA-256, in DIR.
plant() {
  cat > "$stage/evil.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void planted(void) { FILE* f = fopen("$2", "w"); if (f) fclose(f); }
EOF
  cc -shared -fPIC -o "$1/$object_name" "$stage/evil.c"
  printf 'hysim native model\nkey %s\nsha256 %s\n' "$key" "$(sha256sum < "$1/$object_name" | cut -c1-64)" \
    > "$1/model-$key.sha256"
}

# Part 1: a folder others may write is refused, whoever made it; the run goes on, on the tape.
mkdir "$stage/shared"
plant "$stage/shared" "$stage/marker-1"
chmod 777 "$stage/shared"
HYSIM_CACHE_DIR=$stage/shared run --out "$stage/out-1" > /dev/null 2> "$stage/err-1" || fail "the run failed: $(cat "$stage/err-1")"
grep -q "is not private" "$stage/err-1" || fail "no word of the refused cache: $(cat "$stage/err-1")"
[[ ! -e $stage/marker-1 ]] || fail "a planted object in a world-writable cache was loaded"
status=0
HYSIM_CACHE_DIR=$stage/shared HYSIM_MODEL_BACKEND=native run --out "$stage/out-2" > /dev/null 2> "$stage/err-2" || status=$?
[[ $status -ne 0 ]] || fail "HYSIM_MODEL_BACKEND=native accepted a world-writable cache"
grep -q "writable by its group or others (mode 0777)" "$stage/err-2" || fail "unclear refusal: $(cat "$stage/err-2")"
[[ ! -e $stage/marker-1 ]] || fail "the planted constructor ran"
echo "part 1: a world-writable cache is refused; the planted constructor never ran"

# Killed with SIGKILL while compiling: the compiler's own children die with it.
cat > "$stage/slow-cc" <<EOF
#!/bin/sh
sleep 60 &
echo \$! > $stage/slow.pid
wait
EOF
chmod 755 "$stage/slow-cc"
HYSIM_CC=$stage/slow-cc HYSIM_CACHE_DIR=$stage/slow-cache "$stage/hysim" run "$stage/model.hym" --out "$stage/out-slow" \
  > /dev/null 2>&1 &
hysim_pid=$!
for _ in $(seq 100); do [[ -s $stage/slow.pid ]] && break; sleep 0.05; done
[[ -s $stage/slow.pid ]] || fail "the slow compiler did not start"
kill -KILL "$hysim_pid"
wait "$hysim_pid" 2> /dev/null || true
child=$(cat "$stage/slow.pid")
alive() { [[ -e /proc/$1 ]] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2> /dev/null; }
for _ in $(seq 40); do alive "$child" || break; sleep 0.05; done
! alive "$child" || { kill "$child"; fail "the compiler's child $child outlived hysim killed with SIGKILL"; }
echo "SIGKILL while compiling: no compiler process left"

# SIGINT while compiling: hysim kills the compiler's group and exits 130 at once.
rm -f "$stage/slow.pid"
HYSIM_CC=$stage/slow-cc HYSIM_CACHE_DIR=$stage/slow-cache "$stage/hysim" run "$stage/model.hym" --out "$stage/out-slow" \
  > /dev/null 2> "$stage/err-int" &
hysim_pid=$!
for _ in $(seq 100); do [[ -s $stage/slow.pid ]] && break; sleep 0.05; done
[[ -s $stage/slow.pid ]] || fail "the slow compiler did not start"
start=$SECONDS
kill -INT "$hysim_pid"
status=0
wait "$hysim_pid" || status=$?
[[ $status -eq 130 ]] || fail "SIGINT while compiling: exit $status, not 130: $(cat "$stage/err-int")"
(( SECONDS - start <= 2 )) || fail "SIGINT while compiling took $((SECONDS - start)) s"
grep -q "SIGINT" "$stage/err-int" || fail "no word of SIGINT: $(cat "$stage/err-int")"
child=$(cat "$stage/slow.pid")
for _ in $(seq 40); do alive "$child" || break; sleep 0.05; done
! alive "$child" || { kill "$child"; fail "the compiler's child $child outlived SIGINT"; }
echo "SIGINT while compiling: exit 130, no compiler process left"

if [[ $(id -u) -ne 0 ]]; then
  echo "part 2 needs root (a second user and a private mount namespace): not run as uid $(id -u)"
  exit 0
fi

# Part 2, in a private mount namespace with its own /tmp and root's cache on a tmpfs.
cat > "$stage/namespace.sh" <<'EOF'
set -euo pipefail
stage=$1 object_name=$2 key=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p /root/.cache
mount -t tmpfs -o mode=0700 tmpfs /root/.cache
as_attacker() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_homeless() { setpriv --reuid=12345 --regid=12345 --clear-groups "$@"; }
victim_env=(env -u HOME -u XDG_CACHE_HOME -u HYSIM_CACHE_DIR -u TMPDIR)
run() { "$stage/hysim" run "$stage/model.hym" --t-end 5 "$@"; }

# The victim's file, and the attacker's cache at the old fixed place, planted.
echo "the victim's data" > /tmp/victim-file
as_attacker mkdir -m 777 /tmp/hysim-cache
for name in "model-$key.c" "model-$key.log" "model-$key.so.tmp" "hysim-build-XXXXXX"; do
  as_attacker ln -s /tmp/victim-file "/tmp/hysim-cache/$name"
done
# An object whose constructor marks /tmp/marker-2.
as_attacker sh -c "printf '#include <stdio.h>\n__attribute__((constructor)) static void p(void) { FILE* f = fopen(\"/tmp/marker-2\", \"w\"); if (f) fclose(f); }\n' > /tmp/evil.c && cc -shared -fPIC -o /tmp/hysim-cache/$object_name /tmp/evil.c"
as_attacker sh -c "printf 'hysim native model\nkey %s\nsha256 %s\n' $key \$(sha256sum < /tmp/hysim-cache/$object_name | cut -c1-64) > /tmp/hysim-cache/model-$key.sha256.new && mv -f /tmp/hysim-cache/model-$key.sha256.new /tmp/hysim-cache/model-$key.sha256"

# Root without HOME: the cache is root's own, private, and what is planted never runs.
"${victim_env[@]}" "$stage/hysim" run "$stage/model.hym" --t-end 5 --out /tmp/out-root > /dev/null 2> /tmp/err-root ||
  fail "root's run failed: $(cat /tmp/err-root)"
[[ ! -e /tmp/marker-2 ]] || fail "root loaded the attacker's object"
[[ $(stat -c %a /root/.cache/hysim) == 700 ]] || fail "root's cache is not 0700: $(stat -c %a /root/.cache/hysim)"
[[ -e /root/.cache/hysim/$object_name ]] || fail "root's object is not in root's cache"
grep -q "tape" /tmp/err-root && fail "root's run fell back to the tape: $(cat /tmp/err-root)"
[[ $(cat /tmp/victim-file) == "the victim's data" ]] || fail "the victim's file was written through a link"

# A user without a home: no cache; a private folder, removed; nothing planted runs.
as_homeless "${victim_env[@]}" mkdir /tmp/out-homeless
as_homeless "${victim_env[@]}" "$stage/hysim" run "$stage/model.hym" --t-end 5 --out /tmp/out-homeless > /dev/null \
  2> /tmp/err-homeless || fail "the homeless user's run failed: $(cat /tmp/err-homeless)"
[[ ! -e /tmp/marker-2 ]] || fail "a user without a home loaded the attacker's object"
grep -q "tape" /tmp/err-homeless && fail "the homeless run fell back to the tape: $(cat /tmp/err-homeless)"
leftover=$(find /tmp -maxdepth 1 -name 'hysim-build-*' -user 12345)
[[ -z $leftover ]] || fail "a private build folder was left: $leftover"

# The same user pointed at the attacker's folder: refused, by owner.
status=0
as_homeless env HYSIM_CACHE_DIR=/tmp/hysim-cache HYSIM_MODEL_BACKEND=native "$stage/hysim" run "$stage/model.hym" \
  --t-end 5 --out /tmp/out-homeless > /dev/null 2> /tmp/err-pointed || status=$?
[[ $status -ne 0 ]] || fail "a cache owned by another user was accepted"
grep -q "owned by uid 65534" /tmp/err-pointed || fail "unclear refusal: $(cat /tmp/err-pointed)"
[[ ! -e /tmp/marker-2 ]] || fail "the attacker's object was loaded from HYSIM_CACHE_DIR"
[[ $(cat /tmp/victim-file) == "the victim's data" ]] || fail "the victim's file was written through a link"
echo "part 2: root and a user without a home ignore the planted /tmp/hysim-cache; a cache owned by another user is refused"
EOF
unshare -m --propagation private bash "$stage/namespace.sh" "$stage" "$object_name" "$key"
echo "security: all checks passed"

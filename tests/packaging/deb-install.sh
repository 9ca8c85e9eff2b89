#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The .deb as a user gets it: CPack builds it from this build tree, lintian,
# desktop-file-validate, appstreamcli and systemd-analyze check it, apt
# installs it (resolving the dependencies it declares), and then, from /usr
# alone:
#   - holdpoint --version and holdpoint-ctl --help, and the man pages;
#   - holdpoint-ctl's front without Qt, its full program in libexec;
#   - a headless console with one submitted call that a reviewer approves;
#   - the bash completion, offering that call's ID;
#   - the gateway's user and group from sysusers.d, and a gateway run as
#     the unit runs it: a member of holdpoint-agents submits a call, anyone
#     else cannot reach it, and neither can act as a reviewer;
# and apt purges it, leaving nothing of it but the user's data directory
# (and the gateway's system user and group, which Debian keeps).
#
#   deb-install.sh BUILD_DIR VERSION
# Needs root (apt); installs and purges the package `holdpoint`, so it
# refuses to run where that package is installed already.
set -euo pipefail

build=$(realpath "$1")
version=$2
work=$(mktemp -d /tmp/holdpoint-deb.XXXXXX)
chmod 0755 "$work"
pids=()
users=(hp-pkg-agent hp-pkg-other)
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# expect DESCRIPTION COMMAND...: the command must succeed.
expect() {
    local what=$1
    shift
    if "$@" >"$work/out" 2>&1; then pass "$what"; else fail "$what: $(tail -5 "$work/out")"; fi
}

marker=/var/lib/holdpoint-deb-test # this test installed the package: a later run may purge it
cleanup() {
    local rc=$? pid user log
    if ((rc != 0 || failures != 0)); then
        for log in console.log gateway.log apt.log; do
            [ -s "$work/$log" ] && { echo "--- $log (last 20 lines)"; tail -20 "$work/$log"; }
        done
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    pkill -KILL -u holdpoint-gateway 2>/dev/null || true
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for user in "${users[@]}"; do userdel "$user" 2>/dev/null || true; done
    if dpkg-query -W -f='${Status}' holdpoint 2>/dev/null | grep -q "ok installed"; then
        DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq holdpoint >/dev/null 2>&1 || true
    fi
    rm -rf "$work" "$marker"
}

if [ "$(id -u)" -ne 0 ]; then
    echo "deb-install.sh: needs root to install the package with apt" >&2
    exit 1
fi
# A run that was killed (a CTest timeout) leaves its package and users: it
# marked the package as its own, so this run clears them first. A package
# installed by anyone else stays, and the test stops.
if dpkg-query -W -f='${Status}' holdpoint 2>/dev/null | grep -q "ok installed"; then
    if [ ! -e "$marker" ]; then
        echo "deb-install.sh: the package holdpoint is installed on this machine; this test installs and purges it, so it stops" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq holdpoint >/dev/null
fi
for user in "${users[@]}"; do userdel "$user" 2>/dev/null || true; done
trap cleanup EXIT

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND until it succeeds.
wait_for() {
    local what=$1 seconds=$2 deadline=$((SECONDS + $2))
    shift 2
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            fail "$what (gave up after $seconds s)"
            return 1
        fi
        sleep 0.1
    done
}

# 1. Build it and check it as Debian's tools do.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/cpack" -D CPACK_OUTPUT_FILE_PREFIX="$work/out-deb" >"$work/cpack.log" 2>&1) ||
    { cat "$work/cpack.log"; fail "cpack"; exit 1; }
deb=$(ls "$work"/out-deb/holdpoint_*.deb)
pass "built $(basename "$deb")"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] && pass "the .deb's version is $version" ||
    fail "the .deb's version is $(dpkg-deb -f "$deb" Version), not $version"
# Errors and warnings both fail; the warnings the package keeps are its
# lintian overrides, each with its reason (resources/packaging/debian/).
if lintian --fail-on error,warning "$deb" >"$work/lintian" 2>&1; then
    pass "lintian: no errors, no warnings beyond the package's overrides"
else
    fail "lintian: $(grep -E '^[EW]:' "$work/lintian" || cat "$work/lintian")"
fi
dpkg-deb -x "$deb" "$work/tree"
expect "desktop-file-validate" desktop-file-validate "$work/tree/usr/share/applications/dev.holdpoint.Holdpoint.desktop"
expect "appstreamcli validate" appstreamcli validate --no-net "$work/tree/usr/share/metainfo/dev.holdpoint.Holdpoint.metainfo.xml"
grep -q "<release version=\"$version\"" "$work/tree/usr/share/metainfo/dev.holdpoint.Holdpoint.metainfo.xml" &&
    pass "the metainfo's release is $version" || fail "the metainfo has no release $version"

# 2. Install it the way a user would: apt resolves what it declares.
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's#^\./#/#' | grep -v '/$' >"$work/files"
touch "$marker"
if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1; then
    pass "apt-get install ./$(basename "$deb")"
else
    cat "$work/apt.log"
    fail "apt-get install"
    exit 1
fi
expect "systemd-analyze verify holdpoint-gateway.service" systemd-analyze verify /lib/systemd/system/holdpoint-gateway.service
exposure=$(systemd-analyze security --offline=yes /lib/systemd/system/holdpoint-gateway.service 2>/dev/null |
    sed -n 's/.*Overall exposure level for holdpoint-gateway.service: \([0-9.]*\).*/\1/p')
awk -v e="${exposure:-10}" 'BEGIN { exit !(e <= 2.0) }' &&
    pass "systemd-analyze security: exposure $exposure (at most 2.0)" ||
    fail "systemd-analyze security: exposure ${exposure:-unknown}, more than 2.0"

# 3. From /usr alone: no build tree on PATH, no library path.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset LD_LIBRARY_PATH HOLDPOINT_DATA_DIR HOLDPOINT_TEAM_URL
[ "$(command -v holdpoint)" = /usr/bin/holdpoint ] && [ "$(command -v holdpoint-ctl)" = /usr/bin/holdpoint-ctl ] &&
    pass "holdpoint and holdpoint-ctl are in /usr/bin" || fail "holdpoint is not in /usr/bin"
[ "$(holdpoint --version)" = "holdpoint $version" ] && pass "holdpoint --version: holdpoint $version" ||
    fail "holdpoint --version says '$(holdpoint --version 2>&1)'"
[ "$(holdpoint-ctl --version)" = "holdpoint-ctl $version" ] && pass "holdpoint-ctl --version" ||
    fail "holdpoint-ctl --version says '$(holdpoint-ctl --version 2>&1)'"
holdpoint-ctl --help >"$work/help" && grep -q "^Usage: holdpoint-ctl" "$work/help" && pass "holdpoint-ctl --help" || fail "holdpoint-ctl --help"
# The front agents start per tool call loads no Qt and no PostgreSQL
# client; everything else runs in the full program beside it.
[ -x /usr/libexec/holdpoint/holdpoint-ctl-full ] && pass "holdpoint-ctl-full is in /usr/libexec/holdpoint" ||
    fail "no /usr/libexec/holdpoint/holdpoint-ctl-full"
! ldd /usr/bin/holdpoint-ctl | grep -Eq "libQt|libpq|libcrypto" && pass "holdpoint-ctl (the front) links no Qt, libpq or libcrypto" ||
    fail "holdpoint-ctl links $(ldd /usr/bin/holdpoint-ctl | grep -Eo 'lib(Qt|pq|crypto)[^ ]*' | tr '\n' ' ')"
# Not at a terminal, a hook blocks with exit 2 (an agent CLI may be asking),
# and still shows a person the usage.
{ holdpoint-ctl hook codex --help </dev/null >"$work/help" 2>&1 || true; }
grep -q "^  hook codex" "$work/help" &&
    pass "holdpoint-ctl hook codex --help" || fail "holdpoint-ctl hook codex --help"
for page in holdpoint holdpoint-ctl; do
    zcat "/usr/share/man/man1/$page.1.gz" | grep -q "^\.TH ${page^^} 1 .*$version" &&
        pass "man page $page(1) for $version" || fail "no man page $page(1) for $version"
done
zcat /usr/share/man/man1/holdpoint-ctl.1.gz | grep -q "fBmcp-proxy" && pass "holdpoint-ctl(1) lists mcp-proxy" ||
    fail "holdpoint-ctl(1) does not list mcp-proxy"
# The description whole (CMake once cut it at a semicolon), and every option.
zcat /usr/share/man/man1/holdpoint.1.gz | grep -q "/etc/holdpoint/gateway.conf\.$" &&
    pass "holdpoint(1) has its whole description" || fail "holdpoint(1)'s description is cut short"
for option in $(holdpoint --help | grep -o '^  \(-., \)\?--[a-z-]*' | sed 's/.*--//'); do
    zcat /usr/share/man/man1/holdpoint.1.gz | grep -q "fB\\\\-\\\\-$option\\\\fR" || fail "holdpoint(1) lacks --$option"
done

# A headless console, one call, a reviewer's approval.
data="$work/user-data"
holdpoint --headless --port 0 --data-dir "$data" 2>"$work/console.log" &
pids+=($!)
wait_for "the console writes endpoint.json" 30 test -s "$data/endpoint.json"
holdpoint-ctl --data-dir "$data" submit --tool write_file --args '{"path":"notes.txt","content":"hi"}' \
    --timeout 60 >"$work/submit.out" 2>&1 &
submit=$!
pids+=($submit)
pending_id() { holdpoint-ctl --data-dir "$data" pending --json | grep -o '"id": *"[^"]*"' | head -1 | sed 's/.*"\([^"]*\)"$/\1/'; }
has_pending() { [ -n "$(pending_id)" ]; }
wait_for "the call is pending" 30 has_pending
id=$(pending_id)
# The completion offers it to approve.
completed=$(bash -c 'source /usr/share/bash-completion/completions/holdpoint-ctl
    COMP_WORDS=(holdpoint-ctl --data-dir "$1" approve ""); COMP_CWORD=4; _holdpoint_ctl; echo "${COMPREPLY[*]}"' _ "$data")
[ "$completed" = "$id" ] && pass "bash completion offers the pending ID $id" || fail "bash completion offered '$completed', not $id"
completed=$(bash -c 'source /usr/share/bash-completion/completions/holdpoint-ctl
    COMP_WORDS=(holdpoint-ctl au); COMP_CWORD=1; _holdpoint_ctl; echo "${COMPREPLY[*]}"')
[ "$completed" = audit ] && pass "bash completion: au -> audit" || fail "bash completion: au -> '$completed'"
completed=$(bash -c 'source /usr/share/bash-completion/completions/holdpoint
    COMP_WORDS=(holdpoint --head); COMP_CWORD=1; _holdpoint; echo "${COMPREPLY[*]}"')
[ "$completed" = --headless ] && pass "bash completion: holdpoint --head -> --headless" || fail "holdpoint --head -> '$completed'"
expect "holdpoint-ctl approve $id" holdpoint-ctl --data-dir "$data" approve "$id"
if wait "$submit" && grep -q '"decision": *"allow"' "$work/submit.out"; then
    pass "the submitted call was allowed by the reviewer"
else
    fail "the submitted call: $(cat "$work/submit.out")"
fi

# 4. The gateway as its unit runs it: its own user, the agents' group.
getent passwd holdpoint-gateway >/dev/null && pass "sysusers.d made the user holdpoint-gateway" || fail "no user holdpoint-gateway"
getent group holdpoint-agents >/dev/null && pass "sysusers.d made the group holdpoint-agents" || fail "no group holdpoint-agents"
useradd --no-create-home --no-user-group --gid nogroup --groups holdpoint-agents hp-pkg-agent
useradd --no-create-home --no-user-group --gid nogroup hp-pkg-other
state=/var/lib/holdpoint-gateway
install -d -o holdpoint-gateway -g holdpoint-agents -m 0710 "$state" # what StateDirectory= does
# Traced, to hold its system calls against the unit's SystemCallFilter.
install -d -o holdpoint-gateway -m 0700 "$work/trace"
runuser -u holdpoint-gateway -g holdpoint-agents -- strace -f -qq -o "$work/trace/calls" /usr/bin/holdpoint --headless \
    --data-dir "$state" --agent-group holdpoint-agents --policy /usr/share/holdpoint/policies/read-only.json \
    2>"$work/gateway.log" &
gateway=$!
pids+=($gateway)
wait_for "the gateway writes endpoint.json" 30 test -s "$state/endpoint.json"
[ "$(stat -c '%a %G' "$state")" = "710 holdpoint-agents" ] && [ "$(stat -c '%a %G' "$state/endpoint.json")" = "640 holdpoint-agents" ] &&
    [ "$(stat -c '%a' "$state/reviewer.token")" = 600 ] &&
    pass "the gateway shares endpoint.json with holdpoint-agents, and nothing else" ||
    fail "modes: $(stat -c '%n %a %U:%G' "$state" "$state"/*)"
as() { local user=$1; shift; runuser -u "$user" -- env HOLDPOINT_DATA_DIR="$state" "$@"; }
read_only='{"readOnlyHint":true}' # what read-only.json lets through at once
if as hp-pkg-agent holdpoint-ctl submit --tool read_file --args '{"path":"README.md"}' --annotations "$read_only" \
    --timeout 30 >"$work/agent.out" 2>&1 &&
    grep -q '"decision": *"allow"' "$work/agent.out"; then
    pass "a member of holdpoint-agents submits a call to the gateway"
else
    fail "a member of holdpoint-agents: $(cat "$work/agent.out")"
fi
# Gemini CLI's hook keeps notes between BeforeTool and AfterTool; the
# gateway's data dir is not the agent's to write, so they go to its own.
gemini() { printf '{"session_id":"g1","cwd":"/tmp","hook_event_name":"%s",%s}' "$1" "$2" | as hp-pkg-agent holdpoint-ctl hook gemini; }
if gemini BeforeAgent '"prompt":"read the readme"' >"$work/gemini.out" 2>&1 &&
    gemini BeforeTool '"tool_name":"read_file","tool_input":{"path":"README.md"}' >"$work/gemini.out" 2>&1 &&
    grep -q '"decision":"allow"' "$work/gemini.out" &&
    gemini AfterTool '"tool_name":"read_file","tool_input":{"path":"README.md"},"tool_response":{"llmContent":"hi"}' >"$work/gemini.out" 2>&1; then
    pass "a member's Gemini CLI hook: a turn, a read allowed, its result checked"
else
    fail "a member's Gemini CLI hook: $(cat "$work/gemini.out")"
fi
rc=0
as hp-pkg-other holdpoint-ctl submit --tool read_file --args '{"path":"README.md"}' --annotations "$read_only" --timeout 30 >"$work/other.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && pass "a user outside holdpoint-agents cannot reach the gateway (exit 2)" ||
    fail "a user outside holdpoint-agents: exit $rc, $(cat "$work/other.out")"
rc=0
as hp-pkg-agent holdpoint-ctl pending >"$work/agent-review.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && pass "an agent cannot act as a reviewer of the gateway (exit 2)" ||
    fail "an agent reviewing: exit $rc, $(cat "$work/agent-review.out")"

# The unit allows @system-service but not @privileged or @resources; a call
# outside that (a chown, say) fails there with EPERM, which no run outside
# systemd would show. Every call the gateway made must be allowed, its
# clean exit on SIGTERM (what systemctl stop sends) included.
pkill -TERM -u holdpoint-gateway -x holdpoint || true
gateway_running() { kill -0 "$gateway" 2>/dev/null; }
wait_for "the gateway exits on SIGTERM" 20 eval '! gateway_running'
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
pids=()
expand_filter() {
    local group call
    for group in "$@"; do
        systemd-analyze syscall-filter "$group" | tail -n +2 | sed 's/^ *//' | grep -v -e '^#' -e '^$' |
            while read -r call; do if [[ $call == @* ]]; then expand_filter "$call"; else echo "$call"; fi; done
    done
}
comm -23 <(expand_filter @system-service | sort -u) <(expand_filter @privileged @resources | sort -u) >"$work/allowed"
sed -E 's/^[0-9]+ +//; s/\(.*//' "$work/trace/calls" | grep -E '^[a-z_0-9]+$' | sort -u >"$work/used"
refused=$(comm -23 "$work/used" "$work/allowed" | tr '\n' ' ')
[ -s "$work/used" ] && [ -z "$refused" ] &&
    pass "the gateway's $(wc -l <"$work/used") distinct system calls are all within the unit's SystemCallFilter" ||
    fail "the gateway made system calls its unit refuses: ${refused:-none traced}"

# An admin enables the unit; purge takes the enablement away with it.
systemctl enable holdpoint-gateway.service >"$work/out" 2>&1 || true
wants=/etc/systemd/system/multi-user.target.wants/holdpoint-gateway.service
[ -L "$wants" ] && pass "systemctl enable holdpoint-gateway" || fail "systemctl enable: $(cat "$work/out")"

# 5. Purge: nothing of the package is left but the user's data directory.
expect "apt-get purge holdpoint" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq holdpoint
left=$(while read -r f; do if [ -e "$f" ]; then echo "$f"; fi; done <"$work/files")
left+=$(for d in /etc/holdpoint "$state" /usr/share/holdpoint /usr/share/doc/holdpoint "$wants"; do if [ -e "$d" ] || [ -L "$d" ]; then echo " $d"; fi; done)
[ -z "$left" ] && pass "purge left none of the package's $(wc -l <"$work/files") files, its settings or its state" ||
    fail "purge left: $left"
[ -s "$data/audit/$(ls "$data/audit" | head -1)" ] && pass "the user's data directory is kept" ||
    fail "the user's data directory is gone"

echo
if ((failures)); then
    echo "deb-install.sh: $failures check(s) failed" >&2
    exit 1
fi
echo "deb-install.sh: every check passed"

#!/bin/sh
# Feed a recorded /proc/diskstats sequence (scripts/record_diskstats.sh) to sysstat's own iostat,
# so that its printed `iostat -x` fields can be compared with ssdlab's on exactly the same
# counters. In a private mount namespace (needs root: `unshare -m`), /proc/uptime and
# /proc/diskstats are bind-mounted from scratch files whose contents are replaced by snapshot k
# half a second after iostat's k-th read (iostat reads both once per second, alarm-driven);
# `-p ALL` makes iostat read /proc/diskstats (with a device list it reads /sys/block/DEV/stat).
#
# usage: scripts/replay_iostat.sh RECORDING DEVICE [IOSTAT_FLAGS]   (default flags: -x)
# prints iostat's header lines and DEVICE's lines only.
set -eu
rec=${1:?usage: replay_iostat.sh RECORDING DEVICE [IOSTAT_FLAGS]}
dev=${2:?usage: replay_iostat.sh RECORDING DEVICE [IOSTAT_FLAGS]}
flags=${3:--x}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Split the recording into snapshot files snap.K.uptime / snap.K.diskstats.
awk -v d="$tmp" '
  /^# uptime / { k++; printf "%s 0.00\n", $3 > (d "/snap." k ".uptime"); next }
  { print > (d "/snap." k ".diskstats") }' "$rec"
n=$(ls "$tmp"/snap.*.uptime | wc -l)
cp "$tmp/snap.1.uptime" "$tmp/uptime"
cp "$tmp/snap.1.diskstats" "$tmp/diskstats"
export tmp n flags dev
unshare -m sh -c '
  mount --bind "$tmp/uptime" /proc/uptime
  mount --bind "$tmp/diskstats" /proc/diskstats
  LC_ALL=C iostat -d $flags -p ALL 1 "$n" > "$tmp/out" &
  pid=$!
  sleep 0.5
  k=2
  while [ "$k" -le "$n" ]; do
    # Rewrite in place (the bind mount pins the inode).
    cat "$tmp/snap.$k.uptime" > "$tmp/uptime"
    cat "$tmp/snap.$k.diskstats" > "$tmp/diskstats"
    k=$((k + 1))
    sleep 1
  done
  wait "$pid"
'
grep -E "^(Device|$dev )" "$tmp/out"

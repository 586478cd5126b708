#!/bin/sh
# Record a /proc/diskstats sequence in the format ssdlab reads (issue 13): every snapshot is a
# line `# uptime SECONDS` (the first field of /proc/uptime, read just before, as sysstat's
# iostat reads /proc/uptime just before the device counters) followed by /proc/diskstats.
#
# usage: scripts/record_diskstats.sh OUT SAMPLES [INTERVAL_S]
#   OUT        file to write (overwritten)
#   SAMPLES    number of snapshots (>= 2 for one interval)
#   INTERVAL_S seconds between snapshots (default 1; `sleep` decides the precision, the
#              recorded uptimes are what the computation uses)
#
# To also record a workload: run it in the background first, e.g.
#   dd if=/dev/zero of=/tmp/x bs=1M count=400 oflag=direct & scripts/record_diskstats.sh rec.txt 6
set -eu
out=${1:?usage: record_diskstats.sh OUT SAMPLES [INTERVAL_S]}
n=${2:?usage: record_diskstats.sh OUT SAMPLES [INTERVAL_S]}
dt=${3:-1}
: > "$out"
i=0
while [ "$i" -lt "$n" ]; do
    read -r up _ < /proc/uptime
    { echo "# uptime $up"; cat /proc/diskstats; } >> "$out"
    i=$((i + 1))
    [ "$i" -lt "$n" ] && sleep "$dt"
done

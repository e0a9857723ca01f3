#!/usr/bin/env bash
# Latency against offered load for one NoC configuration: runs the CLI once
# per injection rate and prints a table (rate, accepted, avg/p99 latency).
#
#   scripts/noc_latency_curve.sh [CONFIG.yaml] [--set key=value]...
#
# Rates come from $RATES (default "0.005 0.01 0.02 0.03 0.04 0.05"). Each run's
# JSON is kept in $OUT_DIR (default noc_latency_curve/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wsesim="${WSESIM:-$root/build/wsesim}"
config="${1:-$root/testbench/configs/noc_small.yaml}"
shift || true
rates="${RATES:-0.005 0.01 0.02 0.03 0.04 0.05}"
out_dir="${OUT_DIR:-noc_latency_curve}"
mkdir -p "$out_dir"

printf "%-10s %-10s %-10s %-10s %-10s\n" rate accepted lat_avg lat_p99 missing
for rate in $rates; do
  result="$out_dir/rate_$rate.json"
  "$wsesim" run "$config" "$@" --set "workload.injection_rate=$rate" \
    --set workload.drain_cycles=20000 --out "$result" > /dev/null
  /usr/bin/python3 - "$result" "$rate" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
print(f'{sys.argv[2]:<10} {w["accepted_rate"]:<10.5f} {w["latency_avg"]:<10.1f} '
      f'{w["latency_p99"]:<10} {w["measured_deliveries_missing"]:<10}')
PY
done

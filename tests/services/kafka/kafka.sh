#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, broker+controller in one JVM) on 127.0.0.1 for tests/benchmarks.
#
#   kafka.sh install                      fetch the jars with mvn (idempotent; start does it too)
#   kafka.sh start [--port N] [--resume] [--auto-create-topics] [--heap 512m] [--quick-jvm]
#        fresh: wipes the run dir, formats a new KRaft log dir (random cluster id), free ports
#        --resume: start again on the same ports with the data kept by `stop --keep`
#        --quick-jvm: C1 JIT only (-XX:TieredStopAtLevel=1): ~40% less start-up CPU, lower peak
#          throughput; for functional tests, not benchmarks. Kept by --resume/restart.
#        prints BOOTSTRAP=127.0.0.1:PORT (also in <run dir>/broker.env)
#   kafka.sh stop [--keep]                SIGTERM, bounded wait, SIGKILL; wipes data unless --keep
#   kafka.sh restart                      stop --keep + start --resume (same port, same data)
#   kafka.sh status                       exit 0 and BOOTSTRAP=... if running, else exit 3
#   kafka.sh bootstrap                    print host:port of the running broker
#   kafka.sh transactions list|describe --transactional-id ID|find-hanging --broker-id 1
#                                         Kafka's kafka-transactions.sh against the running broker
#   kafka.sh logs [N]                     tail the broker log
#   kafka.sh topic create NAME [PARTITIONS] [key=value ...]   (topic configs)
#   kafka.sh topic delete NAME
#   kafka.sh topic list | describe [NAME]
#   kafka.sh topic produce NAME [--key-delim C] [--partition P]   (one message per stdin line)
#   kafka.sh topic consume NAME N [--timeout S] [--format FMT]    (first N messages from the start)
#
# Global option (any position): --run-dir DIR (default $CDCD_KAFKA_RUN_DIR, else
# ~/.cache/cdcd/kafka-run). One broker per run dir; use distinct run dirs for parallel brokers.
# Env: KAFKA_VERSION, CDCD_CACHE, CDCD_KAFKA_HOME, KAFKA_START_TIMEOUT (s, default 90),
#      KAFKA_PROBE=python (readiness via kafka_ping.py even when kcat is installed),
#      KAFKA_STOP_TIMEOUT (s, default 30), KAFKA_HEAP (default 512m), KAFKA_EXTRA_OPTS,
#      KAFKA_EXTRA_PROPS (server.properties lines), KAFKA_EXTRA_LISTENERS ("SSL:PORT ...").
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"

die() { echo "kafka.sh: $*" >&2; exit 1; }
now() { local t="${EPOCHREALTIME/[.,]/}"; echo "${t:0:${#t}-4}"; }   # centiseconds
elapsed() { local d=$(( $(now) - $1 )); printf '%d.%02d' $((d / 100)) $((d % 100)); }

# --- global option parsing: pull --run-dir out, leave the rest -----------------------------
RUN_DIR="$CDCD_KAFKA_RUN_DIR"
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --run-dir) RUN_DIR="$2"; shift 2 ;;
    --run-dir=*) RUN_DIR="${1#*=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]+"${args[@]}"}"
mkdir -p "$RUN_DIR"
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
DATA="$RUN_DIR/data"
LOGS="$RUN_DIR/logs"
PROPS="$RUN_DIR/server.properties"
STATE="$RUN_DIR/broker.env"
PIDFILE="$RUN_DIR/kafka.pid"

# --- helpers ------------------------------------------------------------------------------
state_get() { [[ -f $STATE ]] && sed -n "s/^$1=//p" "$STATE" | tail -1 || true; }

# The pid of our broker if it is alive. Checks the command line so a recycled pid is never signalled.
broker_pid() {
  [[ -f $PIDFILE ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [[ -n $pid && -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "kafka.Kafka $PROPS" || return 1
  echo "$pid"
}

alloc() {  # alloc [PORT] -> "PORT CONTROLLER_PORT CLUSTER_ID" (free loopback ports, new Kafka Uuid)
  python3 - "${1:-0}" <<'PY'
import base64, socket, sys, uuid
want = int(sys.argv[1])
socks = []
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)  # held open: two distinct ports
    return s.getsockname()[1]
port = want or free()
cport = free()
while True:  # 22 base64url chars of 16 random bytes, not starting with '-' (it is a CLI argument)
    cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    if not cid.startswith("-"):
        break
print(port, cport, cid)
PY
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

probe() {  # broker answers metadata with >=1 broker and every partition has a leader
  local b="$1"
  if [[ ${KAFKA_PROBE:-} != python ]] && command -v kcat >/dev/null 2>&1; then
    local out
    out="$(kcat -L -b "$b" -m 2 2>/dev/null)" || return 1
    grep -q '^ [1-9][0-9]* brokers:' <<<"$out" || return 1
    ! grep -q 'leader -1' <<<"$out"
  else
    python3 "$HERE/kafka_ping.py" "$b" --timeout 2 >/dev/null 2>&1
  fi
}

# Class-data-sharing archives (JDK AppCDS) cut JVM start-up CPU by roughly a third to a half. The
# first JVM of a kind dumps the classes it loaded at exit (-XX:ArchiveClassesAtExit, into its run
# dir); later ones map the archive. A stale or foreign archive is ignored by the JVM (-Xshare:auto).
# KAFKA_CDS=0 turns this off.
CDS_DIR="$CDCD_KAFKA_HOME/cds"
cds_archive() {  # cds_archive NAME -> path of the archive for this JVM binary
  local j; j="$(readlink -f "$(command -v java)")"
  echo "$CDS_DIR/$1-$(echo "$j $(stat -c %Y "$j")" | md5sum | cut -c1-10).jsa"
}
cds_opts() {  # cds_opts NAME DUMP_TO -> JVM options (use the archive, or dump one to DUMP_TO)
  [[ ${KAFKA_CDS:-1} != 0 ]] || return 0
  local a; a="$(cds_archive "$1")"
  if [[ -s $a ]]; then echo "-XX:SharedArchiveFile=$a -Xshare:auto"
  else echo "-XX:ArchiveClassesAtExit=$2"; fi
}
cds_keep() {  # cds_keep NAME DUMPED_FILE: publish a freshly dumped archive atomically
  local a; a="$(cds_archive "$1")"
  if [[ -s $2 && ! -s $a ]]; then
    mkdir -p "$CDS_DIR"
    local tmp; tmp="$(mktemp "$CDS_DIR/.tmp.XXXXXX")"
    cp "$2" "$tmp" && mv -f "$tmp" "$a" || rm -f "$tmp"
  fi
  rm -f "$2"
}

java_tool() {  # java_tool MAIN_CLASS args...  (short-lived JVM tuned for start-up time)
  local name="tool-${1##*.}" dump="$RUN_DIR/.tool.jsa"
  local rc=0
  # shellcheck disable=SC2046
  java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC $(cds_opts "$name" "$dump") -Xlog:cds=off -Xlog:cds+dynamic=off \
    -Dlog4j2.configurationFile="$HERE/log4j2-tools.properties" \
    -cp "$CDCD_KAFKA_LIBS/*" "$@" || rc=$?
  [[ $rc != 0 ]] || cds_keep "$name" "$dump"
  rm -f "$dump"
  return "$rc"
}

write_props() {  # write_props PORT CONTROLLER_PORT AUTO_CREATE
  # KAFKA_EXTRA_LISTENERS="SASL_PLAINTEXT:PORT SSL:PORT ...": more listeners, each named after its
  # security protocol (their settings go in KAFKA_EXTRA_PROPS, e.g. listener.name.ssl.*).
  local more="" map=""
  for l in ${KAFKA_EXTRA_LISTENERS:-}; do
    more+=",${l%%:*}://127.0.0.1:${l##*:}"; map+=",${l%%:*}:${l%%:*}"
  done
  cat >"$PROPS" <<EOF
# Written by tests/services/kafka/kafka.sh — single-node KRaft broker for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$2
listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2$more
advertised.listeners=PLAINTEXT://127.0.0.1:$1$more
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT$map
log.dirs=$DATA
num.partitions=1
default.replication.factor=1
auto.create.topics.enable=$3
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  if [[ -n ${KAFKA_EXTRA_PROPS:-} ]]; then printf '%s\n' "$KAFKA_EXTRA_PROPS" >>"$PROPS"; fi
}

launch() {  # launch HEAP QUICK: start the JVM in the background, detached from our terminal/process group
  local heap="$1" cds jit=""
  [[ $2 != 1 ]] || jit="-XX:TieredStopAtLevel=1"
  mkdir -p "$LOGS"
  cds="$(cds_opts broker "$RUN_DIR/.broker.jsa")"   # computed here: keep the fork-to-exec window short
  # shellcheck disable=SC2086
  setsid nohup java -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    $cds -Xlog:cds=off -Xlog:cds+dynamic=off $jit \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOGS" -Dlog4j2.configurationFile="$HERE/log4j2.properties" \
    ${KAFKA_EXTRA_OPTS:-} -cp "$CDCD_KAFKA_LIBS/*" kafka.Kafka "$PROPS" \
    >>"$LOGS/stdout.log" 2>&1 </dev/null 8>&- &
  echo $! >"$PIDFILE"
}

wait_ready() {  # wait_ready BOOTSTRAP -> 0 ready, 1 process died, 2 timeout
  local b="$1" limit="${KAFKA_START_TIMEOUT:-90}" t0; t0=$(date +%s)
  local pid; pid="$(cat "$PIDFILE")"
  while (( $(date +%s) - t0 < limit )); do
    kill -0 "$pid" 2>/dev/null || return 1   # not broker_pid: right after fork the cmdline is still ours
    probe "$b" && return 0
    sleep 0.1
  done
  return 2
}

show_log_tail() {
  echo "---- $LOGS/stdout.log (tail) ----" >&2; tail -n 20 "$LOGS/stdout.log" 2>/dev/null >&2 || true
  echo "---- $LOGS/server.log (errors) ----" >&2
  grep -E 'ERROR|FATAL|Exception' "$LOGS/server.log" 2>/dev/null | tail -n 20 >&2 || true
}

# --- commands -----------------------------------------------------------------------------
cmd_start() {
  local port="" resume=0 auto=false heap="${KAFKA_HEAP:-512m}" quick=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --port=*) port="${1#*=}"; shift ;;
      --resume) resume=1; shift ;;
      --auto-create-topics) auto=true; shift ;;
      --heap) heap="$2"; shift 2 ;;
      --quick-jvm) quick=1; shift ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  local t0; t0=$(now)
  if pid=$(broker_pid); then
    local b; b="$(state_get BOOTSTRAP)"
    [[ -z $port || $b == "127.0.0.1:$port" ]] || die "a broker is already running in $RUN_DIR at $b"
    echo "BOOTSTRAP=$b"; return 0
  fi
  "$HERE/install.sh" --quiet

  local cport cid attempt
  for attempt in 1 2 3; do
    if [[ $resume == 1 ]]; then
      [[ -f $DATA/meta.properties && -f $STATE && -f $PROPS ]] || die "start --resume: no kept broker data in $RUN_DIR (use stop --keep first)"
      local kept; kept="$(state_get PORT)"
      [[ -z $port || $port == "$kept" ]] || die "start --resume: data was served on port $kept, not $port"
      port="$kept"; cport="$(state_get CONTROLLER_PORT)"; cid="$(state_get CLUSTER_ID)"
      [[ -n $quick ]] || quick="$(state_get QUICK_JVM)"
      auto="$(sed -n 's/^auto.create.topics.enable=//p' "$PROPS")"
      ! port_busy "$port" || die "port $port is in use by another process"
      write_props "$port" "$cport" "$auto"   # same ports; picks up KAFKA_EXTRA_PROPS changes
    else
      local want_port="$port"
      rm -rf "$DATA" "$LOGS" "$STATE" "$PIDFILE" "$RUN_DIR/.broker.jsa" "$RUN_DIR/.tool.jsa"
      mkdir -p "$DATA" "$LOGS"
      [[ -z $want_port ]] || ! port_busy "$want_port" || die "port $want_port is in use"
      read -r port cport cid < <(alloc "$want_port")
      [[ -n $cid ]] || die "could not allocate ports"
      write_props "$port" "$cport" "$auto"
      java_tool kafka.tools.StorageTool format -t "$cid" -c "$PROPS" >"$LOGS/format.log" 2>&1 \
        || { cat "$LOGS/format.log" >&2; die "storage format failed"; }
    fi
    {
      echo "BOOTSTRAP=127.0.0.1:$port"; echo "PORT=$port"; echo "CONTROLLER_PORT=$cport"
      echo "CLUSTER_ID=$cid"; echo "KAFKA_VERSION=$KAFKA_VERSION"; echo "RUN_DIR=$RUN_DIR"
      echo "QUICK_JVM=${quick:-0}"
    } >"$STATE"
    launch "$heap" "${quick:-0}"
    local rc=0; wait_ready "127.0.0.1:$port" || rc=$?
    if [[ $rc == 0 ]]; then
      echo "PID=$(cat "$PIDFILE")" >>"$STATE"
      echo "kafka.sh: Kafka $KAFKA_VERSION ready at 127.0.0.1:$port in $(elapsed "$t0")s (run dir $RUN_DIR)" >&2
      echo "BOOTSTRAP=127.0.0.1:$port"
      return 0
    fi
    if [[ $rc == 2 ]]; then
      show_log_tail; cmd_stop --keep >/dev/null 2>&1 || true
      die "broker not ready after ${KAFKA_START_TIMEOUT:-90}s"
    fi
    # The JVM died. A port taken between our pick and the bind is retried with fresh ports.
    if [[ $resume == 0 && -z $want_port ]] && grep -qs 'Address already in use' "$LOGS/stdout.log" "$LOGS/server.log"; then
      echo "kafka.sh: port race, retrying with other ports" >&2; port=""; continue
    fi
    show_log_tail; die "broker exited during start-up"
  done
  die "could not find free ports"
}

cmd_stop() {
  local keep=0
  for a in "$@"; do
    case "$a" in --keep) keep=1 ;; *) die "stop: unknown argument $a" ;; esac
  done
  local pid t0; t0=$(now)
  if pid=$(broker_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    local limit="${KAFKA_STOP_TIMEOUT:-30}" i
    for (( i = 0; i < limit * 10; i++ )); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "kafka.sh: broker $pid ignored SIGTERM for ${limit}s, sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      rm -f "$RUN_DIR/.broker.jsa"   # a dump cut short by SIGKILL is not kept
      for (( i = 0; i < 50; i++ )); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    echo "kafka.sh: stopped broker $pid in $(elapsed "$t0")s" >&2
    cds_keep broker "$RUN_DIR/.broker.jsa"
  else
    echo "kafka.sh: no broker running in $RUN_DIR" >&2
  fi
  rm -f "$PIDFILE"
  if [[ $keep == 0 ]]; then
    rm -rf "$DATA" "$STATE"
  fi
}

cmd_status() {
  local pid
  if pid=$(broker_pid); then
    echo "running pid=$pid"; echo "BOOTSTRAP=$(state_get BOOTSTRAP)"; return 0
  elif [[ -f $DATA/meta.properties ]]; then
    echo "stopped (data kept in $DATA; resume with: kafka.sh start --resume)"; return 3
  else
    echo "not running"; return 3
  fi
}

bootstrap() {
  broker_pid >/dev/null || die "no broker running in $RUN_DIR (kafka.sh start)"
  state_get BOOTSTRAP
}

have_confluent() { python3 -c "import confluent_kafka" >/dev/null 2>&1; }

cmd_topic() {
  local sub="${1:-}"; shift || true
  local b; b="$(bootstrap)"
  case "$sub" in
    create)
      local name="${1:?topic create NAME [PARTITIONS] [k=v ...]}" parts="${2:-1}"; shift; [[ $# -gt 0 ]] && shift
      if have_confluent; then
        python3 "$HERE/broker.py" --bootstrap "$b" create "$name" "$parts" "$@"
      else
        local cfg=(); for kv in "$@"; do cfg+=(--config "$kv"); done
        java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic "$name" \
          --partitions "$parts" --replication-factor 1 "${cfg[@]+"${cfg[@]}"}"
      fi ;;
    delete)
      local name="${1:?topic delete NAME}"
      if have_confluent; then
        python3 "$HERE/broker.py" --bootstrap "$b" delete "$name"
      else
        java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --delete --topic "$name"
      fi ;;
    list)
      if command -v kcat >/dev/null 2>&1; then
        kcat -L -b "$b" -m 5 | sed -n 's/^  topic "\([^"]*\)".*/\1/p'
      else
        java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --list
      fi ;;
    describe)
      if command -v kcat >/dev/null 2>&1; then
        kcat -L -b "$b" -m 5 ${1:+-t "$1"}
      else
        java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --describe ${1:+--topic "$1"}
      fi ;;
    produce)
      local name="${1:?topic produce NAME [--key-delim C] [--partition P]}"; shift
      local kopt=() popt=()
      while [[ $# -gt 0 ]]; do
        case "$1" in
          --key-delim) kopt=(-K "$2"); shift 2 ;;
          --partition) popt=(-p "$2"); shift 2 ;;
          *) die "topic produce: unknown argument $1" ;;
        esac
      done
      command -v kcat >/dev/null 2>&1 || die "topic produce needs kcat (apt-get install kcat) or broker.py's API"
      kcat -P -b "$b" -t "$name" -X enable.idempotence=true "${kopt[@]+"${kopt[@]}"}" "${popt[@]+"${popt[@]}"}" ;;
    consume)
      local name="${1:?topic consume NAME N [--timeout S] [--format FMT]}" n="${2:?topic consume NAME N}"; shift 2
      local to=30 fmt='%s\n'
      while [[ $# -gt 0 ]]; do
        case "$1" in
          --timeout) to="$2"; shift 2 ;;
          --format) fmt="$2"; shift 2 ;;
          *) die "topic consume: unknown argument $1" ;;
        esac
      done
      command -v kcat >/dev/null 2>&1 || die "topic consume needs kcat (apt-get install kcat) or broker.py's API"
      local rc=0
      timeout "$to" kcat -C -b "$b" -t "$name" -o beginning -c "$n" -q -f "$fmt" \
        -X isolation.level=read_committed || rc=$?
      [[ $rc != 124 ]] || die "topic consume: fewer than $n messages within ${to}s"
      return "$rc" ;;
    *) die "topic: create|delete|list|describe|produce|consume" ;;
  esac
}

cmd="${1:-}"; shift || true
case "$cmd" in
  start|stop|restart)  # one lifecycle change at a time per run dir (the broker does not inherit fd 8)
    exec 8>"$RUN_DIR/.lock"
    flock -w 300 8 || die "timed out waiting for $RUN_DIR/.lock" ;;
esac
case "$cmd" in
  install) exec "$HERE/install.sh" "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  restart) cmd_stop --keep; cmd_start --resume ;;
  status) cmd_status ;;
  bootstrap) bootstrap ;;
  logs) tail -n "${1:-50}" "$LOGS/server.log" ;;
  topic) cmd_topic "$@" ;;
  transactions)  # what the broker's transaction coordinator knows, for diagnosing a stuck consumer
    java_tool org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$(bootstrap)" "$@" ;;
  -h|--help|help|"") awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" ;;
  *) die "unknown command $cmd (try --help)" ;;
esac

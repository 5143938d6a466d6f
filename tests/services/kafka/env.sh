# Shared defaults for install.sh and kafka.sh (sourced, not run).
# Override any of these from the environment.
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"                 # newest 4.x on Maven Central when written
CDCD_CACHE="${CDCD_CACHE:-$HOME/.cache/cdcd}"           # outside the repo, kept between runs
CDCD_KAFKA_HOME="${CDCD_KAFKA_HOME:-$CDCD_CACHE/kafka-$KAFKA_VERSION}"
CDCD_KAFKA_LIBS="$CDCD_KAFKA_HOME/libs"
CDCD_KAFKA_RUN_DIR="${CDCD_KAFKA_RUN_DIR:-$CDCD_CACHE/kafka-run}"   # default run dir of kafka.sh
